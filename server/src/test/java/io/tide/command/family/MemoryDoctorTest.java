package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** MEMORY DOCTOR's tests and thresholds (Redis's getMemoryDoctorReport) over given figures. */
class MemoryDoctorTest {

    private static final long MB = 1 << 20;

    private static String report(long peak, long total, long clientBytes, long rss, long allocated, long active,
                                 int clients, int scripts) {
        MemoryCommands.JvmMemory jvm = new MemoryCommands.JvmMemory(allocated, active, active, rss);
        MemoryCommands.Overhead o = new MemoryCommands.Overhead(peak, total, 0, clientBytes, 0, 0, 0, List.of(), 0, 0, 0,
                total, 100, 100, jvm);
        return MemoryCommands.doctorReport(o, clients, scripts, "jvm G1");
    }

    @Test
    void thresholds_asRedis() {
        assertThat(report(4 * MB, 4 * MB, 0, 4 * MB, 4 * MB, 4 * MB, 1, 0)).startsWith("Hi Sam, this instance is empty");
        assertThat(report(100 * MB, 100 * MB, 0, 100 * MB, 100 * MB, 100 * MB, 1, 0))
                .isEqualTo("Hi Sam, I can't find any memory issue in your instance. I can only account for what occurs "
                        + "on this base.\n");
        String r = report(151 * MB, 100 * MB, 300 * 1024, 100 * MB, 100 * MB, 100 * MB, 1, 1001);
        assertThat(r).startsWith("Sam, I detected a few issues in this Redis instance memory implants:\n\n * Peak memory:")
                .contains(" * Big client buffers:").contains(" * Many scripts:")
                .doesNotContain("High total RSS").endsWith("I'm here to keep you safe, Sam. I want to help you.\n");
        assertThat(report(100 * MB, 100 * MB, 0, 150 * MB, 100 * MB, 100 * MB, 1, 0))
                .contains(" * High total RSS:").contains("The currently used allocator is \"jvm G1\".")
                .contains(" * High process RSS overhead:");
        assertThat(report(100 * MB, 100 * MB, 0, 120 * MB, 100 * MB, 120 * MB, 1, 0))
                .contains(" * High allocator fragmentation:").doesNotContain("High total RSS");
        assertThat(report(150 * MB, 100 * MB, 200 * 1024, 100 * MB, 100 * MB, 100 * MB, 1, 1000))
                .startsWith("Hi Sam, I can't find any memory issue");
    }
}
