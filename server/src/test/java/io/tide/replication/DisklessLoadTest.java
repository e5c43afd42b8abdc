package io.tide.replication;

import static io.tide.replication.RedisReplicaOfTideTest.assertSameData;
import static io.tide.replication.RedisReplicaOfTideTest.await;
import static io.tide.replication.RedisReplicaOfTideTest.awaitLinkUp;
import static io.tide.replication.RedisReplicaOfTideTest.field;
import static io.tide.replication.RedisReplicaOfTideTest.mixedWrites;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * repl-diskless-load on a Tide replica: each mode against a Tide and a redis-server primary, and a full sync cut
 * mid-transfer (a primary that sends part of a real redis-server RDB and drops the socket).
 */
@Timeout(180)
class DisklessLoadTest {

    @Test
    void config_hasRedisValuesDefaultAndError() throws Exception {
        String redisError;
        try (RealRedis redis = RealRedis.start(); Jedis rj = TestServers.jedis(redis.port(), 2)) {
            assertEquals("disabled", rj.configGet("repl-diskless-load").get("repl-diskless-load"));
            redisError = assertThrows(JedisDataException.class,
                    () -> rj.configSet("repl-diskless-load", "sometimes")).getMessage();
        }
        try (Server s = TestServers.start(1); Jedis j = TestServers.jedis(s.port(), 2)) {
            assertEquals("disabled", j.configGet("repl-diskless-load").get("repl-diskless-load"));
            for (String v : List.of("on-empty-db", "swapdb", "disabled")) {
                assertEquals("OK", j.configSet("repl-diskless-load", v));
                assertEquals(v, j.configGet("repl-diskless-load").get("repl-diskless-load"));
            }
            assertEquals(redisError, assertThrows(JedisDataException.class,
                    () -> j.configSet("repl-diskless-load", "sometimes")).getMessage());
        }
    }

    /**
     * Each mode loads the primary's dataset in place of the old one; only disabled goes through a file (kept as
     * dump.rdb when save is on, as Redis keeps it): on-empty-db with old data falls back to it.
     */
    @ParameterizedTest(name = "{0}, primary={1}, old data={2}")
    @CsvSource({"disabled,tide,yes", "on-empty-db,tide,no", "on-empty-db,tide,yes", "swapdb,tide,yes",
            "disabled,redis,yes", "on-empty-db,redis,no", "swapdb,redis,yes", "swapdb,redis-disk,yes"})
    void fullSync_loadsThePrimarysDataset(String mode, String primaryKind, String oldData) throws Exception {
        Path dir = Files.createTempDirectory("tide-diskless-load");
        RealRedis redis = null;
        Server tidePrimary = null;
        try {
            int port;
            if (primaryKind.startsWith("redis")) {
                redis = RealRedis.startWith("--repl-diskless-sync", primaryKind.equals("redis") ? "yes" : "no",
                        "--repl-diskless-sync-delay", "0");
                port = redis.port();
            } else {
                tidePrimary = TestServers.start(2, "--repl-diskless-sync-delay", "0");
                port = tidePrimary.port();
            }
            try (Jedis p = TestServers.jedis(port, 2);
                 Server replica = TestServers.start(2, "--dir", dir.toString(), "--save", "3600 1",
                         "--repl-diskless-load", mode, "--maxmemory-policy", "allkeys-lfu");
                 Jedis r = TestServers.jedis(replica.port(), 2)) {
                for (int round = 0; round < 3; round++) mixedWrites(p, round);
                p.set("freq:probe", "x"); // in the image; never read on the replica before OBJECT FREQ below
                if (oldData.equals("yes")) for (int i = 0; i < 100; i++) r.set("old:" + i, "v");
                assertEquals("OK", r.replicaof("127.0.0.1", port));
                awaitLinkUp(r);
                assertEquals(null, r.get("old:1"));
                // Loaded under the replica's LFU policy, whichever dataset it went to: Redis's LFU_INIT_VAL.
                assertEquals(5L, r.objectFreq("freq:probe"));
                RedisReplicaOfTideTest.expireShortKeys(p); // expired on the primary: the DELs are streamed
                await("the replica to apply the stream", 20_000, () -> {
                    String off = field(p, "replication", "master_repl_offset");
                    return off != null && off.equals(field(r, "replication", "master_repl_offset"));
                });
                assertSameData(p, r);
                boolean viaFile = mode.equals("disabled") || (mode.equals("on-empty-db") && oldData.equals("yes"));
                assertEquals(viaFile, Files.exists(dir.resolve("dump.rdb")), "dump.rdb after a " + mode + " sync");
                p.set("after", "sync");
                await("the stream after the sync", 10_000, () -> "sync".equals(r.get("after")));
            }
        } finally {
            if (tidePrimary != null) tidePrimary.close();
            if (redis != null) redis.close();
        }
    }

    /**
     * swapdb: while the image arrives the old dataset serves reads (INFO async_loading:1); the primary drops the
     * socket mid-transfer and the old dataset is still there; the next, complete sync swaps the new one in.
     */
    @Test
    void swapdb_keepsTheOldDataset_whenTheSyncIsCutMidTransfer() throws Exception {
        byte[] rdb = redisRdb();
        try (FakePrimary fake = new FakePrimary(rdb);
             Server replica = TestServers.start(2, "--repl-diskless-load", "swapdb");
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            for (int i = 0; i < 100; i++) r.set("old:" + i, "v" + i);
            assertEquals("OK", r.replicaof("127.0.0.1", fake.port()));
            assertEquals(true, fake.halfSent.await(20, TimeUnit.SECONDS));
            await("async_loading:1", 10_000, () -> "1".equals(field(r, "persistence", "async_loading")));
            assertEquals("v7", r.get("old:7")); // served while the new dataset loads
            assertEquals(100L, r.dbSize());
            fake.cut.countDown(); // the socket drops mid-transfer
            await("the failed sync", 10_000, () -> "0".equals(field(r, "persistence", "async_loading")));
            assertEquals(100L, r.dbSize());
            assertEquals("v7", r.get("old:7"));
            assertEquals(null, r.get("new:1"));
            fake.allowRetry.countDown();
            // The replica reconnects; this time the whole image arrives and replaces the old dataset.
            await("the complete sync", 20_000, () -> "up".equals(field(r, "replication", "master_link_status")));
            assertEquals(null, r.get("old:7"));
            assertEquals("1", r.get("new:1"));
            assertEquals(10_000L, r.dbSize());
        }
    }

    /** on-empty-db from the socket into an empty dataset: a cut sync leaves it empty (no half dataset), as Redis. */
    @Test
    void onEmptyDb_cutMidTransfer_leavesNoHalfDataset() throws Exception {
        byte[] rdb = redisRdb();
        try (FakePrimary fake = new FakePrimary(rdb);
             Server replica = TestServers.start(2, "--repl-diskless-load", "on-empty-db");
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            assertEquals("OK", r.replicaof("127.0.0.1", fake.port()));
            assertEquals(true, fake.halfSent.await(20, TimeUnit.SECONDS));
            await("the image loading", 10_000, () -> "1".equals(field(r, "persistence", "loading")));
            fake.cut.countDown();
            await("the failed sync", 10_000, () -> "0".equals(field(r, "persistence", "loading")));
            assertEquals(0L, r.dbSize()); // what half the image loaded is gone
            fake.allowRetry.countDown();
            await("the complete sync", 20_000, () -> "up".equals(field(r, "replication", "master_link_status")));
            assertEquals(10_000L, r.dbSize());
            assertEquals(2, fake.connections);
        }
    }

    /** A real redis-server 7.0 RDB of 10000 keys new:0..9999 = "1", larger than the socket buffers. */
    private static byte[] redisRdb() throws Exception {
        Path d = Files.createTempDirectory("tide-diskless-rdb");
        try (RealRedis redis = RealRedis.startWith("--dir", d.toString(), "--rdbcompression", "no");
             Jedis j = TestServers.jedis(redis.port(), 2)) {
            for (int i = 0; i < 10_000; i++) j.set("new:" + i, i == 1 ? "1" : "x".repeat(300));
            j.save();
            return Files.readAllBytes(d.resolve("dump.rdb"));
        }
    }

    /**
     * A primary on a socket of its own: answers the handshake, sends +FULLRESYNC and an EOF-marked image. The first
     * connection gets half the image, then (at {@link #cut}) a closed socket; later ones the whole image and mark.
     */
    private static final class FakePrimary implements AutoCloseable {
        final CountDownLatch halfSent = new CountDownLatch(1);
        final CountDownLatch cut = new CountDownLatch(1);
        /** The second connection is answered only once this opens, so a test sees the state the cut left. */
        final CountDownLatch allowRetry = new CountDownLatch(1);
        volatile int connections;
        private final ServerSocket server = new ServerSocket(0);
        private final byte[] rdb;
        private final Thread thread;
        private final List<Socket> sockets = new ArrayList<>();

        FakePrimary(byte[] rdb) throws IOException {
            this.rdb = rdb;
            thread = Thread.ofPlatform().daemon().start(this::serve);
        }

        int port() {
            return server.getLocalPort();
        }

        private void serve() {
            while (!server.isClosed()) {
                try (Socket s = server.accept()) {
                    synchronized (sockets) {
                        sockets.add(s);
                    }
                    int n = ++connections;
                    if (n > 1) allowRetry.await();
                    InputStream in = new BufferedInputStream(s.getInputStream());
                    OutputStream out = s.getOutputStream();
                    while (true) {
                        List<String> cmd = readCommand(in);
                        String name = cmd.get(0).toLowerCase();
                        if (name.equals("ping")) out.write("+PONG\r\n".getBytes(StandardCharsets.US_ASCII));
                        else if (name.equals("psync")) break;
                        else out.write("+OK\r\n".getBytes(StandardCharsets.US_ASCII));
                        out.flush();
                    }
                    String mark = "m".repeat(40);
                    out.write(("+FULLRESYNC " + "a".repeat(40) + " 0\r\n$EOF:" + mark + "\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
                    if (n == 1) {
                        out.write(rdb, 0, rdb.length / 2);
                        out.flush();
                        halfSent.countDown();
                        cut.await();
                        continue; // closes the socket mid-transfer
                    }
                    out.write(rdb);
                    out.write(mark.getBytes(StandardCharsets.US_ASCII));
                    out.flush();
                    while (readCommand(in) != null) { } // ACKs, until the replica goes
                } catch (IOException | InterruptedException e) {
                    // the replica left, or close()
                }
            }
        }

        private static List<String> readCommand(InputStream in) throws IOException {
            String head = line(in);
            if (!head.startsWith("*")) throw new IOException("not an array: " + head);
            int n = Integer.parseInt(head.substring(1));
            List<String> argv = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                int len = Integer.parseInt(line(in).substring(1));
                byte[] b = in.readNBytes(len + 2);
                argv.add(new String(Arrays.copyOf(b, len), StandardCharsets.UTF_8));
            }
            return argv;
        }

        private static String line(InputStream in) throws IOException {
            StringBuilder sb = new StringBuilder();
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0) throw new IOException("closed");
                if (c != '\r') sb.append((char) c);
            }
            return sb.toString();
        }

        @Override
        public void close() throws IOException {
            cut.countDown();
            allowRetry.countDown();
            server.close();
            synchronized (sockets) {
                for (Socket s : sockets) s.close();
            }
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
