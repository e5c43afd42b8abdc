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

    @Test
    void periodicCollection_onlyWhileTheCommittedHeapExceedsTheNeedBeyondTheSlack() {
        long mb = 1024L * 1024;
        // 100k keys after the load (from a GC log): 16 MB old, a 32 MB young generation, 40 MB committed: nothing to give
        assertThat(HeapGovernor.heapToGiveBack(40 * mb, 16 * mb, 32 * mb, 20)).isFalse();
        // 1M keys just loaded: 224 MB committed for 74 MB old + 32 MB young (a periodic cycle shrank it to 100 MB)
        assertThat(HeapGovernor.heapToGiveBack(224 * mb, 74 * mb, 32 * mb, 20)).isTrue();
        assertThat(HeapGovernor.heapToGiveBack(100 * mb, 74 * mb, 32 * mb, 20)).isFalse();
        // the need is (old + young) / (1 - MaxHeapFreeRatio): 80 MB at 20%; on beyond 80 + 16 MB of slack
        assertThat(HeapGovernor.heapToGiveBack(96 * mb, 48 * mb, 16 * mb, 20)).isFalse();
        assertThat(HeapGovernor.heapToGiveBack(96 * mb + 1, 48 * mb, 16 * mb, 20)).isTrue();
    }
}
