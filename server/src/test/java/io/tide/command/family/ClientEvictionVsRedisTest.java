package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Redis's client eviction (maxmemory-clients) on both servers: the config's forms and errors, and a connection whose
 * query buffer holds 2 MB of a command it has not finished sending is closed once all clients together use more than
 * 1 MB, counted in INFO's evicted_clients, while one with CLIENT NO-EVICT on and the same buffer is kept.
 */
class ClientEvictionVsRedisTest extends VsRedis {

    @AfterEach
    void off() throws IOException {
        same("CONFIG", "SET", "maxmemory-clients", "0");
    }

    @Test
    void config_acceptsBytesAndPercentages_withRedisErrors() throws IOException {
        for (String v : new String[] {"1mb", "10%", "0%", "200", "101%", "abc", "-1", "%"}) {
            same("CONFIG", "SET", "maxmemory-clients", v);
            same("CONFIG", "GET", "maxmemory-clients");
        }
    }

    @Test
    void theBiggestClientIsEvicted_aNoEvictClientIsNot() throws Exception {
        // The test's own connections are exempt, like a monitoring client: while the protected client alone holds
        // more than the limit (how much of its 2 MB a server has allocated at an instant varies with the transport's
        // read sizes), both servers go on to evict every evictable client, and these would be among them.
        same("CLIENT", "NO-EVICT", "on");
        long before = evicted(t());
        long beforeRedis = evicted(r());
        same("CONFIG", "SET", "maxmemory-clients", "1mb");
        assertThat(evictsTheBigClient(tide().port())).as("tide").isTrue();
        assertThat(evictsTheBigClient(redis().port())).as("redis").isTrue();
        assertThat(evicted(t()) - before).as("tide evicted_clients").isEqualTo(1);
        assertThat(evicted(r()) - beforeRedis).as("redis evicted_clients").isEqualTo(1);
    }

    /** A protected client and a plain one each send 2 MB of a 3 MB SET; true if only the plain one is closed. */
    private static boolean evictsTheBigClient(int port) throws Exception {
        try (RawClient kept = new RawClient(port); RawClient big = new RawClient(port)) {
            assertThat(kept.call("CLIENT", "NO-EVICT", "on")).isEqualTo("+OK\r\n");
            byte[] head = "*3\r\n$3\r\nSET\r\n$4\r\nbig1\r\n$3000000\r\n".getBytes(StandardCharsets.US_ASCII);
            byte[] part = new byte[2_000_000];
            java.util.Arrays.fill(part, (byte) 'x');
            kept.send(head);
            kept.send(part);
            boolean closed;
            try {
                big.send(head);
                big.send(part);
                big.timeout(10_000);
                closed = big.isClosedByServer();
            } catch (java.net.SocketException e) {
                closed = true; // evicted while it was still sending: the server reset the connection
            }
            kept.send(new byte[1_000_000]);
            kept.send("\r\n".getBytes(StandardCharsets.US_ASCII));
            assertThat(kept.readReply()).isEqualTo("+OK\r\n");
            assertThat(kept.call("DEL", "big1")).isEqualTo(":1\r\n");
            return closed;
        }
    }

    private static long evicted(RawClient c) throws IOException {
        for (String line : c.call("INFO", "stats").split("\r\n")) {
            if (line.startsWith("evicted_clients:")) return Long.parseLong(line.substring(16));
        }
        throw new AssertionError("no evicted_clients in INFO stats");
    }
}
