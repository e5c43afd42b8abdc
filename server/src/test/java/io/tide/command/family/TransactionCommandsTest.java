package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.shard.ShardSet;
import io.tide.testing.RawClient;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;

/**
 * MULTI/EXEC/DISCARD/WATCH through real sockets (raw RESP, Jedis, Lettuce; RESP2 and RESP3) on one, two
 * and four shards, including a cross-shard invariant under concurrent readers.
 */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2, 4})
class TransactionCommandsTest extends ServerPerShardCount {

    /** Two keys on different shards when there are several. */
    private static String[] apart(String prefix) {
        ShardSet set = server.context().shards();
        String a = prefix + ":a";
        for (int i = 0; ; i++) {
            String b = prefix + ":b" + i;
            if (set.size() == 1 || set.shardOf(bytes(a)) != set.shardOf(bytes(b))) return new String[] {a, b};
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void multiExec_queuesThenRunsEverything_rawReplies() throws Exception {
        String[] k = apart("tx1");
        try (RawClient c = new RawClient(server.port())) {
            c.call("DEL", k[0], k[1]);
            assertThat(c.call("MULTI")).isEqualTo("+OK\r\n");
            assertThat(c.call("SET", k[0], "1")).isEqualTo("+QUEUED\r\n");
            assertThat(c.call("INCR", k[0])).isEqualTo("+QUEUED\r\n");
            assertThat(c.call("RPUSH", k[1], "x")).isEqualTo("+QUEUED\r\n");
            assertThat(c.call("GET", k[0])).isEqualTo("+QUEUED\r\n");
            assertThat(c.call("EXEC")).isEqualTo("*4\r\n+OK\r\n:2\r\n:1\r\n$1\r\n2\r\n");
            assertThat(c.call("MULTI")).isEqualTo("+OK\r\n");
            assertThat(c.call("EXEC")).isEqualTo("*0\r\n");
        }
    }

    /** EXEC keeps each GET's reply: a GET inside EXEC never answers with a view of the entry a later SET rewrites. */
    @Test
    void exec_getsBeforeAndAfterAnInPlaceOverwrite_keepTheirOwnValues() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.call("SET", "tx-inplace", "aaaa");
            c.call("MULTI");
            c.call("GET", "tx-inplace");
            c.call("SET", "tx-inplace", "bbbb"); // same length: rewritten in place
            c.call("GET", "tx-inplace");
            assertThat(c.call("EXEC")).isEqualTo("*3\r\n$4\r\naaaa\r\n+OK\r\n$4\r\nbbbb\r\n");
            c.call("SET", "tx-inplace", "5000");
            c.call("MULTI");
            c.call("INCR", "tx-inplace");
            c.call("INCR", "tx-inplace");
            assertThat(c.call("EXEC")).isEqualTo("*2\r\n:5001\r\n:5002\r\n");
        }
    }

    @Test
    void errorsWhileQueueing_abortExec_andRuntimeErrorsDoNotRollBack() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.call("DEL", "tx2", "tx2b");
            c.call("MULTI");
            c.call("SET", "tx2", "v");
            assertThat(c.call("NOSUCHCMD")).startsWith("-ERR unknown command 'NOSUCHCMD'");
            assertThat(c.call("GET")).isEqualTo("-ERR wrong number of arguments for 'get' command\r\n");
            assertThat(c.call("EXEC")).isEqualTo("-EXECABORT Transaction discarded because of previous errors.\r\n");
            assertThat(c.call("EXISTS", "tx2")).isEqualTo(":0\r\n");

            c.call("MULTI");
            c.call("SET", "tx2", "v");
            c.call("LPUSH", "tx2", "x");
            c.call("SET", "tx2b", "w");
            assertThat(c.call("EXEC")).isEqualTo("*3\r\n+OK\r\n"
                    + "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n+OK\r\n");
            assertThat(c.call("MGET", "tx2", "tx2b")).isEqualTo("*2\r\n$1\r\nv\r\n$1\r\nw\r\n");
        }
    }

    @Test
    void misuse_getsRedisErrors() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            assertThat(c.call("EXEC")).isEqualTo("-ERR EXEC without MULTI\r\n");
            assertThat(c.call("DISCARD")).isEqualTo("-ERR DISCARD without MULTI\r\n");
            c.call("MULTI");
            assertThat(c.call("MULTI")).isEqualTo("-ERR MULTI calls can not be nested\r\n");
            assertThat(c.call("WATCH", "x")).isEqualTo("-ERR WATCH inside MULTI is not allowed\r\n");
            c.call("SET", "tx3", "queued-then-discarded");
            assertThat(c.call("DISCARD")).isEqualTo("+OK\r\n");
            assertThat(c.call("EXISTS", "tx3")).isEqualTo(":0\r\n");
            // Neither nested MULTI nor WATCH inside MULTI aborts the transaction, as in Redis.
            c.call("MULTI");
            c.call("MULTI");
            c.call("PING");
            assertThat(c.call("EXEC")).isEqualTo("*1\r\n+PONG\r\n");
        }
    }

    @Test
    void watch_abortsExec_whenAnotherClientChangesTheKey_onAnyShard() {
        String[] k = apart("tx4");
        for (int proto : new int[] {2, 3}) {
            try (Jedis a = jedis(proto); Jedis b = jedis(proto)) {
                a.del(k[0], k[1]);
                a.set(k[1], "0");
                a.watch(k[0], k[1]);
                b.incr(k[1]);
                Transaction t = a.multi();
                t.set(k[0], "mine");
                assertThat(t.exec()).isNull();
                assertThat(a.exists(k[0])).isFalse();

                a.watch(k[0], k[1]);
                Transaction t2 = a.multi();
                t2.set(k[0], "mine");
                assertThat(t2.exec()).containsExactly("OK");

                a.watch(k[1]);
                a.unwatch();
                b.incr(k[1]);
                Transaction t3 = a.multi();
                t3.incr(k[1]);
                assertThat(t3.exec()).containsExactly(3L);
            }
        }
    }

    @Test
    void watch_expiryAndFlushdb_countAsChanges_butAMissingKeyFlushedStaysUnchanged() throws Exception {
        try (Jedis a = jedis(2)) {
            a.set("tx5", "v", redis.clients.jedis.params.SetParams.setParams().px(50));
            a.watch("tx5");
            Thread.sleep(120);
            Transaction t = a.multi();
            t.get("tx5:any");
            assertThat(t.exec()).isNull();

            a.set("tx5", "v");
            a.watch("tx5");
            try (Jedis b = jedis(2)) {
                b.flushDB();
            }
            Transaction t2 = a.multi();
            t2.get("tx5:any");
            assertThat(t2.exec()).isNull();

            a.watch("tx5:missing");
            try (Jedis b = jedis(2)) {
                b.flushDB();
            }
            Transaction t3 = a.multi();
            t3.get("tx5:any");
            assertThat(t3.exec()).containsExactly((Object) null);
        }
    }

    @Test
    void execAborted_isNullArray_inResp2_andNull_inResp3() throws Exception {
        try (RawClient c = new RawClient(server.port()); Jedis other = jedis(2)) {
            c.call("WATCH", "tx6");
            other.set("tx6", "x");
            c.call("MULTI");
            c.call("PING");
            assertThat(c.call("EXEC")).isEqualTo("*-1\r\n");
            assertThat(c.call("HELLO", "3")).startsWith("%");
            c.call("WATCH", "tx6");
            other.set("tx6", "y");
            c.call("MULTI");
            c.call("PING");
            assertThat(c.call("EXEC")).isEqualTo("_\r\n");
        }
    }

    @Test
    void lettuce_multiExec_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                RedisCommands<String, String> cmd = conn.sync();
                cmd.del("tx7");
                cmd.multi();
                cmd.set("tx7", "1");
                cmd.incrby("tx7", 5);
                cmd.get("tx7");
                TransactionResult r = cmd.exec();
                assertThat(r.wasDiscarded()).isFalse();
                assertThat(r.<Object>get(1)).isEqualTo(6L);
                assertThat(r.<Object>get(2)).isEqualTo("6");
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void blockingCommandsInsideExec_answerAtOnce_andPushesWakeWaitersOnlyAfterExec() throws Exception {
        String q = "tx8:queue";
        try (Jedis a = jedis(2); Jedis admin = jedis(2)) {
            a.del(q);
            Transaction t = a.multi();
            t.blpop(0, q);
            assertThat(t.exec()).containsExactly((Object) null);

            CompletableFuture<List<String>> waiter = CompletableFuture.supplyAsync(() -> {
                try (Jedis w = jedis(2)) {
                    return w.blpop(0, q);
                }
            });
            awaitBlocked(admin, 1);
            // Pushed and popped within one transaction: the waiter must not see the element.
            Transaction t2 = a.multi();
            t2.rpush(q, "inside");
            t2.lpop(q);
            assertThat(t2.exec()).containsExactly(1L, "inside");
            Thread.sleep(100);
            assertThat(waiter).isNotDone();
            a.rpush(q, "after");
            assertThat(waiter.get(10, TimeUnit.SECONDS)).containsExactly(q, "after");
        }
    }

    private static void awaitBlocked(Jedis j, long n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!j.info("clients").contains("blocked_clients:" + n + "\r\n")) {
            if (System.nanoTime() > deadline) throw new AssertionError("blocked_clients never reached " + n);
            Thread.sleep(5);
        }
    }

    @Test
    void transfersBetweenCountersOnDifferentShards_neverChangeTheSumSeenByReaders() throws Exception {
        String[] k = apart("tx9");
        try (Jedis init = jedis(2)) {
            init.mset(k[0], "1000", k[1], "1000");
        }
        long until = System.currentTimeMillis() + 1500;
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<String>> all = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            int dir = w;
            all.add(pool.submit(() -> {
                try (Jedis j = jedis(2)) {
                    while (System.currentTimeMillis() < until) {
                        Transaction t = j.multi();
                        t.decrBy(k[dir], 3);
                        t.incrBy(k[1 - dir], 3);
                        t.exec();
                    }
                }
                return null;
            }));
        }
        for (int r = 0; r < 2; r++) {
            boolean viaMulti = r == 1;
            all.add(pool.submit(() -> {
                long reads = 0;
                try (Jedis j = jedis(2)) {
                    while (System.currentTimeMillis() < until) {
                        List<String> v;
                        if (viaMulti) {
                            Transaction t = j.multi();
                            t.get(k[0]);
                            t.get(k[1]);
                            v = t.exec().stream().map(String::valueOf).toList();
                        } else {
                            v = j.mget(k[0], k[1]);
                        }
                        long sum = Long.parseLong(v.get(0)) + Long.parseLong(v.get(1));
                        if (sum != 2000) return "saw sum " + sum + " in " + v;
                        reads++;
                    }
                }
                return reads > 10 ? null : "too few reads " + reads;
            }));
        }
        for (Future<String> f : all) assertThat(f.get(60, TimeUnit.SECONDS)).isNull();
        pool.shutdown();
    }
}
