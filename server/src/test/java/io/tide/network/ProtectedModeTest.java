package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.command.Errors;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Protected mode against a real redis-server 7.0: with no password for the default user, a connection from an address
 * that is not loopback (this machine's own non-loopback address: the peer is then that address, not 127.0.0.1) gets
 * Redis's -DENIED text and is closed; loopback clients are served; CONFIG SET protected-mode no or a password lets it in.
 */
class ProtectedModeTest {

    private static InetAddress outside;

    @BeforeAll
    static void findAnAddress() throws IOException {
        for (NetworkInterface ni : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!ni.isUp() || ni.isLoopback()) continue;
            for (InetAddress a : Collections.list(ni.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress() && !a.isLinkLocalAddress()) outside = a;
            }
        }
        if (outside == null) {
            if ("true".equals(System.getenv("CI"))) throw new IllegalStateException("no non-loopback IPv4 address");
            Assumptions.abort("no non-loopback IPv4 address on this machine");
        }
    }

    /**
     * Sends PING from a connection to {@code outside}; returns all the server sent until it closed or 3 s passed,
     * followed by "(open)" when it stayed open and "(reset)" when it ended with a reset.
     */
    private static String pingFromOutside(int port) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(outside, port), 3000);
            s.setSoTimeout(3000);
            s.getOutputStream().write(RawClient.encode("PING"));
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] buf = new byte[4096];
            try {
                for (int n; (n = in.read(buf)) > 0; ) {
                    got.write(buf, 0, n);
                    if (got.toString(StandardCharsets.UTF_8).equals("+PONG\r\n")) break; // served: stays open
                }
            } catch (java.net.SocketTimeoutException e) {
                got.write("(open)".getBytes(StandardCharsets.UTF_8));
            } catch (java.net.SocketException e) {
                got.write("(reset)".getBytes(StandardCharsets.UTF_8));
            }
            return got.toString(StandardCharsets.UTF_8);
        }
    }

    private static long stat(Jedis j, String name) {
        for (String l : j.info("stats").split("\r\n")) {
            if (l.startsWith(name + ":")) return Long.parseLong(l.substring(name.length() + 1));
        }
        throw new AssertionError(name);
    }

    @Test
    void aClientFromOutside_isDeniedAsByRedis_andLoopbackIsServed() throws Exception {
        String denied = "-" + Errors.PROTECTED_MODE + "\r\n";
        try (RealRedis redis = RealRedis.startWith("--bind", "0.0.0.0");
             Server tide = TestServers.start(2, "--bind", "0.0.0.0");
             Jedis r = new Jedis("127.0.0.1", redis.port());
             Jedis t = TestServers.jedis(tide.port(), 2)) {
            // Redis closes as soon as it has written the refusal, so the PING it did not read may turn its close into a
            // reset after the text; Tide half-closes first, so its client reads the text and an orderly end.
            assertThat(pingFromOutside(redis.port()).replace("(reset)", "")).isEqualTo(denied);
            long received = stat(t, "total_connections_received");
            assertThat(pingFromOutside(tide.port())).isEqualTo(denied);
            assertThat(stat(t, "rejected_connections")).isEqualTo(stat(r, "rejected_connections")).isEqualTo(1);
            assertThat(stat(t, "total_connections_received")).isEqualTo(received);
            assertThat(t.ping()).isEqualTo("PONG");
            assertThat(t.configGet("protected-mode")).containsEntry("protected-mode", "yes");

            // Turned off at run time (from loopback), as Redis allows.
            assertThat(r.configSet("protected-mode", "no")).isEqualTo("OK");
            assertThat(t.configSet("protected-mode", "no")).isEqualTo("OK");
            assertThat(pingFromOutside(redis.port())).isEqualTo("+PONG\r\n");
            assertThat(pingFromOutside(tide.port())).isEqualTo("+PONG\r\n");

            // On again, with a password: the outsider is let in to authenticate.
            t.configSet("protected-mode", "yes");
            r.configSet("protected-mode", "yes");
            assertThat(pingFromOutside(tide.port())).isEqualTo(denied);
            r.configSet("requirepass", "secret");
            t.configSet("requirepass", "secret");
            String noauth = "-" + Errors.NOAUTH + "\r\n(open)";
            assertThat(pingFromOutside(redis.port())).isEqualTo(noauth);
            assertThat(pingFromOutside(tide.port())).isEqualTo(noauth);
        }
    }
}
