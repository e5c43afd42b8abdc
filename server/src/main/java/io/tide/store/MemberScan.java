package io.tide.store;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The comparison a listpack scan makes with each entry of the sought member's length. Members of one collection often
 * share a prefix and a length ({@code member:000000012345}), so the scan compares the last 8 bytes first, as one load:
 * a different member fails there without a call into the JDK's vectorised comparison of the whole.
 */
final class MemberScan {
    private static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private MemberScan() {}

    /** The last 8 bytes of {@code a[from, from + len)} as one value; all of them, packed, when fewer. */
    static long tail(byte[] a, int from, int len) {
        if (len >= 8) return (long) LONG.get(a, from + len - 8);
        long v = 0;
        for (int i = from, end = from + len; i < end; i++) v = v << 8 | (a[i] & 0xff);
        return v;
    }

    /** Whether {@code buf[start, start + m.length)} equals {@code m}, whose {@link #tail} is {@code mTail}. */
    static boolean equalsAt(byte[] buf, int start, byte[] m, long mTail) {
        int n = m.length;
        return tail(buf, start, n) == mTail && (n <= 8 || Arrays.equals(buf, start, start + n - 8, m, 0, n - 8));
    }
}
