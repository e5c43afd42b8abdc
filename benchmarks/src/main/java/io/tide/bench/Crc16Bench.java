package io.tide.bench;

import io.tide.util.Crc16;
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
 * Confined to one JMH thread: the hash slot of a key ({@link Crc16#slot}), which a server with several shards computes
 * for every key of every request to find its shard. Keys of {@code len} bytes ({@code key:000000000123} is 16), 64 of
 * them in turn.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar Crc16Bench}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseCompactObjectHeaders"})
public class Crc16Bench {

    @Param({"16", "40"})
    int len;

    private final byte[][] keys = new byte[64][];
    private int next;

    @Setup
    public void setUp() {
        for (int k = 0; k < keys.length; k++) {
            byte[] key = new byte[len];
            String s = String.format("key:%0" + Math.max(1, len - 4) + "d", k * 7919L);
            for (int i = 0; i < len; i++) key[i] = (byte) s.charAt(i);
            keys[k] = key;
        }
    }

    @Benchmark
    public int slot() {
        int k = next;
        next = (k + 1) & 63;
        return Crc16.slot(keys[k]);
    }
}
