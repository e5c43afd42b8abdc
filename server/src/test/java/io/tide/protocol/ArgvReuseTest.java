package io.tide.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;

/**
 * Argument arrays given back to the decoder after a command that kept none of them (decision 0028), through real
 * sockets: they are given back when nothing keeps them, kept where something does (the replication stream, a blocked client, a
 * value the store holds by reference), and data, the AOF, keyspace events and tracking invalidations stay exact while
 * several clients' pipelines reuse each other's arrays.
 */
class ArgvReuseTest {

    @TempDir
    Path dir;

    /** Keys of 14 bytes ({@code k:} and 12 digits), the benchmarks' shape. */
    private static String key(String prefix, int i) {
        return String.format(Locale.ROOT, "%s%012d", prefix, i);
    }

    private static byte[] pipeline(List<String[]> commands) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (String[] c : commands) b.writeBytes(RawClient.encode(c));
        return b.toByteArray();
    }

    /** Arrays of {@code length} bytes held by the pool of the thread of the shard owning {@code key}. */
    private static int held(Server server, String key, int length) throws Exception {
        return TestServers.onShard(server, key, () -> ArgvPool.current().held(length));
    }

    /** Arrays of {@code length} bytes held by the pool of shard {@code s}'s thread. */
    private static int heldOn(io.tide.shard.Shard s, int length) throws Exception {
        return s.loop().submit(() -> ArgvPool.current().held(length)).get();
    }

    /** The data of the last bulk string of a raw reply (one without line breaks in its data). */
    private static String lastBulk(String reply) {
        return reply.substring(reply.lastIndexOf("\r\n", reply.length() - 3) + 2, reply.length() - 2);
    }

    /** Waits up to {@code ms} for {@code cond}, failing with {@code what} if it never holds. */
    private static void await(String what, long ms, java.util.function.BooleanSupplier cond) throws Exception {
        long end = System.nanoTime() + ms * 1_000_000L;
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > end) throw new AssertionError("timed out waiting for " + what);
            Thread.sleep(20);
        }
    }

    /** Sends {@code commands} as one pipeline and returns the replies. */
    private static List<String> run(RawClient c, List<String[]> commands) throws Exception {
        c.send(pipeline(commands));
        List<String> replies = new ArrayList<>();
        for (int i = 0; i < commands.size(); i++) replies.add(c.readReply());
        return replies;
    }

    @Test
    void pipelinedReadsAndWrites_giveTheirArraysBack() throws Exception {
        try (Server server = TestServers.start(1); RawClient c = new RawClient(server.port())) {
            List<String[]> cmds = new ArrayList<>();
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"SET", key("k:", i), "v".repeat(33)});
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"GET", key("k:", i)});
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"INCR", key("n:", i)});
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"HGET", key("h:", i), "f".repeat(7)});
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"LPUSH", key("l:", i), "e".repeat(11)});
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"RPOP", key("l:", i)});
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"HSET", key("g:", i), "f".repeat(9), "v".repeat(10)});
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"ZADD", key("z:", i), "1", "m".repeat(13)});
            run(c, cmds);
            for (int length : new int[] {14, 33, 7, 11, 9, 10, 13}) {
                assertThat(held(server, "k:", length)).as("arrays of %d bytes", length).isPositive();
            }
        }
    }

    /**
     * A sorted set past its listpack limits and a list's large element keep what they were given; a hash past its
     * listpack copies its fields and values into its entries (decision 0033), so its arrays go back.
     */
    @Test
    void collectionsPastTheirListpacks_keepTheirArguments_butHashesCopy() throws Exception {
        try (Server server = TestServers.start(1); RawClient c = new RawClient(server.port())) {
            c.call("CONFIG", "SET", "hash-max-listpack-entries", "4", "zset-max-listpack-entries", "4");
            List<String> hset = new ArrayList<>(List.of("HSET", key("g:", 0)));
            List<String> zadd = new ArrayList<>(List.of("ZADD", key("z:", 0)));
            for (int i = 0; i < 6; i++) {
                hset.addAll(List.of(String.format(Locale.ROOT, "f%011d", i), "v"));
                zadd.addAll(List.of("1", String.format(Locale.ROOT, "m%011d", i)));
            }
            // Checked after each command: the next one's decoding takes what the pool holds.
            assertThat(c.call(hset.toArray(new String[0]))).isEqualTo(":6\r\n");
            assertThat(held(server, "k:", 12)).isEqualTo(6); // the six fields
            assertThat(c.call(zadd.toArray(new String[0]))).isEqualTo(":6\r\n"); // its six members take them
            assertThat(held(server, "k:", 12)).isZero();
            assertThat(c.call("OBJECT", "ENCODING", key("g:", 0))).isEqualTo("$9\r\nhashtable\r\n");
            assertThat(c.call("OBJECT", "ENCODING", key("z:", 0))).isNotEqualTo("$8\r\nlistpack\r\n");
            assertThat(c.call("RPUSH", key("l:", 0), "x".repeat(5000))).isEqualTo(":1\r\n");
            assertThat(held(server, "k:", 14)).isZero();
            assertThat(c.call("RPOP", key("l:", 0))).hasSize(5000 + 9);
            assertThat(held(server, "k:", 14)).isEqualTo(1); // the key of RPOP, which keeps nothing
        }
    }

    /**
     * With two shards, reads of each shard's keys: the client's home shard gets back the arrays of its inline reads and
     * of its hops' (the decoder took them there). Keys of 14 bytes on one shard, 15 on the other.
     */
    @Test
    void hops_giveTheirArraysBackHome() throws Exception {
        try (Server server = TestServers.start(2); RawClient c = new RawClient(server.port())) {
            sendReadsOfEachShard(server, c);
            int most = 0;
            for (io.tide.shard.Shard s : server.context().shards().all()) {
                most = Math.max(most, heldOn(s, 14) + heldOn(s, 15));
            }
            assertThat(most).as("arrays back on the home shard").isEqualTo(32);
        }
    }

    /** With the AOF on (which encodes each record at once), hops give their arrays back home as without it. */
    @Test
    void hopsWithTheAofOn_giveTheirArraysBackHome() throws Exception {
        try (Server server = TestServers.start(2, "--dir", dir.toString(), "--appendonly", "yes");
             RawClient c = new RawClient(server.port())) {
            sendReadsOfEachShard(server, c);
            int most = 0;
            for (io.tide.shard.Shard s : server.context().shards().all()) {
                most = Math.max(most, heldOn(s, 14) + heldOn(s, 15));
            }
            assertThat(most).as("arrays back on the home shard").isEqualTo(32);
        }
    }

    /** 16 SETs then 16 GETs of keys on shard 0 (14 bytes), then the same on shard 1 (15 bytes), one pipeline each. */
    private static void sendReadsOfEachShard(Server server, RawClient c) throws Exception {
        io.tide.shard.ShardSet shards = server.context().shards();
        String[] prefixes = {"p:", "pq:"};
        for (io.tide.shard.Shard s : shards.all()) {
            List<String> keys = new ArrayList<>();
            for (int i = 0; keys.size() < 16; i++) {
                String k = key(prefixes[s.id()], i);
                if (shards.shardOf(k.getBytes(java.nio.charset.StandardCharsets.UTF_8)) == s) keys.add(k);
            }
            List<String[]> sets = new ArrayList<>();
            for (String k : keys) sets.add(new String[] {"SET", k, "v"});
            run(c, sets);
            List<String[]> gets = new ArrayList<>();
            for (String k : keys) gets.add(new String[] {"GET", k});
            assertThat(run(c, gets)).containsOnly("$1\r\nv\r\n");
        }
    }

    @Test
    void withTheAofOn_writesAndReadsGiveTheirArraysBack() throws Exception {
        try (Server server = TestServers.start(1, "--dir", dir.toString(), "--appendonly", "yes");
             RawClient c = new RawClient(server.port())) {
            List<String[]> cmds = new ArrayList<>();
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"SET", key("k:", i), "v".repeat(33)});
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"GET", key("k:", i)});
            run(c, cmds);
            assertThat(held(server, "k:", 14)).isPositive();
            assertThat(held(server, "k:", 33)).isPositive();
        }
    }

    /**
     * With a replica attached the replication stream queues the effects themselves: nothing is given back, and the
     * replica gets every write exactly, while other clients' reads keep decoding.
     */
    @Test
    void withAReplicaAttached_nothingIsGivenBack_andTheStreamIsExact() throws Exception {
        Map<String, String> expected = new HashMap<>();
        try (Server primary = TestServers.start(1); Server replica = TestServers.start(1);
             Jedis r = TestServers.jedis(replica.port(), 2); RawClient c = new RawClient(primary.port())) {
            assertThat(r.replicaof("127.0.0.1", primary.port())).isEqualTo("OK");
            await("the replica's link", 20_000,
                    () -> r.info("replication").contains("master_link_status:up"));
            List<String> replies = writeRounds(primary.port(), 4, 20, "r", expected,
                    (t, round, i) -> String.format(Locale.ROOT, "repl-%d-%04d-%02d-%020d", t, round, i, i));
            assertThat(replies).containsOnly("+OK\r\n");
            List<String[]> cmds = new ArrayList<>();
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"SET", key("k:", i), "v".repeat(33)});
            run(c, cmds);
            assertThat(held(primary, "k:", 14)).isZero();
            assertThat(held(primary, "k:", 33)).isZero();
            for (int i = 0; i < 16; i++) expected.put(key("k:", i), "v".repeat(33));
            await("the replica to apply the stream", 20_000, () -> r.dbSize() == expected.size());
            for (Map.Entry<String, String> e : expected.entrySet()) {
                assertThat(r.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
            }
        }
    }

    @Test
    void whileAClientIsBlocked_writesKeepTheirArrays() throws Exception {
        try (Server server = TestServers.start(1); RawClient c = new RawClient(server.port());
             Jedis waiting = TestServers.jedis(server.port(), 2); Jedis observer = TestServers.jedis(server.port(), 2)) {
            Thread blocked = Thread.ofVirtual().start(() -> waiting.blpop(0, key("list", 0)));
            TestServers.awaitBlocked(observer, 1);
            List<String[]> cmds = new ArrayList<>();
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"SET", key("k:", i), "v".repeat(33)});
            run(c, cmds);
            assertThat(held(server, "k:", 14)).isZero();
            observer.lpush(key("list", 0), "x");
            blocked.join(10_000);
            run(c, cmds);
            assertThat(held(server, "k:", 14)).isPositive();
        }
    }

    @Test
    void aValueTheStoreKeepsAsItIs_keepsItsArguments() throws Exception {
        try (Server server = TestServers.start(1); RawClient c = new RawClient(server.port())) {
            List<String[]> cmds = new ArrayList<>();
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"SET", key("k:", i), "v".repeat(2000)});
            run(c, cmds);
            assertThat(held(server, "k:", 14)).isZero();
        }
    }

    /**
     * Several clients pipeline writes and reads of same-sized keys and values, so that each read decodes into arrays
     * another client's commands gave back; every reply and the final data are what they must be.
     */
    @Test
    void concurrentPipelines_seeExactlyTheirOwnData() throws Exception {
        try (Server server = TestServers.start(2)) {
            int clients = 4;
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            try {
                List<Future<Map<String, String>>> done = new ArrayList<>();
                for (int t = 0; t < clients; t++) {
                    int id = t;
                    done.add(pool.submit(() -> mixedLoad(server.port(), id)));
                }
                Map<String, String> expected = new HashMap<>();
                for (Future<Map<String, String>> f : done) expected.putAll(f.get());
                try (Jedis j = TestServers.jedis(server.port(), 2)) {
                    for (Map.Entry<String, String> e : expected.entrySet()) {
                        assertThat(j.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
                    }
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    /** Client {@code id}'s rounds of SET, GET, INCR and HGET on keys of its own; returns what its keys must hold. */
    private static Map<String, String> mixedLoad(int port, int id) throws Exception {
        Map<String, String> expect = new HashMap<>();
        Map<String, Long> counters = new HashMap<>();
        try (RawClient c = new RawClient(port)) {
            c.call("HSET", key("h" + id + ":", 0), "field00", "hashval" + id);
            for (int round = 0; round < 60; round++) {
                List<String[]> cmds = new ArrayList<>();
                List<String> want = new ArrayList<>();
                for (int i = 0; i < 8; i++) {
                    String k = key("s" + id + ":", (round * 8 + i) % 50);
                    String v = String.format(Locale.ROOT, "value-%d-%06d-%018d", id, round, i);
                    cmds.add(new String[] {"SET", k, v});
                    want.add("+OK\r\n");
                    cmds.add(new String[] {"GET", k});
                    want.add("$" + v.length() + "\r\n" + v + "\r\n");
                    expect.put(k, v);
                    String n = key("n" + id + ":", i);
                    long next = counters.merge(n, 1L, Long::sum);
                    cmds.add(new String[] {"INCR", n});
                    want.add(":" + next + "\r\n");
                    expect.put(n, Long.toString(next));
                    cmds.add(new String[] {"HGET", key("h" + id + ":", 0), "field00"});
                    String hv = "hashval" + id;
                    want.add("$" + hv.length() + "\r\n" + hv + "\r\n");
                }
                assertThat(run(c, cmds)).as("client %d round %d", id, round).isEqualTo(want);
            }
        }
        return expect;
    }

    /** The AOF encodes each write's arguments at once, so they may be reused: what it replays is what was written. */
    @Test
    void theAof_recordsEveryPipelinedWriteExactly() throws Exception {
        Map<String, String> expected = new HashMap<>();
        try (Server server = TestServers.start(1, "--dir", dir.toString(), "--appendonly", "yes",
                "--appendfsync", "no")) {
            List<String> replies = writeRounds(server.port(), 4, 30, "a", expected,
                    (t, round, i) -> String.format(Locale.ROOT, "aof-%d-%04d-%02d-%020d", t, round, i, i));
            assertThat(replies).containsOnly("+OK\r\n");
        }
        assertThat(Files.exists(dir.resolve("appendonlydir"))).isTrue();
        try (Server server = TestServers.start(1, "--dir", dir.toString(), "--appendonly", "yes");
             Jedis j = TestServers.jedis(server.port(), 2)) {
            assertThat(j.dbSize()).isEqualTo(expected.size());
            for (Map.Entry<String, String> e : expected.entrySet()) {
                assertThat(j.get(e.getKey())).as(e.getKey()).isEqualTo(e.getValue());
            }
        }
    }

    /** The value client {@code t} writes in round {@code round} as its {@code i}th SET. */
    private interface Value {
        String of(int t, int round, int i);
    }

    /**
     * {@code writers} clients each send {@code rounds} pipelines of 16 SETs of their own keys ({@code prefix}, the client,
     * ':' and a 12-digit number), all clients' pipelines of a round in flight together; records each key's value in
     * {@code written} and returns every reply.
     */
    private static List<String> writeRounds(int port, int writers, int rounds, String prefix, Map<String, String> written,
                                            Value value) throws Exception {
        List<String> replies = new ArrayList<>();
        List<RawClient> clients = new ArrayList<>();
        try {
            for (int t = 0; t < writers; t++) clients.add(new RawClient(port));
            for (int round = 0; round < rounds; round++) {
                for (int t = 0; t < writers; t++) {
                    List<String[]> cmds = new ArrayList<>();
                    for (int i = 0; i < 16; i++) {
                        String k = key(prefix + t + ":", round * 16 + i);
                        String v = value.of(t, round, i);
                        cmds.add(new String[] {"SET", k, v});
                        written.put(k, v);
                    }
                    clients.get(t).send(pipeline(cmds));
                }
                for (RawClient c : clients) for (int i = 0; i < 16; i++) replies.add(c.readReply());
            }
        } finally {
            for (RawClient c : clients) c.close();
        }
        return replies;
    }

    /** A PUBLISH nobody hears gives its arrays back; one a subscriber queued keeps them (the message holds them). */
    @Test
    void publish_givesBackOnlyWhenNobodyHeardIt() throws Exception {
        try (Server server = TestServers.start(1); RawClient c = new RawClient(server.port());
             RawClient sub = new RawClient(server.port())) {
            List<String[]> cmds = new ArrayList<>();
            for (int i = 0; i < 16; i++) cmds.add(new String[] {"PUBLISH", key("c:", i), "m".repeat(21)});
            assertThat(run(c, cmds)).containsOnly(":0\r\n");
            assertThat(held(server, "c:", 21)).isEqualTo(16);
            sub.call("SUBSCRIBE", key("c:", 0));
            List<String[]> heard = new ArrayList<>();
            for (int i = 0; i < 16; i++) heard.add(new String[] {"PUBLISH", key("c:", 0), "n".repeat(22)});
            assertThat(run(c, heard)).containsOnly(":1\r\n");
            assertThat(held(server, "c:", 22)).isZero();
            for (int i = 0; i < 16; i++) assertThat(sub.readReply()).endsWith("$22\r\n" + "n".repeat(22) + "\r\n");
        }
    }

    /** A keyevent message carries the key: a copy, since the writer's arrays go back to the decoder. */
    @Test
    void keyEvents_nameEveryKeyWritten() throws Exception {
        try (Server server = TestServers.start(2, "--notify-keyspace-events", "E$");
             RawClient sub = new RawClient(server.port())) {
            sub.call("SUBSCRIBE", "__keyevent@0__:set");
            Map<String, String> written = new HashMap<>();
            writeRounds(server.port(), 3, 20, "e", written, (t, round, i) -> "x".repeat(14));
            Set<String> heard = new HashSet<>();
            for (int i = 0; i < written.size(); i++) {
                String m = sub.readReply();
                heard.add(lastBulk(m));
            }
            assertThat(heard).isEqualTo(written.keySet());
        }
    }

    /** The tracking table remembers a copy of each key read, and invalidations carry copies. */
    @Test
    void tracking_invalidatesEveryKeyRead() throws Exception {
        try (Server server = TestServers.start(1); RawClient reader = new RawClient(server.port());
             RawClient writer = new RawClient(server.port())) {
            reader.call("HELLO", "3");
            reader.call("CLIENT", "TRACKING", "ON");
            Set<String> read = new HashSet<>();
            for (int round = 0; round < 10; round++) {
                List<String[]> cmds = new ArrayList<>();
                for (int i = 0; i < 16; i++) {
                    String k = key("t:", round * 16 + i);
                    cmds.add(new String[] {"GET", k});
                    read.add(k);
                }
                run(reader, cmds);
                // Reads of other keys of the same length, which decode into the arrays given back.
                List<String[]> other = new ArrayList<>();
                for (int i = 0; i < 16; i++) other.add(new String[] {"SET", key("u:", round * 16 + i), "y"});
                run(writer, other);
            }
            List<String[]> cmds = new ArrayList<>();
            for (String k : read) cmds.add(new String[] {"SET", k, "z"});
            run(writer, cmds);
            Set<String> invalidated = new HashSet<>();
            reader.timeout(10_000);
            while (invalidated.size() < read.size()) {
                String m = reader.readReply();
                assertThat(m).startsWith(">2\r\n$10\r\ninvalidate\r\n");
                invalidated.add(lastBulk(m));
            }
            assertThat(invalidated).isEqualTo(read);
        }
    }
}
