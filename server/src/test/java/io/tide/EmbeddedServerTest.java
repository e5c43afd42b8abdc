package io.tide;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.TestServers;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

class EmbeddedServerTest {

    private static Set<Thread> tideThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.isAlive() && t.getName().startsWith("tide-"))
                .collect(Collectors.toSet());
    }

    @Test
    void twoServersInOneJvm_doNotShareData_andLeaveNoThreadsOrPorts() throws Exception {
        Set<Thread> before = tideThreads();
        int portA;
        int portB;
        try (Server a = TestServers.start(2); Server b = TestServers.start(1)) {
            portA = a.port();
            portB = b.port();
            assertThat(portA).isNotEqualTo(portB).isPositive();
            try (Jedis ja = TestServers.jedis(portA, 2); Jedis jb = TestServers.jedis(portB, 3)) {
                ja.set("k", "from-a");
                jb.set("k", "from-b");
                assertThat(ja.get("k")).isEqualTo("from-a");
                assertThat(jb.get("k")).isEqualTo("from-b");
                assertThat(ja.dbSize()).isEqualTo(1);
            }
            assertThat(tideThreads().size()).isGreaterThan(before.size());
        }
        // Every thread the two servers started has ended, and both ports can be bound again.
        long deadline = System.currentTimeMillis() + 5000;
        while (!before.containsAll(tideThreads()) && System.currentTimeMillis() < deadline) Thread.sleep(20);
        assertThat(tideThreads()).isSubsetOf(before);
        for (int port : new int[] {portA, portB}) {
            try (ServerSocket s = new ServerSocket()) {
                s.setReuseAddress(true);
                s.bind(new InetSocketAddress("127.0.0.1", port));
                assertThat(s.isBound()).isTrue();
            }
        }
    }

    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"nio", "epoll", "io_uring", "auto"})
    void everyIoDriver_servesRequests(String driver) {
        if (driver.equals("io_uring")) {
            org.junit.jupiter.api.Assumptions.assumeTrue(io.netty.channel.uring.IoUring.isAvailable(),
                    "io_uring is not available on this kernel");
        }
        try (Server s = TestServers.start(2, "--io-driver", driver);
             Jedis j = TestServers.jedis(s.port(), 2)) {
            assertThat(s.ioDriver()).isEqualTo(!driver.equals("auto") ? driver
                    : io.netty.channel.uring.IoUring.isAvailable() ? "io_uring"
                    : io.netty.channel.epoll.Epoll.isAvailable() ? "epoll" : "nio");
            for (int i = 0; i < 100; i++) j.set("d" + i, Integer.toString(i));
            assertThat(j.mget("d1", "d50", "d99")).containsExactly("1", "50", "99");
        }
    }

    @Test
    void closeTwice_isHarmless() {
        Server s = TestServers.start(1);
        s.close();
        s.close();
        assertThat(s.isClosed()).isTrue();
    }

    @Test
    void start_withBadOption_throwsWithTheReason() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Tide.start("--bogus", "1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("bogus");
    }
}
