package io.tide.bench;

import io.tide.store.Database;
import java.util.Arrays;
import java.util.HashMap;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Confined to the single JMH benchmark thread (Scope.Thread state). Tide's {@link Database} against
 * {@code java.util.HashMap<ByteArrayKey, byte[]>} on 1M keys of 16 bytes: get hit, put overwrite and
 * put of new keys, so the ratio of the paired results can be quoted. As in a server, every lookup uses
 * freshly decoded key bytes (a copy, not the stored array), every key has its own value array, a GET
 * reads the value's bytes (a reply writes them), and the HashMap side builds its key wrapper per
 * operation.
 *
 * <p>{@code tideGetInPlace} is GET's lookup since the reply is written from the entry: no copy of the value.
 *
 * <p>{@code tideReadThenWrite}: INCR's read of a key for writing, then its write.
 *
 * <p>{@code batch*}: GET's lookups for a pipelined batch of 16 keys, per key, without and with the prefetch of
 * decision 0023.
 *
 * <p>Run: {@code java -jar benchmarks/target/benchmarks.jar DatabaseBench -prof gc}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"-XX:+UseCompactObjectHeaders", "-Xms4g", "-Xmx4g"})
public class DatabaseBench {

    private static final long NOW = 1_700_000_000_000L;

    @Param("1000000")
    int keys;

    private byte[][] present;
    /** Copies of the present keys in shuffled order: what a request decodes. */
    private byte[][] lookup;
    private ByteArrayKey[] presentBoxed;
    private byte[][] fresh;
    private byte[] value;
    private Database db;
    private HashMap<ByteArrayKey, byte[]> map;
    private int cursor;
    private int freshCursor;

    /** The reference map's key: a byte array with content equality, as an application would write it. */
    static final class ByteArrayKey {
        final byte[] bytes;
        private final int hash;

        ByteArrayKey(byte[] bytes) {
            this.bytes = bytes;
            this.hash = Arrays.hashCode(bytes);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ByteArrayKey other && Arrays.equals(bytes, other.bytes);
        }

        @Override
        public int hashCode() {
            return hash;
        }
    }

    @Setup(Level.Trial)
    public void setUp() {
        SplittableRandom rnd = new SplittableRandom(7);
        present = new byte[keys][];
        presentBoxed = new ByteArrayKey[keys];
        value = new byte[32];
        db = new Database(0);
        map = new HashMap<>();
        for (int i = 0; i < keys; i++) {
            byte[] k = randomKey(rnd);
            present[i] = k;
            presentBoxed[i] = new ByteArrayKey(k);
            db.put(k, value.clone(), 0, NOW);
            map.put(presentBoxed[i], value.clone());
        }
        while (db.rehashStep(1 << 20)) {
            // settle
        }
        // Shuffle access order so lookups are not sequential in memory.
        for (int i = keys - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            byte[] t = present[i];
            present[i] = present[j];
            present[j] = t;
            ByteArrayKey b = presentBoxed[i];
            presentBoxed[i] = presentBoxed[j];
            presentBoxed[j] = b;
        }
        lookup = new byte[keys][];
        for (int i = 0; i < keys; i++) {
            lookup[i] = present[i].clone();
        }
        fresh = new byte[keys][];
        for (int i = 0; i < keys; i++) {
            fresh[i] = randomKey(rnd);
        }
    }

    private static byte[] randomKey(SplittableRandom rnd) {
        byte[] k = new byte[16];
        for (int i = 0; i < 16; i++) {
            k[i] = (byte) ('a' + rnd.nextInt(26));
        }
        return k;
    }

    /** Put-new needs an empty-ish target: each iteration starts from the loaded tables again. */
    @Setup(Level.Iteration)
    public void resetFresh() {
        for (int i = 0; i < freshCursor; i++) {
            db.remove(fresh[i]);
            map.remove(new ByteArrayKey(fresh[i]));
        }
        freshCursor = 0;
    }

    private int next() {
        int i = cursor;
        cursor = i + 1 == keys ? 0 : i + 1;
        return i;
    }

    private byte[] nextFresh() {
        int i = freshCursor;
        if (i == keys) {
            // Ran out within one iteration: reuse as overwrites rather than fail.
            i = 0;
            freshCursor = 0;
        }
        freshCursor = i + 1;
        return fresh[i];
    }

    @Benchmark
    public int tideGetHit() {
        byte[] v = (byte[]) db.get(lookup[next()], NOW);
        return v[0] + v[v.length - 1];
    }

    /** GET's lookup: the value read where the entry holds it, not copied out (what a GET reply is written from). */
    @Benchmark
    public int tideGetInPlace() {
        if (db.getInPlace(lookup[next()], NOW, true) != Database.EMBEDDED) throw new IllegalStateException();
        byte[] e = db.inPlaceArray();
        return e[db.inPlaceOffset()] + e[e.length - 1];
    }

    private static final int BATCH = 16;

    private int batchStart() {
        int i = cursor;
        cursor = i + BATCH > keys - BATCH ? 0 : i + BATCH;
        return i;
    }

    private int getBatch(int start) {
        int acc = 0;
        for (int k = start; k < start + BATCH; k++) {
            if (db.getInPlace(lookup[k], NOW, true) != Database.EMBEDDED) throw new IllegalStateException();
            acc += db.inPlaceArray()[db.inPlaceOffset()];
        }
        return acc;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int batchNoPrefetch() {
        return getBatch(batchStart());
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public int batchPrefetch() {
        int start = batchStart();
        for (int k = start; k < start + BATCH; k++) db.prefetch(lookup[k]);
        db.prefetchEntries();
        return getBatch(start);
    }

    @Benchmark
    public int hashMapGetHit() {
        byte[] v = map.get(new ByteArrayKey(lookup[next()]));
        return v[0] + v[v.length - 1];
    }

    @Benchmark
    public void tidePutOverwrite() {
        db.put(lookup[next()], value, 0, NOW);
    }

    /** INCR's pattern: a read for writing, then a write of the same key array (the second finds the first's slot). */
    @Benchmark
    public void tideReadThenWrite() {
        byte[] k = lookup[next()];
        if (db.getForWrite(k, NOW) == null) throw new IllegalStateException();
        db.put(k, value, Database.KEEP_TTL, NOW);
    }

    @Benchmark
    public Object hashMapPutOverwrite() {
        return map.put(new ByteArrayKey(lookup[next()]), value);
    }

    @Benchmark
    public void tidePutNew() {
        db.put(nextFresh(), value, 0, NOW);
    }

    @Benchmark
    public Object hashMapPutNew() {
        return map.put(new ByteArrayKey(nextFresh()), value);
    }
}
