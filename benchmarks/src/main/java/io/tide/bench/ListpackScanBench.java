package io.tide.bench;

import io.tide.store.SetValue;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * A small set of strings kept as a listpack (at most 128 members of at most 64 bytes, Redis's limits): SISMEMBER's
 * scan for a member that is absent (every entry compared: SADD of a new member scans the same way) and for one that is
 * present, with members that share a prefix and a length ({@code member:%012d}, redis-benchmark's shape).
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar ListpackScanBench}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseCompactObjectHeaders"})
public class ListpackScanBench {

    @Param({"100"})
    int members;

    private SetValue set;
    private byte[][] present;
    private byte[][] absent;
    private int i;

    private static byte[] member(long n) {
        return String.format("member:%012d", n).getBytes(StandardCharsets.US_ASCII);
    }

    @Setup
    public void setup() {
        set = SetValue.newListpack();
        present = new byte[members][];
        absent = new byte[members][];
        for (int k = 0; k < members; k++) {
            present[k] = member(k * 7L);
            absent[k] = member(k * 7L + 3);
            set.add(present[k], io.tide.store.EncodingLimits.DEFAULTS);
        }
        if (!set.isListpack()) throw new IllegalStateException("not a listpack: " + set.encodingName());
    }

    @Benchmark
    public boolean containsAbsent() {
        i = (i + 1) % members;
        return set.contains(absent[i]);
    }

    @Benchmark
    public boolean containsPresent() {
        i = (i + 1) % members;
        return set.contains(present[i]);
    }
}
