package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.util.Arrays;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * client-output-buffer-limit pubsub through real sockets: a subscriber that stops reading is disconnected once the
 * bytes waiting for it (the encoder's buffer, Netty's outbound buffer, the heap backlog) reach the hard limit, not
 * before and not long after, and what it held is no longer counted once it is gone.
 */
class OutputBufferLimitTest {

    /** Above the channel's 1 MiB high-water mark: the count has to follow the bytes past it. */
    private static final int HARD = 4 * 1024 * 1024;
    private static final int PAYLOAD = 8192;

    private static Map<String, String> line(RawClient admin, String name) throws Exception {
        String list = ClientMemoryFieldsTest.body(admin.call("CLIENT", "LIST"));
        for (String l : list.split("\n")) {
            if (l.contains(" name=" + name + " ")) return ClientMemoryFieldsTest.fields(l);
        }
        return null;
    }

    private static long memClients(RawClient admin) throws Exception {
        for (String l : admin.call("INFO", "memory").split("\r\n")) {
            if (l.startsWith("mem_clients_normal:")) return Long.parseLong(l.substring(l.indexOf(':') + 1));
        }
        throw new AssertionError("no mem_clients_normal");
    }

    /** Publishers on the subscriber's own shard and on another one (connections take the shards in turn). */
    @ParameterizedTest
    @ValueSource(ints = {1, 2})
    void subscriberThatStopsReading_isDroppedWhenItsOutputReachesTheHardLimit(int shards) throws Exception {
        Server server = TestServers.start(shards);
        try (RawClient admin = new RawClient(server.port());
             RawClient slow = new RawClient(server.port());
             RawClient pubA = new RawClient(server.port());
             RawClient pubB = new RawClient(server.port())) {
            admin.call("CONFIG", "SET", "client-output-buffer-limit", "pubsub " + HARD + " 0 0");
            slow.call("CLIENT", "SETNAME", "slow");
            assertThat(slow.call("SUBSCRIBE", "ch")).contains("subscribe"); // and never reads again
            char[] x = new char[PAYLOAD];
            Arrays.fill(x, 'x');
            String payload = new String(x);

            long maxOmem = 0;
            long lastOmem = 0;
            long published = 0;
            boolean dropped = false;
            // Enough for the limit plus whatever the kernel's socket buffers take first (a few MB on loopback).
            for (int i = 0; i < 4000 && !dropped; i++) {
                RawClient pub = i % 2 == 0 ? pubA : pubB;
                String receivers = pub.call("PUBLISH", "ch", payload);
                published += PAYLOAD;
                Map<String, String> f = line(admin, "slow");
                if (f == null || receivers.equals(":0\r\n")) {
                    dropped = true;
                } else {
                    lastOmem = Long.parseLong(f.get("omem"));
                    maxOmem = Math.max(maxOmem, lastOmem);
                }
            }
            assertThat(dropped).as("dropped after %d bytes published", published).isTrue();
            // Never over the limit while connected, and counted up to it: the drop came within a few messages of it
            // (a message published from another shard reaches the count when the subscriber's loop writes it, and the
            // kernel's send buffer, growing as it autotunes, can take a few more out of the count between two samples:
            // 42 KB once in a full suite run).
            assertThat(maxOmem).isLessThan(HARD);
            assertThat(lastOmem).as("output counted before the drop").isGreaterThan(HARD - 16L * (PAYLOAD + 64));
            assertThat(published).as("bytes published before the drop").isGreaterThan(HARD);
            assertThat(admin.call("PUBSUB", "NUMSUB", "ch")).endsWith(":0\r\n");
            long gone = System.currentTimeMillis() + 5000;
            while (line(admin, "slow") != null && System.currentTimeMillis() < gone) Thread.sleep(20);
            assertThat(line(admin, "slow")).as("the subscriber's connection is closed").isNull();
            // What the dropped client held is released and no longer counted (the sum is refreshed every 100 ms).
            long deadline = System.currentTimeMillis() + 5000;
            long clients = memClients(admin);
            while (clients > 64 * 1024 && System.currentTimeMillis() < deadline) {
                Thread.sleep(50);
                clients = memClients(admin);
            }
            assertThat(clients).isLessThan(64 * 1024);
        } finally {
            server.close();
        }
    }
}
