package io.tide.command;

import java.nio.charset.StandardCharsets;

/**
 * Argument parsing with Redis's exact acceptance rules (string2ll, strtod) and errors. Thread-safe.
 */
public final class Args {

    private Args() {}

    /** True if {@code arg} equals the ASCII word {@code lower} ignoring case ({@code lower} must be lower case). */
    public static boolean is(byte[] arg, String lower) {
        return CommandTable.equalsIgnoreCase(lower, arg);
    }

    /** Lower-case ASCII text of an argument (for option names). */
    public static String lower(byte[] arg) {
        char[] ch = new char[arg.length];
        for (int i = 0; i < arg.length; i++) {
            int x = arg[i] & 0xff;
            ch[i] = (char) (x >= 'A' && x <= 'Z' ? x + 32 : x);
        }
        return new String(ch);
    }

    public static String text(byte[] arg) {
        return new String(arg, StandardCharsets.UTF_8);
    }

    public static byte[] bytes(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }

    /** {@code ERR value is not an integer or out of range} unless {@code s} is a valid 64-bit integer. */
    public static long parseLong(byte[] s) {
        Long v = parseLongOrNull(s);
        if (v == null) throw Errors.notInteger();
        return v;
    }

    /** A 64-bit integer or null, with string2ll's rules. */
    public static Long parseLongOrNull(byte[] s) {
        int n = s.length;
        if (n == 0 || n > 20) return null;
        if (n == 1 && s[0] == '0') return 0L;
        int i = 0;
        boolean neg = false;
        if (s[0] == '-') {
            neg = true;
            i = 1;
            if (n == 1) return null;
        }
        if (s[i] < '1' || s[i] > '9') return null;
        long acc = 0; // accumulate negatively to reach Long.MIN_VALUE
        for (; i < n; i++) {
            int d = s[i] - '0';
            if (d < 0 || d > 9) return null;
            if (acc < (Long.MIN_VALUE + d) / 10) return null;
            acc = acc * 10 - d;
        }
        if (neg) return acc;
        if (acc == Long.MIN_VALUE) return null;
        return -acc;
    }

    /**
     * A 32-bit integer as Redis's getIntFromObjectOrReply parses it: {@code ERR value is not an integer or
     * out of range} for a bad integer, Redis's out-of-range text past 32 bits; {@code errorLine}, when
     * given, replaces both.
     */
    public static int parseInt(byte[] s, String errorLine) {
        Long v = parseLongOrNull(s);
        if (v == null) throw Errors.error(errorLine != null ? errorLine : Errors.NOT_INTEGER);
        if (v < Integer.MIN_VALUE || v > Integer.MAX_VALUE) {
            throw Errors.error(errorLine != null ? errorLine : Errors.NOT_INT32);
        }
        return v.intValue();
    }
}
