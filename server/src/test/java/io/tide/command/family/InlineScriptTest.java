package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import io.tide.util.Continuations;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * With one shard a script runs inline on the shard's thread, inside a continuation; one that turns busy moves to the
 * coordinator thread in its middle and finishes there (decision 0022). Observed from outside: the coordinator's
 * operation count, the replies of other clients while it is busy, its writes on both sides of the move, and a client
 * tracking the keys it writes (the command's tracking batch moves with it).
 */
class InlineScriptTest {

    /** Writes {@code KEYS[1]}, runs past {@code ARGV[1]} ms (busy at 100 ms), writes {@code KEYS[2]}, returns 42. */
    private static final String WRITE_SPIN_WRITE = "redis.call('SET', KEYS[1], 'before')\n"
            + "local t = redis.call('TIME') local start = t[1] * 1000000 + t[2]\n"
            + "repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start > ARGV[1] * 1000\n"
            + "redis.call('SET', KEYS[2], 'after') return 42";

    private static Server server;

    @BeforeAll
    static void start() throws Exception {
        server = TestServers.start(1);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @BeforeEach
    void threshold() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            assertThat(c.call("CONFIG", "SET", "busy-reply-threshold", "100")).isEqualTo("+OK\r\n");
        }
    }

    private static long coordinatorOperations(RawClient c) throws Exception {
        String info = c.call("INFO", "tide");
        for (String line : info.split("\r\n")) {
            if (line.startsWith("tide_coordinator_operations:")) return Long.parseLong(line.substring(28));
        }
        throw new AssertionError("no tide_coordinator_operations in " + info);
    }

    @Test
    void scripts_runInlineOnTheShard_aBusyOneMovesToTheCoordinatorOnce() throws Exception {
        assertThat(Continuations.available()).as("the tests run with java.base/jdk.internal.vm exported").isTrue();
        try (RawClient runner = new RawClient(server.port()); RawClient other = new RawClient(server.port())) {
            long before = coordinatorOperations(other);
            for (int i = 0; i < 20; i++) {
                assertThat(runner.call("EVAL", "return redis.call('INCR', KEYS[1])", "1", "inline:n"))
                        .isEqualTo(":" + (i + 1) + "\r\n");
            }
            assertThat(coordinatorOperations(other)).isEqualTo(before);

            runner.sendCommand("EVAL", WRITE_SPIN_WRITE, "2", "inline:a", "inline:b", "600");
            long deadline = System.currentTimeMillis() + 10_000;
            String r;
            while (!(r = other.call("GET", "inline:a")).equals("-" + io.tide.command.Errors.BUSY_EVAL + "\r\n")) {
                assertThat(r).as("before the script turns busy nothing of it is visible").isEqualTo("$-1\r\n");
                assertThat(System.currentTimeMillis()).isLessThan(deadline);
                Thread.sleep(10);
            }
            assertThat(runner.readReply()).isEqualTo(":42\r\n");
            assertThat(other.call("MGET", "inline:a", "inline:b")).isEqualTo("*2\r\n$6\r\nbefore\r\n$5\r\nafter\r\n");
            assertThat(coordinatorOperations(other)).isEqualTo(before + 1);
            // The shard serves scripts inline again afterwards.
            assertThat(runner.call("EVAL", "return redis.call('INCR', KEYS[1])", "1", "inline:n")).isEqualTo(":21\r\n");
            assertThat(coordinatorOperations(other)).isEqualTo(before + 1);
        }
    }

    @Test
    void trackingBatchOfABusyScript_movesWithIt() throws Exception {
        try (RawClient tracker = new RawClient(server.port()); RawClient runner = new RawClient(server.port());
             RawClient other = new RawClient(server.port())) {
            assertThat(tracker.call("HELLO", "3")).startsWith("%");
            assertThat(tracker.call("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "trk:")).isEqualTo("+OK\r\n");
            runner.sendCommand("EVAL", WRITE_SPIN_WRITE, "2", "trk:a", "trk:b", "300");
            assertThat(runner.readReply()).isEqualTo(":42\r\n");
            // BCAST: one message for the whole script, after it, naming both keys (Redis's trackingRememberKeyToBroadcast).
            assertThat(tracker.readReply()).isEqualTo(">2\r\n$10\r\ninvalidate\r\n*2\r\n$5\r\ntrk:a\r\n$5\r\ntrk:b\r\n");
            // The shard thread's own batch was left clean: a later write is announced at once.
            assertThat(other.call("SET", "trk:c", "1")).isEqualTo("+OK\r\n");
            assertThat(tracker.readReply()).isEqualTo(">2\r\n$10\r\ninvalidate\r\n*1\r\n$5\r\ntrk:c\r\n");
        }
    }
}
