package io.tide.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class HeapGovernorTest {

    /** The test JVM runs without -XX:+ExplicitGCInvokesConcurrent: System.gc() would stop the world, so no governor. */
    @Test
    void doesNotRun_whereSystemGcIsAFullCollection() {
        boolean concurrent = ManagementFactory.getRuntimeMXBean().getInputArguments()
                .contains("-XX:+ExplicitGCInvokesConcurrent");
        assertThat(concurrent).as("surefire's argLine").isFalse();
        assertThat(HeapGovernor.startIfConcurrent(() -> 0)).isNull();
    }

    @Test
    void threshold_isAQuarterMoreThanWhatTheServerHoldsPlusHeadroom() {
        long mb = 1024L * 1024;
        assertThat(HeapGovernor.threshold(0, 0)).isEqualTo(32 * mb);
        assertThat(HeapGovernor.threshold(100 * mb, 20 * mb)).isEqualTo(182 * mb);
    }
}
