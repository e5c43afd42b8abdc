package io.tide.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import io.tide.util.Crc16;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** With four shards, multi-key commands over keys on different shards are atomic for every observer. */
class CrossShardAtomicityTest {

    private static final int SHARDS = 4;
    private static Server server;

    @BeforeAll
    static void start() {
        server = TestServers.start(SHARDS);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    static int shardOf(String key) {
        return Crc16.slot(key.getBytes()) * SHARDS / 16384;
    }

    /** Two key names, with the given prefix, owned by different shards. */
    static String[] pairOnDifferentShards(String prefix) {
        String a = prefix + ":a";
        for (int i = 0; ; i++) {
            String b = prefix + ":b" + i;
            if (shardOf(b) != shardOf(a)) return new String[] {a, b};
        }
    }

    @Test
    void msetPairs_areNeverSeenHalfWritten_byConcurrentMget() throws Exception {
        List<String[]> pairs = new ArrayList<>();
        for (int i = 0; i < 8; i++) pairs.add(pairOnDifferentShards("pair" + i));
        for (String[] p : pairs) assertThat(shardOf(p[0])).isNotEqualTo(shardOf(p[1]));
        try (Jedis init = TestServers.jedis(server.port(), 2)) {
            for (String[] p : pairs) init.mset(p[0], "0", p[1], "0");
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong reads = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<String>> results = new ArrayList<>();
        for (int w = 0; w < 2; w++) {
            int writer = w;
            results.add(pool.submit(() -> {
                try (Jedis j = TestServers.jedis(server.port(), 2)) {
                    for (int n = 0; n < 100_000 && !stop.get(); n++) {
                        String[] p = pairs.get(n % pairs.size());
                        String v = writer + "-" + n;
                        j.mset(p[0], v, p[1], v);
                        writes.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (int r = 0; r < 2; r++) {
            int protocol = r % 2 == 0 ? 2 : 3;
            results.add(pool.submit(() -> {
                try (Jedis j = TestServers.jedis(server.port(), protocol)) {
                    for (int n = 0; n < 100_000 && !stop.get(); n++) {
                        String[] p = pairs.get(n % pairs.size());
                        List<String> got = j.mget(p[0], p[1]);
                        reads.incrementAndGet();
                        if (!got.get(0).equals(got.get(1))) return "torn read " + got + " of " + List.of(p);
                    }
                }
                return null;
            }));
        }
        Thread.sleep(2500);
        stop.set(true);
        for (Future<String> f : results) assertThat(f.get(30, TimeUnit.SECONDS)).isNull();
        pool.shutdown();
        assertThat(reads.get()).isGreaterThan(100);
        assertThat(writes.get()).isGreaterThan(100);
    }

    @Test
    void renameAcrossShards_isNeverSeenAsBothOrNeither() throws Exception {
        String[] p = pairOnDifferentShards("ren");
        try (Jedis init = TestServers.jedis(server.port(), 2)) {
            init.del(p[0], p[1]);
            init.set(p[0], "v");
        }
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        Future<String> renamer = pool.submit(() -> {
            try (Jedis j = TestServers.jedis(server.port(), 2)) {
                for (int n = 0; n < 200_000 && !stop.get(); n++) {
                    if (n % 2 == 0) j.rename(p[0], p[1]);
                    else j.rename(p[1], p[0]);
                }
            }
            return null;
        });
        List<Future<String>> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            readers.add(pool.submit(() -> {
                long seen = 0;
                try (Jedis j = TestServers.jedis(server.port(), 2)) {
                    for (int n = 0; n < 200_000 && !stop.get(); n++) {
                        long count = j.exists(p[0], p[1]);
                        if (count != 1) return "EXISTS saw " + count + " keys";
                        List<String> both = j.mget(p[0], p[1]);
                        long present = both.stream().filter(x -> x != null).count();
                        if (present != 1) return "MGET saw " + both;
                        seen++;
                    }
                }
                return seen > 10 ? null : "too few reads: " + seen;
            }));
        }
        Thread.sleep(2500);
        stop.set(true);
        assertThat(renamer.get(30, TimeUnit.SECONDS)).isNull();
        for (Future<String> f : readers) assertThat(f.get(30, TimeUnit.SECONDS)).isNull();
        pool.shutdown();
    }

    /**
     * Runs {@code mover} against two readers for a while; each reader returns null or what it saw wrong.
     */
    private static void race(java.util.concurrent.Callable<String> mover, java.util.concurrent.Callable<String> reader)
            throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Future<String>> all = new ArrayList<>();
        all.add(pool.submit(mover));
        all.add(pool.submit(reader));
        all.add(pool.submit(reader));
        for (Future<String> f : all) assertThat(f.get(60, TimeUnit.SECONDS)).isNull();
        pool.shutdown();
    }

    @Test
    void smoveAcrossShards_keepsTheUnionWhole_forSunionAndSunionstore() throws Exception {
        String[] p = pairOnDifferentShards("smove");
        String dest = pairOnDifferentShards("smove-dest")[1];
        int members = 20;
        try (Jedis init = TestServers.jedis(server.port(), 2)) {
            init.del(p[0], p[1], dest);
            for (int i = 0; i < members; i++) init.sadd(p[0], "m" + i);
        }
        long until = System.currentTimeMillis() + 2000;
        race(() -> {
            try (Jedis j = TestServers.jedis(server.port(), 2)) {
                for (int n = 0; System.currentTimeMillis() < until; n++) {
                    String m = "m" + (n % members);
                    if (j.smove(p[0], p[1], m) == 0) j.smove(p[1], p[0], m);
                }
            }
            return null;
        }, () -> {
            try (Jedis j = TestServers.jedis(server.port(), 2)) {
                long seen = 0;
                while (System.currentTimeMillis() < until) {
                    int union = j.sunion(p[0], p[1]).size();
                    if (union != members) return "SUNION saw " + union + " members";
                    long stored = j.sunionstore(dest, p[0], p[1]);
                    if (stored != members) return "SUNIONSTORE stored " + stored;
                    seen++;
                }
                return seen > 10 ? null : "too few reads: " + seen;
            }
        });
    }

    @Test
    void lmoveAcrossShards_neverLosesOrDuplicatesTheElement() throws Exception {
        String[] p = pairOnDifferentShards("lmove");
        try (Jedis init = TestServers.jedis(server.port(), 2)) {
            init.del(p[0], p[1]);
            init.rpush(p[0], "token");
        }
        long until = System.currentTimeMillis() + 2000;
        race(() -> {
            try (Jedis j = TestServers.jedis(server.port(), 2)) {
                for (int n = 0; System.currentTimeMillis() < until; n++) {
                    String from = n % 2 == 0 ? p[0] : p[1];
                    String to = n % 2 == 0 ? p[1] : p[0];
                    j.lmove(from, to, redis.clients.jedis.args.ListDirection.LEFT,
                            redis.clients.jedis.args.ListDirection.RIGHT);
                }
            }
            return null;
        }, () -> {
            try (Jedis j = TestServers.jedis(server.port(), 2)) {
                long seen = 0;
                while (System.currentTimeMillis() < until) {
                    long count = j.exists(p[0], p[1]);
                    if (count != 1) return "EXISTS saw " + count + " lists";
                    seen++;
                }
                return seen > 10 ? null : "too few reads: " + seen;
            }
        });
    }

    @Test
    void zincrbyTransfers_areSeenWhole_byZunionstoreAcrossShards() throws Exception {
        String[] p = pairOnDifferentShards("zsum");
        String dest = pairOnDifferentShards("zsum-dest")[1];
        try (Jedis init = TestServers.jedis(server.port(), 2)) {
            init.del(p[0], p[1], dest);
            init.zadd(p[0], 100, "balance");
        }
        long until = System.currentTimeMillis() + 2000;
        race(() -> {
            try (Jedis j = TestServers.jedis(server.port(), 2)) {
                // ZUNIONSTORE over both keys into the second one moves the whole score there atomically;
                // then it goes back the same way. The sum a + b is 100 at every instant.
                for (int n = 0; System.currentTimeMillis() < until; n++) {
                    String from = n % 2 == 0 ? p[0] : p[1];
                    String to = n % 2 == 0 ? p[1] : p[0];
                    j.zunionstore(to, from, to);
                    j.del(from);
                }
            }
            return null;
        }, () -> {
            try (Jedis j = TestServers.jedis(server.port(), 2)) {
                long seen = 0;
                while (System.currentTimeMillis() < until) {
                    List<redis.clients.jedis.resps.Tuple> sum = j.zunionWithScores(
                            new redis.clients.jedis.params.ZParams(), p[0], p[1]);
                    if (sum.size() != 1 || sum.get(0).getScore() != 100) {
                        // Between ZUNIONSTORE and DEL both hold 100: that is a state of two commands, so
                        // only a sum of 100 or 200 can be seen, never 0 or a partial value.
                        if (sum.size() != 1 || (sum.get(0).getScore() != 200)) return "ZUNION saw " + sum;
                    }
                    seen++;
                }
                return seen > 10 ? null : "too few reads: " + seen;
            }
        });
    }
}
