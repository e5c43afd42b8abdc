package io.tide.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Confined to its shard thread (an instance is a working copy of one value, made and dropped by one command;
 * the static methods are pure). A HyperLogLog in Redis's exact byte layout, so that a value written by Redis
 * (GET there, SET here) counts the same in Tide and PFADD of the same elements produces the same bytes in both.
 *
 * <p>The value is a string: a 16-byte header ({@code "HYLL"}, the encoding byte, three unused bytes, and
 * the cached cardinality as a little-endian 64-bit integer whose top bit set means "stale") followed by
 * the 16384 registers of 6 bits. The <em>dense</em> encoding stores them packed, least significant bits
 * first (12288 bytes). The <em>sparse</em> encoding run-length codes them with three opcodes: ZERO
 * {@code 00xxxxxx} (1..64 zero registers), XZERO {@code 01xxxxxx yyyyyyyy} (1..16384 zero registers) and
 * VAL {@code 1vvvvvxx} (1..4 registers of value 1..32). A sparse value is promoted to dense when a register
 * needs a value above 32 or when an edit would make it longer than {@code hll-sparse-max-bytes}; it is never
 * converted back. Elements are hashed with MurmurHash64A and Redis's seed; cardinality is Ertl's improved
 * estimator over the register histogram, as Redis 5+ computes it.
 *
 * <p>Stored arrays are never mutated: {@link #of(byte[])} copies, and {@link #toBytes()} returns a fresh array.
 */
public final class HyperLogLog {

    public static final int HEADER_SIZE = 16;
    public static final int P = 14;
    public static final int Q = 64 - P;
    public static final int REGISTERS = 1 << P;
    public static final int REGISTER_MAX = 63;
    public static final int DENSE_SIZE = HEADER_SIZE + (REGISTERS * 6 + 7) / 8;
    public static final byte DENSE = 0;
    public static final byte SPARSE = 1;

    private static final int SPARSE_VAL_MAX_VALUE = 32;
    private static final int SPARSE_VAL_MAX_LEN = 4;
    private static final int SPARSE_ZERO_MAX_LEN = 64;
    private static final int SPARSE_XZERO_MAX_LEN = 16384;
    private static final long SEED = 0xadc83b19L;
    private static final double ALPHA_INF = 0.721347520444481703680; // 0.5 / ln(2)
    private static final VarHandle LE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class,
            ByteOrder.LITTLE_ENDIAN);

    /** The value's bytes; only {@code [0, len)} is the value, the rest is room to grow a sparse value. */
    private byte[] buf;
    private int len;

    private HyperLogLog(byte[] buf, int len) {
        this.buf = buf;
        this.len = len;
    }

    /** A new empty HyperLogLog: sparse, one XZERO opcode covering every register, cached cardinality 0. */
    public static HyperLogLog empty() {
        byte[] b = new byte[HEADER_SIZE + 2];
        b[0] = 'H';
        b[1] = 'Y';
        b[2] = 'L';
        b[3] = 'L';
        b[4] = SPARSE;
        setXzero(b, HEADER_SIZE, REGISTERS);
        return new HyperLogLog(b, b.length);
    }

    /** A working copy of a stored value; {@code value} must pass {@link #isValid(byte[])}. */
    public static HyperLogLog of(byte[] value) {
        int room = value[4] == SPARSE ? Math.max(8, value.length / 4) : 0;
        return new HyperLogLog(Arrays.copyOf(value, value.length + room), value.length);
    }

    /**
     * Whether a string is a HyperLogLog as far as Redis checks before using one: at least a header,
     * the magic, a known encoding, and the exact length when dense. A sparse body is validated as it is read.
     */
    public static boolean isValid(byte[] v) {
        if (v.length < HEADER_SIZE) return false;
        if (v[0] != 'H' || v[1] != 'Y' || v[2] != 'L' || v[3] != 'L') return false;
        int encoding = v[4] & 0xff;
        if (encoding > SPARSE) return false;
        return encoding != DENSE || v.length == DENSE_SIZE;
    }

    /**
     * Whether {@code v[0, length)} is a dense HyperLogLog as {@link #isValid} checks one: the magic, the dense
     * encoding and the dense length ({@code v} may be longer: a RawString's array).
     */
    public static boolean isDense(byte[] v, int length) {
        return length == DENSE_SIZE && v[0] == 'H' && v[1] == 'Y' && v[2] == 'L' && v[3] == 'L' && v[4] == DENSE;
    }

    /**
     * Adds {@code element} to the dense value {@code v} where it lies (an array nothing else shares): true if a
     * register grew. The caller then invalidates the cached cardinality ({@link #invalidateCache(byte[])}).
     */
    public static boolean denseAdd(byte[] v, byte[] element) {
        long rr = registerAndRun(element);
        return denseSet(v, (int) rr, (int) (rr >>> 32));
    }

    /** Marks the cached cardinality of {@code v} stale, in place. */
    public static void invalidateCache(byte[] v) {
        v[15] |= (byte) 0x80;
    }

    /** Encoding byte of a valid value: {@link #DENSE} or {@link #SPARSE}. */
    public static int encoding(byte[] v) {
        return v[4];
    }

    public boolean isSparse() {
        return buf[4] == SPARSE;
    }

    /** Length in bytes of the value. */
    public int length() {
        return len;
    }

    /** A fresh array holding the value. */
    public byte[] toBytes() {
        return Arrays.copyOf(buf, len);
    }

    // ------------------------------------------------------------------ cached cardinality

    public static boolean cacheValid(byte[] v) {
        return (v[15] & 0x80) == 0;
    }

    public static long cachedCardinality(byte[] v) {
        return (long) LE_LONG.get(v, 8);
    }

    /** Writes {@code card} as the (valid) cached cardinality of {@code v}, in place: an array nothing else shares. */
    public static void setCachedCardinality(byte[] v, long card) {
        LE_LONG.set(v, 8, card);
    }

    public void invalidateCache() {
        invalidateCache(buf);
    }

    // ------------------------------------------------------------------ hashing

    /** Redis's MurmurHash64A (MurmurHash2, 64-bit, little-endian reads) of {@code key} with {@code seed}. */
    public static long murmurHash64A(byte[] key, long seed) {
        final long m = 0xc6a4a7935bd1e995L;
        final int r = 47;
        int n = key.length;
        long h = (seed & 0xffffffffL) ^ (n * m);
        int whole = n - (n & 7);
        for (int i = 0; i < whole; i += 8) {
            long k = (long) LE_LONG.get(key, i);
            k *= m;
            k ^= k >>> r;
            k *= m;
            h ^= k;
            h *= m;
        }
        int rest = n & 7;
        if (rest > 0) {
            for (int i = rest - 1; i >= 0; i--) {
                h ^= (long) (key[whole + i] & 0xff) << (8 * i);
            }
            h *= m;
        }
        h ^= h >>> r;
        h *= m;
        h ^= h >>> r;
        return h;
    }

    /** The register an element hashes to, in the low 32 bits, and its run length ("000..1" pattern) above them. */
    static long registerAndRun(byte[] element) {
        long hash = murmurHash64A(element, SEED);
        long index = hash & (REGISTERS - 1);
        hash >>>= P;
        hash |= 1L << Q; // the loop ends by bit Q, so the run is at most Q + 1
        long run = Long.numberOfTrailingZeros(hash) + 1;
        return run << 32 | index;
    }

    // ------------------------------------------------------------------ adding

    /**
     * Adds an element: 1 if a register grew, 0 if not, -1 if the sparse value is corrupt (a register
     * may then have been updated before the corruption was found, as in Redis).
     */
    public int add(byte[] element, long sparseMaxBytes) {
        long rr = registerAndRun(element);
        return set((int) rr, (int) (rr >>> 32), sparseMaxBytes);
    }

    /** Raises register {@code index} to {@code count} if lower: 1 if it changed, 0 if not, -1 if corrupt. */
    public int set(int index, int count, long sparseMaxBytes) {
        if (buf[4] == DENSE) return denseSet(buf, index, count) ? 1 : 0;
        return sparseSet(index, count, sparseMaxBytes);
    }

    /** Converts a sparse value to dense (no-op when dense); false if the sparse value is corrupt. */
    public boolean toDense() {
        if (buf[4] == DENSE) return true;
        byte[] dense = new byte[DENSE_SIZE];
        System.arraycopy(buf, 0, dense, 0, HEADER_SIZE);
        dense[4] = DENSE;
        boolean whole = forEachRun(buf, len, (from, runlen, value) -> {
            if (value == 0) return;
            for (int i = from; i < from + runlen; i++) denseWrite(dense, i, value);
        });
        if (!whole) return false;
        buf = dense;
        len = DENSE_SIZE;
        return true;
    }

    private int sparseSet(int index, int count, long sparseMaxBytes) {
        if (count > SPARSE_VAL_MAX_VALUE) return promote(index, count);

        // Step 1: find the opcode covering the register.
        int p = HEADER_SIZE;
        int end = len;
        long first = 0; // long, as in Redis since 7.4.5: a corrupt value may hold more runs than registers
        int prev = -1;
        int span = 0;
        while (p < end) {
            int op = buf[p] & 0xff;
            int oplen = 1;
            if ((op & 0xc0) == 0) {
                span = (op & 0x3f) + 1;
            } else if ((op & 0x80) != 0) {
                span = (op & 3) + 1;
            } else {
                span = xzeroLen(p);
                oplen = 2;
            }
            if (index <= first + span - 1) break;
            prev = p;
            p += oplen;
            first += span;
        }
        if (span == 0 || p >= end) return -1;

        int op = buf[p] & 0xff;
        boolean isXzero = (op & 0xc0) == 0x40;
        boolean isZero = (op & 0xc0) == 0;
        boolean isVal = (op & 0x80) != 0;
        int next = isXzero ? p + 2 : p + 1;
        if (next >= end) next = -1;
        int runlen = isZero ? (op & 0x3f) + 1 : isXzero ? xzeroLen(p) : (op & 3) + 1;

        // Step 2: the easy cases, then the general split of the opcode into up to three.
        boolean updatedInPlace = false;
        if (isVal) {
            int old = ((op >> 2) & 0x1f) + 1;
            if (old >= count) return 0;
            if (runlen == 1) {
                buf[p] = val(count, 1);
                updatedInPlace = true;
            }
        }
        if (!updatedInPlace && isZero && runlen == 1) {
            buf[p] = val(count, 1);
            updatedInPlace = true;
        }
        if (!updatedInPlace) {
            byte[] seq = new byte[5];
            int n = 0;
            int last = (int) (first + span - 1);
            int before = (int) (index - first);
            if (isZero || isXzero) {
                if (before != 0) n = putZeros(seq, n, before);
                seq[n++] = val(count, 1);
                if (index != last) n = putZeros(seq, n, last - index);
            } else {
                int cur = ((op >> 2) & 0x1f) + 1;
                if (before != 0) seq[n++] = val(cur, before);
                seq[n++] = val(count, 1);
                if (index != last) seq[n++] = val(cur, last - index);
            }

            // Step 3: replace the old opcode with the sequence, promoting when it would grow too long.
            int oldlen = isXzero ? 2 : 1;
            int delta = n - oldlen;
            if (delta > 0 && (long) len + delta > sparseMaxBytes) return promote(index, count);
            if (len + Math.max(delta, 0) > buf.length) {
                int grown = len + 3;
                grown += Math.min(grown, 300);
                buf = Arrays.copyOf(buf, Math.max(grown, len + delta));
            }
            if (delta != 0 && next >= 0) System.arraycopy(buf, next, buf, next + delta, end - next);
            len += delta;
            System.arraycopy(seq, 0, buf, p, n);
            end += delta;
        }

        // Step 4: merge adjacent VAL opcodes of equal value, scanning at most five opcodes from prev.
        p = prev >= 0 ? prev : HEADER_SIZE;
        int scan = 5;
        while (p < end && scan-- > 0) {
            int o = buf[p] & 0xff;
            if ((o & 0xc0) == 0x40) {
                p += 2;
                continue;
            } else if ((o & 0xc0) == 0) {
                p++;
                continue;
            }
            if (p + 1 < end && (buf[p + 1] & 0x80) != 0) {
                int o2 = buf[p + 1] & 0xff;
                int v1 = ((o >> 2) & 0x1f) + 1;
                int v2 = ((o2 >> 2) & 0x1f) + 1;
                if (v1 == v2) {
                    int merged = (o & 3) + 1 + (o2 & 3) + 1;
                    if (merged <= SPARSE_VAL_MAX_LEN) {
                        buf[p + 1] = val(v1, merged);
                        System.arraycopy(buf, p + 1, buf, p, end - p - 1);
                        len--;
                        end--;
                        continue;
                    }
                }
            }
            p++;
        }
        invalidateCache();
        return 1;
    }

    private int promote(int index, int count) {
        if (!toDense()) return -1;
        denseSet(buf, index, count);
        return 1;
    }

    private int xzeroLen(int p) {
        int lo = p + 1 < len ? buf[p + 1] & 0xff : 0;
        return ((((buf[p] & 0xff) & 0x3f) << 8) | lo) + 1;
    }

    private static int putZeros(byte[] seq, int n, int zeros) {
        if (zeros > SPARSE_ZERO_MAX_LEN) {
            setXzero(seq, n, zeros);
            return n + 2;
        }
        seq[n] = (byte) (zeros - 1);
        return n + 1;
    }

    private static void setXzero(byte[] b, int at, int zeros) {
        int l = zeros - 1;
        b[at] = (byte) ((l >> 8) | 0x40);
        b[at + 1] = (byte) (l & 0xff);
    }

    private static byte val(int value, int runlen) {
        return (byte) (((value - 1) << 2 | (runlen - 1)) | 0x80);
    }

    // ------------------------------------------------------------------ dense registers

    private static int denseGet(byte[] v, int regnum) {
        int at = HEADER_SIZE + regnum * 6 / 8;
        int fb = regnum * 6 & 7;
        int b0 = v[at] & 0xff;
        int b1 = at + 1 < DENSE_SIZE ? v[at + 1] & 0xff : 0;
        return ((b0 >> fb) | (b1 << (8 - fb))) & REGISTER_MAX;
    }

    private static void denseWrite(byte[] v, int regnum, int value) {
        int at = HEADER_SIZE + regnum * 6 / 8;
        int fb = regnum * 6 & 7;
        v[at] = (byte) ((v[at] & ~(REGISTER_MAX << fb)) | (value << fb));
        if (fb > 2) {
            int fb8 = 8 - fb;
            v[at + 1] = (byte) ((v[at + 1] & ~(REGISTER_MAX >> fb8)) | (value >> fb8));
        }
    }

    private static boolean denseSet(byte[] v, int regnum, int count) {
        if (count > denseGet(v, regnum)) {
            denseWrite(v, regnum, count);
            return true;
        }
        return false;
    }

    // ------------------------------------------------------------------ counting and merging

    /** The estimated cardinality of a valid value, or -1 when its sparse body is corrupt. */
    public static long count(byte[] v) {
        int[] histo = new int[64];
        if (v[4] == DENSE) {
            for (int i = 0; i < REGISTERS; i++) histo[denseGet(v, i)]++;
        } else if (!sparseHistogram(v, histo)) {
            return -1;
        }
        return estimate(histo);
    }

    /** The estimated cardinality of bare registers (one byte each), as multi-key PFCOUNT builds them. */
    public static long countRegisters(byte[] registers) {
        int[] histo = new int[64];
        for (byte r : registers) histo[r]++;
        return estimate(histo);
    }

    /**
     * Raises each of {@code max}'s {@link #REGISTERS} one-byte registers to the value's register; false
     * when the value's sparse body is corrupt ({@code max} may then be partly updated).
     */
    public static boolean mergeInto(byte[] max, byte[] v) {
        if (v[4] == DENSE) {
            for (int i = 0; i < REGISTERS; i++) {
                int r = denseGet(v, i);
                if (r > max[i]) max[i] = (byte) r;
            }
            return true;
        }
        return forEachRun(v, v.length, (from, runlen, value) -> {
            if (value == 0) return;
            for (int i = from; i < from + runlen; i++) {
                if (value > max[i]) max[i] = (byte) value;
            }
        });
    }

    private static boolean sparseHistogram(byte[] v, int[] histo) {
        return forEachRun(v, v.length, (from, runlen, value) -> histo[value] += runlen);
    }

    /** Receives a sparse body's runs: {@code runlen} registers from register {@code from}, all {@code value}. */
    private interface RunVisitor {
        void run(int from, int runlen, int value);
    }

    /**
     * Walks the runs of the sparse body in {@code v[HEADER_SIZE..end)} (ZERO and XZERO runs have value 0);
     * false, stopping before the offending run, when it is corrupt: a run past the last register, or fewer
     * runs than the registers.
     */
    private static boolean forEachRun(byte[] v, int end, RunVisitor visitor) {
        int idx = 0;
        int p = HEADER_SIZE;
        while (p < end) {
            int op = v[p] & 0xff;
            int runlen;
            int value = 0;
            if ((op & 0xc0) == 0) {
                runlen = (op & 0x3f) + 1;
                p++;
            } else if ((op & 0xc0) == 0x40) {
                runlen = (((op & 0x3f) << 8) | (p + 1 < end ? v[p + 1] & 0xff : 0)) + 1;
                p += 2;
            } else {
                runlen = (op & 3) + 1;
                value = ((op >> 2) & 0x1f) + 1;
                p++;
            }
            if (runlen + idx > REGISTERS) return false;
            visitor.run(idx, runlen, value);
            idx += runlen;
        }
        return idx == REGISTERS;
    }

    /** Ertl's estimator ("New cardinality estimation algorithms for HyperLogLog sketches") as Redis computes it. */
    static long estimate(int[] histo) {
        double m = REGISTERS;
        double z = m * tau((m - histo[Q + 1]) / m);
        for (int j = Q; j >= 1; --j) {
            z += histo[j];
            z *= 0.5;
        }
        z += m * sigma(histo[0] / m);
        return Math.round(ALPHA_INF * m * m / z);
    }

    private static double sigma(double x) {
        if (x == 1.) return Double.POSITIVE_INFINITY;
        double zPrime;
        double y = 1;
        double z = x;
        do {
            x *= x;
            zPrime = z;
            z += x * y;
            y += y;
        } while (zPrime != z);
        return z;
    }

    private static double tau(double x) {
        if (x == 0. || x == 1.) return 0.;
        double zPrime;
        double y = 1.0;
        double z = 1 - x;
        do {
            x = Math.sqrt(x);
            zPrime = z;
            y *= 0.5;
            double d = 1 - x;
            z -= d * d * y;
        } while (zPrime != z);
        return z / 3;
    }

    // ------------------------------------------------------------------ inspection (PFDEBUG)

    /** The register values of a valid value (dense or sparse; sparse must not be corrupt). */
    public static int[] registers(byte[] v) {
        int[] out = new int[REGISTERS];
        if (v[4] == DENSE) {
            for (int i = 0; i < REGISTERS; i++) out[i] = denseGet(v, i);
            return out;
        }
        byte[] max = new byte[REGISTERS];
        mergeInto(max, v);
        for (int i = 0; i < REGISTERS; i++) out[i] = max[i];
        return out;
    }

    /** PFDEBUG DECODE's text of a sparse value's opcodes: {@code z:len}, {@code Z:len}, {@code v:value,len}. */
    public static String decodeSparse(byte[] v) {
        StringBuilder sb = new StringBuilder();
        int p = HEADER_SIZE;
        while (p < v.length) {
            int op = v[p] & 0xff;
            if ((op & 0xc0) == 0) {
                sb.append("z:").append((op & 0x3f) + 1).append(' ');
                p++;
            } else if ((op & 0xc0) == 0x40) {
                int lo = p + 1 < v.length ? v[p + 1] & 0xff : 0;
                sb.append("Z:").append((((op & 0x3f) << 8) | lo) + 1).append(' ');
                p += 2;
            } else {
                sb.append("v:").append(((op >> 2) & 0x1f) + 1).append(',').append((op & 3) + 1).append(' ');
                p++;
            }
        }
        return sb.toString().strip();
    }
}
