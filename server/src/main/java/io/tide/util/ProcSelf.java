package io.tide.util;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * What INFO, MEMORY STATS and the metrics read about this process and machine from {@code /proc}, read as bytes and
 * scanned in place (no lines, no regular expressions): INFO calls these on every request. What cannot change while
 * the process lives (the machine's memory, the executable, the collectors' names) is read once, as Redis reads
 * {@code total_system_memory} once at startup. Off Linux each figure is unknown: -1, null or empty.
 */
public final class ProcSelf {
    private static final Path STATUS = Path.of("/proc/self/status");
    private static final Path STAT = Path.of("/proc/self/stat");
    private static final Path STATM = Path.of("/proc/self/statm");
    /** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on every Linux ABI). */
    private static final double USER_HZ = 100.0;

    private static volatile long totalMemory = Long.MIN_VALUE;
    private static volatile long pageSize = -1;
    private static volatile FileChannel statmChannel;
    private static volatile String executable;
    private static volatile List<String> collectors;

    private ProcSelf() {}

    /**
     * The process's resident set size in bytes, or -1: the resident pages of /proc/self/statm (one short line;
     * /proc/self/status, which says VmRSS in kB, has every field of the process for the kernel to write) times the
     * page size, which {@link #pageSize} learns from the two files once.
     */
    public static long rssBytes() {
        long page = pageSize();
        if (page <= 0) return kilobytesField(STATUS, "VmRSS:");
        long[] statm = statm();
        return statm == null ? -1 : statm[1] * page;
    }

    /**
     * The size of a page in bytes, learned once: VmSize of /proc/self/status (kB) over the first field of
     * /proc/self/statm (pages), read one after the other until they agree on a power of two (a mapping made between
     * the two reads changes the size); 0 when they never do or cannot be read.
     */
    static long pageSize() {
        long p = pageSize;
        if (p < 0) {
            p = 0;
            for (int attempt = 0; attempt < 5 && p == 0; attempt++) {
                long[] before = statm();
                long vmSize = kilobytesField(STATUS, "VmSize:");
                long[] after = statm();
                if (before == null || after == null || vmSize <= 0 || before[0] != after[0] || after[0] == 0) continue;
                long q = vmSize / after[0];
                if (q * after[0] == vmSize && Long.bitCount(q) == 1) p = q;
            }
            pageSize = p;
        }
        return p;
    }

    /** The first two fields of /proc/self/statm (size and resident, in pages), or null. */
    private static long[] statm() {
        byte[] b = readStatm();
        return b == null ? null : numbers(b, 0, 0, 2);
    }

    /** The machine's memory in bytes (MemTotal), read once; -1 when unknown. */
    public static long totalSystemMemory() {
        long t = totalMemory;
        if (t == Long.MIN_VALUE) totalMemory = t = kilobytesField(Path.of("/proc/meminfo"), "MemTotal:");
        return t;
    }

    /** The JVM's executable, read once; empty when unknown. */
    public static String executable() {
        String e = executable;
        if (e == null) executable = e = ProcessHandle.current().info().command().orElse("");
        return e;
    }

    /** The names of the JVM's garbage collectors, read once. */
    public static List<String> collectors() {
        List<String> c = collectors;
        if (c == null) {
            List<String> names = new ArrayList<>();
            for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) names.add(gc.getName());
            collectors = c = List.copyOf(names);
        }
        return c;
    }

    /** utime, stime, cutime, cstime of this process in seconds (fields 14-17 of /proc/self/stat); null if unknown. */
    public static double[] cpuSeconds() {
        byte[] b = read(STAT);
        if (b == null) return null;
        int i = b.length - 1;
        while (i >= 0 && b[i] != ')') i--; // the command name may hold spaces and parentheses: skip past its last ')'
        if (i < 0) return null;
        long[] ticks = numbers(b, i + 1, 11, 4); // the ')' ends field 2: fields 3-13 skipped, then 14-17
        if (ticks == null) return null;
        double[] out = new double[4];
        for (int j = 0; j < 4; j++) out[j] = ticks[j] / USER_HZ;
        return out;
    }

    /**
     * {@code count} decimal numbers from the space-separated fields of {@code b} after position {@code from}, the first
     * {@code skip} fields passed over; null when there are fewer or one of them is not a number.
     */
    private static long[] numbers(byte[] b, int from, int skip, int count) {
        long[] out = new long[count];
        int p = from;
        for (int f = 0; f < skip + count; f++) {
            while (p < b.length && b[p] == ' ') p++;
            int start = p;
            while (p < b.length && b[p] != ' ' && b[p] != '\n') p++;
            if (f < skip) continue;
            out[f - skip] = digits(b, start, p);
            if (out[f - skip] < 0) return null;
        }
        return out;
    }

    /**
     * The number after {@code key} (a field name with its colon, at the start of a line) in a /proc file whose
     * values are in kB, in bytes; -1 when the file or the field is missing.
     */
    public static long kilobytesField(Path file, String key) {
        byte[] b = read(file);
        if (b == null) return -1;
        byte[] k = key.getBytes(StandardCharsets.US_ASCII);
        for (int line = 0; line < b.length; ) {
            if (startsWith(b, line, k)) {
                int p = line + k.length;
                while (p < b.length && (b[p] == ' ' || b[p] == '\t')) p++;
                int start = p;
                while (p < b.length && b[p] >= '0' && b[p] <= '9') p++;
                long v = digits(b, start, p);
                return v < 0 ? -1 : v * 1024;
            }
            while (line < b.length && b[line] != '\n') line++;
            line++;
        }
        return -1;
    }

    private static boolean startsWith(byte[] b, int at, byte[] k) {
        if (at + k.length > b.length) return false;
        for (int j = 0; j < k.length; j++) if (b[at + j] != k[j]) return false;
        return true;
    }

    /** The decimal number in {@code b[from, to)}, or -1 if that is empty, not all digits or too long. */
    private static long digits(byte[] b, int from, int to) {
        if (to <= from || to - from > 18) return -1;
        long v = 0;
        for (int j = from; j < to; j++) {
            if (b[j] < '0' || b[j] > '9') return -1;
            v = v * 10 + (b[j] - '0');
        }
        return v;
    }

    /**
     * /proc/self/statm through a channel opened once and read from offset 0 each time (the kernel writes the line
     * afresh for each read from the start): one pread where {@link Files#readAllBytes} opens, sizes, reads twice and
     * closes. Positional reads on one channel may run on several threads at once.
     */
    private static byte[] readStatm() {
        FileChannel c = statmChannel;
        if (c == null) {
            synchronized (ProcSelf.class) {
                c = statmChannel;
                if (c == null) {
                    try {
                        statmChannel = c = FileChannel.open(STATM, StandardOpenOption.READ);
                    } catch (IOException | RuntimeException e) {
                        return read(STATM);
                    }
                }
            }
        }
        ByteBuffer buf = ByteBuffer.allocate(256);
        try {
            while (buf.hasRemaining() && c.read(buf, buf.position()) > 0) { } // the line is far shorter than 256
        } catch (IOException e) {
            return read(STATM);
        }
        return java.util.Arrays.copyOf(buf.array(), buf.position());
    }

    private static byte[] read(Path file) {
        try {
            return Files.readAllBytes(file);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
