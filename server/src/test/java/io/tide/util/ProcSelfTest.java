package io.tide.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcSelfTest {

    @Test
    void kilobytesField_findsTheFieldAtALineStart_inBytes(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("status");
        Files.writeString(f, "Name:\tjava\nVmHWM:\t  2048 kB\nVmRSS:\t   1536 kB\nRssAnon:\t 12 kB\n",
                StandardCharsets.US_ASCII);
        assertThat(ProcSelf.kilobytesField(f, "VmRSS:")).isEqualTo(1536 * 1024L);
        assertThat(ProcSelf.kilobytesField(f, "VmHWM:")).isEqualTo(2048 * 1024L);
        assertThat(ProcSelf.kilobytesField(f, "Anon:")).isEqualTo(-1); // not at a line's start
        assertThat(ProcSelf.kilobytesField(f, "VmSwap:")).isEqualTo(-1);
        assertThat(ProcSelf.kilobytesField(dir.resolve("missing"), "VmRSS:")).isEqualTo(-1);
        Files.writeString(f, "VmRSS:\tlots kB\n", StandardCharsets.US_ASCII);
        assertThat(ProcSelf.kilobytesField(f, "VmRSS:")).isEqualTo(-1);
    }

    /** statm is read through a channel kept open: each read must see the process as it is now. */
    @Test
    void rss_followsMemoryTouchedSinceTheLastRead() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(Path.of("/proc/self/statm")), "Linux /proc");
        long before = ProcSelf.rssBytes();
        java.nio.ByteBuffer touched = java.nio.ByteBuffer.allocateDirect(64 << 20);
        for (int i = 0; i < touched.capacity(); i += 4096) touched.put(i, (byte) 1);
        long after = ProcSelf.rssBytes();
        assertThat(after - before).as("RSS %d then %d", before, after).isGreaterThan(32L << 20);
        assertThat(touched.get(4096)).isEqualTo((byte) 1);
    }

    @Test
    void onLinux_theFiguresAgreeWithWhatProcSays() throws Exception {
        Path status = Path.of("/proc/self/status");
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(status), "Linux /proc");
        long rss = ProcSelf.rssBytes();
        long expected = 0;
        for (String l : Files.readAllLines(status)) {
            if (l.startsWith("VmRSS:")) expected = Long.parseLong(l.replaceAll("\\D", "")) * 1024;
        }
        assertThat(rss).isPositive().isBetween(expected / 2, expected * 2); // RSS moves between the two reads
        assertThat(ProcSelf.pageSize()).isIn(4096L, 16384L, 65536L);
        assertThat(ProcSelf.totalSystemMemory()).isGreaterThan(rss);
        String stat = Files.readString(Path.of("/proc/self/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        double[] cpu = ProcSelf.cpuSeconds();
        assertThat(cpu).hasSize(4);
        assertThat(cpu[0]).isGreaterThanOrEqualTo(Long.parseLong(f[11]) / 100.0); // utime only grows
        assertThat(cpu[0]).isLessThan(Long.parseLong(f[11]) / 100.0 + 30);
        assertThat(cpu[1]).isGreaterThanOrEqualTo(Long.parseLong(f[12]) / 100.0);
        assertThat(cpu[2]).isEqualTo(Long.parseLong(f[13]) / 100.0);
        assertThat(ProcSelf.executable()).endsWith("java");
        assertThat(ProcSelf.collectors()).isNotEmpty();
    }
}
