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
    void idleThreshold_isAnEighthMorePlusLessHeadroom() {
        long mb = 1024L * 1024;
        assertThat(HeapGovernor.idleThreshold(0, 0)).isEqualTo(16 * mb);
        // a 1M-member sorted set loaded by one ZADD (70 MB held, 8 MB at start): its arguments left about 114 MB in
        // the old generation, under the busy bar (129.5 MB) and over the idle one (103.75 MB)
        assertThat(HeapGovernor.idleThreshold(70 * mb, 8 * mb)).isEqualTo(103 * mb + 3 * mb / 4);
        assertThat(HeapGovernor.threshold(70 * mb, 8 * mb)).isEqualTo(129 * mb + mb / 2);
    }

    @Test
    void interval_doublesWhileCyclesLeaveTheOldGenerationOverTheBar() {
        long i = HeapGovernor.MIN_INTERVAL_MS;
        for (int k = 0; k < 5; k++) i = HeapGovernor.nextInterval(i, true);
        assertThat(i).isEqualTo(32 * HeapGovernor.MIN_INTERVAL_MS);
        i = HeapGovernor.nextInterval(i, true);
        assertThat(i).isEqualTo(HeapGovernor.MAX_INTERVAL_MS);
        assertThat(HeapGovernor.nextInterval(i, true)).isEqualTo(HeapGovernor.MAX_INTERVAL_MS);
        assertThat(HeapGovernor.nextInterval(i, false)).isEqualTo(HeapGovernor.MIN_INTERVAL_MS);
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

    @Test
    void cycleAt_isTheBarOrAQuarterOverWhatTheLastCycleLeftWhicheverIsMore() {
        long mb = 1024 * 1024;
        // the accounting's bar: (100 + 20) * 1.25 + 32
        assertThat(HeapGovernor.cycleAt(100 * mb, 20 * mb, 0, 0)).isEqualTo(182 * mb);
        assertThat(HeapGovernor.cycleAt(100 * mb, 20 * mb, 80 * mb, 100 * mb)).isEqualTo(182 * mb);
        // more live heap than the accounting sees: room over what the cycle left, so cycles do not run back to back
        assertThat(HeapGovernor.cycleAt(100 * mb, 20 * mb, 200 * mb, 100 * mb)).isEqualTo(282 * mb);
        // 150 MB freed since the cycle that left 200: it counts as having left 50
        assertThat(HeapGovernor.cycleAt(0, 20 * mb, 200 * mb, 150 * mb)).isEqualTo(94 * mb + mb / 2);
    }

    /** Shenandoah's free heap is the soft maximum less the evacuation reserve; a cycle starts under a tenth of it. */
    @Test
    void softMax_coversTheEvacuationReserveAndTheMinimumFreeShare() {
        long mb = 1024 * 1024;
        // 6000 MB heap: a 300 MB reserve; (182 + 300) / 0.9
        assertThat(HeapGovernor.softMax(182 * mb, 6000 * mb, 5, 10)).isEqualTo((482 * mb) / 90 * 100);
        assertThat(HeapGovernor.softMax(182 * mb, 200 * mb, 5, 10)).isEqualTo(200 * mb);
    }

    @Test
    void worthSetting_onlyAChangeOfMoreThanASixteenth() {
        assertThat(HeapGovernor.worthSetting(0, 64)).isTrue();
        assertThat(HeapGovernor.worthSetting(160, 170)).isFalse();
        assertThat(HeapGovernor.worthSetting(160, 171)).isTrue();
        assertThat(HeapGovernor.worthSetting(160, 149)).isTrue();
    }
}
