package io.tide.replication;

import static io.tide.replication.RedisReplicaOfTideTest.field;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/**
 * A replica that asks for a full sync while a disk-based one is writing its image joins it (Redis's "Waiting for end of
 * BGSAVE for SYNC"): one BGSAVE for both, the same +FULLRESYNC offset, the same file, and the writes made since that
 * offset streamed to it after the file. Raw sockets play the replicas, so the test sees the protocol itself.
 */
class DiskSyncJoinTest {

    /** A replica speaking just PSYNC, reading what the primary sends. */
    private static final class RawReplica implements AutoCloseable {
        private final Socket socket;
        private final DataInputStream in;
        private final OutputStream out;

        RawReplica(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(30_000);
            in = new DataInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }

        /** Sends PSYNC ? -1 and returns the +FULLRESYNC line (after any newlines a waiting replica is sent). */
        String psync() throws IOException {
            out.write("*3\r\n$5\r\nPSYNC\r\n$1\r\n?\r\n$2\r\n-1\r\n".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            String l;
            do {
                l = line();
            } while (l.isEmpty());
            return l;
        }

        /** The RDB's size, skipping the newlines a primary sends while it saves; then its bytes. */
        byte[] rdb() throws IOException {
            String head;
            do {
                head = line();
            } while (head.isEmpty());
            assertTrue(head.startsWith("$"), head);
            byte[] file = new byte[Integer.parseInt(head.substring(1))];
            in.readFully(file);
            return file;
        }

        /** Reads the stream until a command with {@code marker} as an argument (or the timeout). */
        void streamUntil(String marker) throws IOException {
            ByteArrayOutputStream seen = new ByteArrayOutputStream();
            byte[] want = marker.getBytes(StandardCharsets.US_ASCII);
            byte[] buf = new byte[4096];
            while (true) {
                int n = in.read(buf);
                if (n < 0) throw new IOException("the primary closed the link");
                seen.write(buf, 0, n);
                if (new String(seen.toByteArray(), StandardCharsets.US_ASCII).contains(marker)) return;
                assertTrue(seen.size() < 10 << 20, "no " + new String(want, StandardCharsets.US_ASCII));
            }
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            int c;
            while ((c = in.read()) != '\n') {
                if (c < 0) throw new IOException("the primary closed the link");
                if (c != '\r') sb.append((char) c);
            }
            return sb.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    @Test
    void secondReplica_joinsTheDiskBasedSyncInProgress() throws Exception {
        Path dir = Files.createTempDirectory("tide-sync-join");
        try (Server primary = TestServers.start(1, "--repl-diskless-sync", "no", "--dir", dir.toString());
             Jedis p = TestServers.jedis(primary.port(), 2)) {
            // Incompressible values: the image takes a while to write (LZF tries every one), so the second PSYNC,
            // sent a write after the first's answer, arrives while it is still being written.
            Random rnd = new Random(7);
            Pipeline pl = p.pipelined();
            for (int i = 0; i < 60_000; i++) {
                byte[] v = new byte[1024];
                rnd.nextBytes(v);
                pl.set(("k:" + i).getBytes(StandardCharsets.US_ASCII), v);
            }
            pl.sync();
            long savesBefore = Long.parseLong(field(p, "persistence", "rdb_saves"));
            try (RawReplica a = new RawReplica(primary.port()); RawReplica b = new RawReplica(primary.port())) {
                String fa = a.psync();
                assertTrue(fa.startsWith("+FULLRESYNC "), fa);
                p.set("between", "the-two-psyncs"); // moves the offset: a sync of its own would start past it
                String fb = b.psync();
                assertEquals(fa, fb); // same replid and offset: b joined a's sync
                // Read both at once: the file goes out at the pace of the slowest replica of the sync.
                java.util.concurrent.CompletableFuture<byte[]> fromB = java.util.concurrent.CompletableFuture.supplyAsync(
                        () -> {
                            try {
                                return b.rdb();
                            } catch (IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        });
                byte[] ra = a.rdb();
                byte[] rb = fromB.get(30, java.util.concurrent.TimeUnit.SECONDS);
                assertEquals(ra.length, rb.length);
                assertTrue(java.util.Arrays.equals(ra, rb));
                a.streamUntil("the-two-psyncs"); // the write made after the image's instant follows the file
                b.streamUntil("the-two-psyncs");
                assertEquals(savesBefore + 1, Long.parseLong(field(p, "persistence", "rdb_saves")));
                assertEquals("2", field(p, "stats", "sync_full"));
            }
        }
    }
}
