package io.tide.util;

/**
 * Thread-safe (stateless). LZF compression in liblzf's format, which Redis uses for compressed RDB strings and
 * quicklist nodes: a control byte below 32 starts a run of {@code ctrl + 1} literal bytes; any other is a back
 * reference of {@code (ctrl >> 5) + 2} bytes (7 in the top bits means a further length byte follows) at distance
 * {@code ((ctrl & 0x1f) << 8 | next byte) + 1} behind the output position.
 */
public final class Lzf {

    private static final int HASH_BITS = 14;
    private static final int MAX_LITERAL = 32;
    private static final int MAX_OFFSET = 1 << 13;
    private static final int MAX_REF = (1 << 8) + (1 << 3);

    private Lzf() {}

    /**
     * Compresses {@code in[off, off + len)} into {@code out} (from 0), using at most {@code maxOut} bytes;
     * returns the compressed length, or 0 when the result would not fit.
     */
    public static int compress(byte[] in, int off, int len, byte[] out, int maxOut) {
        return new Compressor().compress(in, off, len, out, maxOut);
    }

    /**
     * A compressor that keeps its 64 KB hash table between calls, so that compressing many small strings (an RDB
     * of a million values) allocates and clears nothing per string. Not thread-safe: one per user (an RDB writer, a thread compressing list nodes).
     * Its output is exactly {@link Lzf#compress}'s: the table holds positions in one growing virtual space, each
     * call getting a fresh range, and a position from an earlier call counts as empty.
     */
    public static final class Compressor {
        private final int[] table = new int[1 << HASH_BITS];
        /** Virtual position of the next call's first byte; table entries below it are stale. */
        private int base;

        public Compressor() {
            java.util.Arrays.fill(table, -1);
        }

        /** As {@link Lzf#compress}. */
        public int compress(byte[] in, int off, int len, byte[] out, int maxOut) {
            if (len == 0) return 0;
            if (base > Integer.MAX_VALUE - len) { // the virtual space is used up: start it again
                java.util.Arrays.fill(table, -1);
                base = 0;
            }
            int start = base;
            base += len;
            return Lzf.compress(in, off, len, out, maxOut, table, start - off);
        }
    }

    /**
     * The compressor proper. {@code table[h]} holds {@code position + shift} of the last position with hash h;
     * values below {@code off + shift} are from earlier calls and count as empty.
     */
    private static int compress(byte[] in, int off, int len, byte[] out, int maxOut, int[] table, int shift) {
        int floor = off + shift;
        int end = off + len;
        int ip = off;
        int op = 0;
        int litStart = -1; // position in out of the current literal run's control byte
        int litLen = 0;
        while (ip < end) {
            int ref = -1;
            if (ip + 2 < end) {
                int h = hash(in, ip);
                int v = table[h];
                ref = v >= floor ? v - shift : -1;
                table[h] = ip + shift;
                if (ref >= 0 && (ip - ref - 1 >= MAX_OFFSET || in[ref] != in[ip] || in[ref + 1] != in[ip + 1]
                        || in[ref + 2] != in[ip + 2])) {
                    ref = -1;
                }
            }
            if (ref >= 0) {
                int maxLen = Math.min(MAX_REF, end - ip);
                int l = 3;
                while (l < maxLen && in[ref + l] == in[ip + l]) l++;
                int dist = ip - ref - 1;
                int code = l - 2;
                int need = code >= 7 ? 3 : 2;
                if (op + need > maxOut) return 0;
                if (code < 7) {
                    out[op++] = (byte) ((code << 5) | (dist >>> 8));
                } else {
                    out[op++] = (byte) ((7 << 5) | (dist >>> 8));
                    out[op++] = (byte) (code - 7);
                }
                out[op++] = (byte) dist;
                litStart = -1;
                litLen = 0;
                int stop = ip + l;
                ip++;
                for (; ip < stop; ip++) {
                    if (ip + 2 < end) table[hash(in, ip)] = ip + shift;
                }
            } else {
                if (litStart < 0 || litLen == MAX_LITERAL) {
                    if (op + 2 > maxOut) return 0;
                    litStart = op++;
                    litLen = 0;
                } else if (op + 1 > maxOut) {
                    return 0;
                }
                out[op++] = in[ip++];
                litLen++;
                out[litStart] = (byte) (litLen - 1);
            }
        }
        return op;
    }

    private static int hash(byte[] b, int p) {
        int v = (b[p] & 0xff) << 16 | (b[p + 1] & 0xff) << 8 | (b[p + 2] & 0xff);
        return (v * 0x9E3779B1) >>> (32 - HASH_BITS);
    }

    /** Decompresses {@code in[from, from + clen)} into exactly {@code ulen} bytes; null when malformed. */
    public static byte[] decompress(byte[] in, int from, int clen, int ulen) {
        if (ulen < 0 || clen < 0 || from < 0 || from + clen > in.length) return null;
        byte[] out = new byte[ulen];
        int ip = from;
        int end = from + clen;
        int op = 0;
        while (ip < end) {
            int ctrl = in[ip++] & 0xff;
            if (ctrl < 32) {
                int run = ctrl + 1;
                if (op + run > ulen || ip + run > end) return null;
                System.arraycopy(in, ip, out, op, run);
                ip += run;
                op += run;
            } else {
                int len = ctrl >> 5;
                int ref = op - ((ctrl & 0x1f) << 8) - 1;
                if (len == 7) {
                    if (ip >= end) return null;
                    len += in[ip++] & 0xff;
                }
                if (ip >= end) return null;
                ref -= in[ip++] & 0xff;
                len += 2;
                if (ref < 0 || op + len > ulen) return null;
                for (int i = 0; i < len; i++) out[op++] = out[ref++];
            }
        }
        return op == ulen ? out : null;
    }
}
