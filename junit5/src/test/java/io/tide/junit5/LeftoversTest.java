package io.tide.junit5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;
import redis.clients.jedis.Jedis;

/**
 * Runs test classes through the JUnit launcher and looks at what they leave: parallel classes each get their own
 * server, and once the run ends no Tide thread is alive and no port they used accepts. Isolated: no other class's
 * server runs meanwhile, so every {@code tide-} thread seen is theirs.
 */
@Isolated
class LeftoversTest {

    /** Ports the launched classes saw, by class. */
    static final Map<String, Integer> PORTS = new ConcurrentHashMap<>();
    /** Both parallel classes meet here: the run fails unless they run at the same time. */
    static volatile CyclicBarrier meet;

    /** Lets the classes below run only when this test launches them (surefire's -Dtest=Leftovers* finds them too). */
    static final class LaunchedOnly implements org.junit.jupiter.api.extension.ExecutionCondition {
        @Override
        public org.junit.jupiter.api.extension.ConditionEvaluationResult evaluateExecutionCondition(
                org.junit.jupiter.api.extension.ExtensionContext context) {
            return context.getConfigurationParameter(LAUNCHED).isPresent()
                    ? org.junit.jupiter.api.extension.ConditionEvaluationResult.enabled("launched by LeftoversTest")
                    : org.junit.jupiter.api.extension.ConditionEvaluationResult.disabled("run by LeftoversTest only");
        }
    }

    private static final String LAUNCHED = "tide.junit5.leftovers";

    @org.junit.jupiter.api.extension.ExtendWith(LaunchedOnly.class)
    @TideServer
    static class ParallelA {
        @TidePort
        int port;

        @Test
        void meetsB() throws Exception {
            use(port, "A");
        }
    }

    @org.junit.jupiter.api.extension.ExtendWith(LaunchedOnly.class)
    @TideServer(shards = 2)
    static class ParallelB {
        @TidePort
        int port;

        @Test
        void meetsA() throws Exception {
            use(port, "B");
        }
    }

    static void use(int port, String name) throws Exception {
        try (Jedis j = new Jedis("127.0.0.1", port)) {
            j.set("owner", name);
            meet.await(30, TimeUnit.SECONDS);
            assertThat(j.get("owner")).isEqualTo(name); // the other class wrote to a server of its own
        }
        PORTS.put(name, port);
    }

    @org.junit.jupiter.api.extension.ExtendWith(LaunchedOnly.class)
    @TideServer(config = "maxmemory lots")
    static class CannotStart {
        @Test
        void neverRuns() {
        }
    }

    private static Set<String> tideThreads() {
        return Thread.getAllStackTraces().keySet().stream().filter(Thread::isAlive).map(Thread::getName)
                .filter(n -> n.startsWith("tide-")).collect(Collectors.toSet());
    }

    private static TestExecutionSummary run(boolean parallel, Class<?>... classes) {
        var b = LauncherDiscoveryRequestBuilder.request()
                .selectors(java.util.Arrays.stream(classes).map(c -> selectClass(c)).toList())
                .configurationParameter(LAUNCHED, "true")
                .configurationParameter("junit.jupiter.execution.parallel.enabled", Boolean.toString(parallel))
                .configurationParameter("junit.jupiter.execution.parallel.mode.classes.default", "concurrent")
                .configurationParameter("junit.jupiter.execution.parallel.config.strategy", "fixed")
                .configurationParameter("junit.jupiter.execution.parallel.config.fixed.parallelism", "2");
        LauncherDiscoveryRequest request = b.build();
        SummaryGeneratingListener listener = new SummaryGeneratingListener();
        LauncherFactory.create().execute(request, listener);
        return listener.getSummary();
    }

    @Test
    void parallelClasses_eachHaveAServer_andLeaveNoThreadOrPort() throws Exception {
        assertThat(tideThreads()).as("no Tide thread before the run").isEmpty();
        PORTS.clear();
        meet = new CyclicBarrier(2);
        TestExecutionSummary summary = run(true, ParallelA.class, ParallelB.class);
        assertThat(summary.getFailures()).as("failures").isEmpty();
        assertThat(summary.getTestsSucceededCount()).isEqualTo(2);
        assertThat(PORTS).containsOnlyKeys("A", "B");
        assertThat(PORTS.get("A")).isNotEqualTo(PORTS.get("B"));

        assertThat(tideThreads()).as("Tide threads after the run").isEmpty();
        for (int port : PORTS.values()) {
            try (Socket s = new Socket()) {
                org.assertj.core.api.Assertions.assertThatThrownBy(
                        () -> s.connect(new InetSocketAddress("127.0.0.1", port), 1000))
                        .as("port %d after the run", port).isInstanceOf(ConnectException.class);
            }
        }
    }

    @Test
    void serverThatCannotStart_failsTheClass_withTheServersError() throws IOException {
        TestExecutionSummary summary = run(false, CannotStart.class);
        List<Throwable> failures = summary.getFailures().stream().map(TestExecutionSummary.Failure::getException)
                .toList();
        assertThat(failures).hasSize(1);
        assertThat(failures.getFirst()).hasMessageStartingWith("Tide did not start: ")
                .hasMessageContaining("invalid value for 'maxmemory': 'lots'");
        assertThat(summary.getTestsSucceededCount()).isZero();
        assertThat(tideThreads()).isEmpty();
    }
}
