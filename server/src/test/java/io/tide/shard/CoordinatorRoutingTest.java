package io.tide.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import io.tide.util.Crc16;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Transaction;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/**
 * With two shards, through real sockets: which requests pass through the coordinator (INFO tide's
 * tide_coordinator_operations counts them) and which run on the shards alone. Multi-key commands and transactions
 * whose keys all live on one shard, and the gathering reads DBSIZE, KEYS and SCAN, must leave the counter where it
 * was; a cross-shard MSET must move it (the counter does count).
 */
class CoordinatorRoutingTest {

    private static final int SHARDS = 2;
    private static Server server;

    @BeforeAll
    static void start() {
        server = TestServers.start(SHARDS);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void flush() {
        try (Jedis j = jedis()) {
            j.flushAll();
            j.configResetStat(); // zeroes the counter
        }
    }

    private static Jedis jedis() {
        return TestServers.jedis(server.port(), 2);
    }

    static int shardOf(String key) {
        return Crc16.slot(key.getBytes()) * SHARDS / 16384;
    }

    /** A key owned by {@code shard}, named from {@code prefix}. */
    static String keyOn(int shard, String prefix) {
        for (int i = 0; ; i++) {
            String k = prefix + i;
            if (shardOf(k) == shard) return k;
        }
    }

    /** The counter (INFO, which reads it, is gathered: it adds nothing). */
    private static long coordinatorOps(Jedis j) {
        return TestServers.coordinatorOperations(j);
    }

    @Test
    void multiKeyCommands_andExec_onOneShard_runWithoutTheCoordinator() {
        try (Jedis j = jedis()) {
            long before = coordinatorOps(j);
            j.mset("{t}a", "1", "{t}b", "2", "{t}c", "3");
            assertThat(j.mget("{t}a", "{t}b", "{t}c")).containsExactly("1", "2", "3");
            assertThat(j.exists("{t}a", "{t}b")).isEqualTo(2);
            assertThat(j.del("{t}a", "{t}b")).isEqualTo(2);
            j.watch("{t}c");
            Transaction tx = j.multi();
            tx.incr("{t}c");
            tx.set("{t}d", "x");
            tx.mget("{t}c", "{t}d");
            assertThat(tx.exec()).hasSize(3);
            assertThat(coordinatorOps(j)).as("single-shard MSET/MGET/EXISTS/DEL/EXEC").isEqualTo(before);

            String a = keyOn(0, "x");
            String b = keyOn(1, "x");
            j.mset(a, "1", b, "2");
            assertThat(coordinatorOps(j)).as("a cross-shard MSET is coordinated").isEqualTo(before + 1);
        }
    }

    @Test
    void gatheringReads_doNotParkTheShards_andAnswerAsBefore() {
        try (Jedis j = jedis()) {
            Set<String> keys = new HashSet<>();
            for (int i = 0; i < 300; i++) keys.add("k" + i);
            for (String k : keys) j.set(k, "v");
            assertThat(keys.stream().map(CoordinatorRoutingTest::shardOf).distinct().count()).isEqualTo(2);
            long before = coordinatorOps(j);

            assertThat(new HashSet<>(j.keys("k*"))).isEqualTo(keys);
            assertThat(j.keys("k17")).containsExactly("k17");
            assertThat(j.keys("nosuch")).isEmpty();
            Set<String> scanned = new HashSet<>();
            String cursor = ScanParams.SCAN_POINTER_START;
            int calls = 0;
            do {
                ScanResult<String> r = j.scan(cursor, new ScanParams().count(25).match("k*"));
                scanned.addAll(r.getResult());
                cursor = r.getCursor();
                calls++;
            } while (!cursor.equals("0"));
            assertThat(scanned).isEqualTo(keys);
            assertThat(calls).isGreaterThan(2);
            assertThat(j.dbSize()).isEqualTo(300);
            for (int i = 0; i < 20; i++) assertThat(keys).contains(j.randomKey());
            assertThat(j.info("keyspace")).contains("db0:keys=300,expires=0,avg_ttl=0");
            assertThat(j.info("all")).contains("cmdstat_set:calls=300,").contains("cmdstat_keys:calls=3,");
            assertThat(coordinatorOps(j)).as("DBSIZE, KEYS, SCAN, RANDOMKEY and INFO are gathered").isEqualTo(before);
        }
    }

    /**
     * RANDOMKEY's walk starts on a random shard and goes round: keys on one shard only are found from either start;
     * expired keys are never the answer; an empty keyspace answers nil.
     */
    @Test
    void randomKey_findsKeysOnAnyShard_neverAnExpiredOne_andIsNilWhenEmpty() throws Exception {
        try (Jedis j = jedis()) {
            assertThat(j.randomKey()).isNull();
            for (int shard = 0; shard < SHARDS; shard++) {
                j.flushAll();
                String only = keyOn(shard, "only");
                j.set(only, "v");
                for (int i = 0; i < 20; i++) assertThat(j.randomKey()).as("keys on shard " + shard).isEqualTo(only);
            }
            j.flushAll();
            for (int i = 0; i < 50; i++) j.psetex(keyOn(i % SHARDS, "gone" + i + ":"), 1, "v");
            String live = keyOn(1, "live");
            j.set(live, "v");
            Thread.sleep(20);
            for (int i = 0; i < 10; i++) assertThat(j.randomKey()).isEqualTo(live);
            j.del(live);
            assertThat(j.randomKey()).isNull();
        }
    }

    @Test
    void clientList_isGathered_andListsTheClientsOfEveryShard() {
        List<Jedis> others = new ArrayList<>();
        try (Jedis j = jedis()) {
            for (int i = 0; i < 4; i++) {
                Jedis o = jedis();
                o.clientSetname("other" + i);
                others.add(o);
            }
            long before = coordinatorOps(j);
            String list = j.clientList();
            List<String> lines = list.lines().toList();
            assertThat(lines).hasSize(5);
            List<Long> ids = lines.stream().map(l -> Long.parseLong(l.replaceAll("^id=(\\d+) .*", "$1"))).toList();
            assertThat(ids).isSorted();
            for (int i = 0; i < 4; i++) assertThat(list).contains(" name=other" + i + " ");
            assertThat(list).contains("cmd=client|list");
            long second = ids.get(3);
            long first = ids.get(1);
            String byId = j.clientList(second, first);
            assertThat(byId.lines().toList()).hasSize(2);
            assertThat(byId).startsWith("id=" + second + " ");
            assertThat(j.clientList(redis.clients.jedis.args.ClientType.NORMAL).lines().count()).isEqualTo(5);
            assertThat(coordinatorOps(j)).as("CLIENT LIST is gathered").isEqualTo(before);
        } finally {
            others.forEach(Jedis::close);
        }
    }

    @Test
    void script_withDeclaredKeysOnOneShard_parksMoreShardsWhenItReachesUndeclaredKeys() {
        String mine = keyOn(0, "s");
        String elsewhere = keyOn(1, "u");
        try (Jedis j = jedis()) {
            j.set(elsewhere, "old");
            Object r = j.eval("redis.call('set', KEYS[1], 'a'); local was = redis.call('get', ARGV[1]); "
                    + "redis.call('set', ARGV[1], 'b'); return {was, redis.call('dbsize')}", 1, mine, elsewhere);
            @SuppressWarnings("unchecked")
            List<Object> list = (List<Object>) r;
            assertThat(list.get(0)).isEqualTo("old");
            assertThat(list.get(1)).isEqualTo(2L);
            assertThat(j.get(mine)).isEqualTo("a");
            assertThat(j.get(elsewhere)).isEqualTo("b");
        }
    }

    @Test
    void script_withDeclaredKeysOnOneShard_leavesTheOtherShardServing() throws Exception {
        String mine = keyOn(0, "slow");
        String elsewhere = keyOn(1, "free");
        try (Jedis j = jedis()) {
            j.set(elsewhere, "here");
        }
        // Two connections opened one after the other land on different shard loops (round robin): the one whose
        // home is shard 1 reads a shard-1 key without going near shard 0.
        Jedis b1 = jedis();
        Jedis b2 = jedis();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(3);
        try (Jedis a = jedis()) {
            String spin = "local t = redis.call('time'); local stop = t[1] * 1000000 + t[2] + 3000000; "
                    + "redis.call('set', KEYS[1], 'x'); "
                    + "repeat t = redis.call('time') until t[1] * 1000000 + t[2] >= stop; return 1";
            var script = pool.submit(() -> a.eval(spin, 1, mine));
            sleep(300);
            var g1 = pool.submit(() -> b1.get(elsewhere));
            var g2 = pool.submit(() -> b2.get(elsewhere));
            boolean answeredDuringScript = false;
            long deadline = System.nanoTime() + 2_000_000_000L;
            while (System.nanoTime() < deadline && !script.isDone()) {
                if ((g1.isDone() || g2.isDone()) && !script.isDone()) {
                    answeredDuringScript = true;
                    break;
                }
                sleep(5);
            }
            assertThat(answeredDuringScript).as("a GET on shard 1 answered while the script ran on shard 0").isTrue();
            assertThat(script.get()).isEqualTo(1L);
            assertThat(g1.get()).isEqualTo("here");
            assertThat(g2.get()).isEqualTo("here");
        } finally {
            pool.shutdownNow();
            b1.close();
            b2.close();
        }
    }

    @Test
    void gatheringReads_seeTheClientsOwnEarlierPipelinedWrites() {
        try (Jedis j = jedis()) {
            List<String> written = new ArrayList<>();
            var p = j.pipelined();
            for (int i = 0; i < 50; i++) {
                String k = "p" + i;
                written.add(k);
                p.set(k, "v");
                p.dbSize();
            }
            List<Object> replies = p.syncAndReturnAll();
            for (int i = 0; i < 50; i++) assertThat(replies.get(2 * i + 1)).isEqualTo((long) i + 1);
            assertThat(new HashSet<>(j.keys("p*"))).containsExactlyInAnyOrderElementsOf(written);
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
