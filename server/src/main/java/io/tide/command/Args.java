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

    /** True if some argument from index {@code from} on is the word {@code lower} ({@link #is}). */
    public static boolean has(byte[][] argv, int from, String lower) {
        for (int i = from; i < argv.length; i++) if (is(argv[i], lower)) return true;
        return false;
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

    /**
     * C's atoi, as Redis reads some arguments (MIGRATE's port, numkeys in LMPOP's and EVAL's getkeys functions):
     * glibc's {@code (int) strtol(s, NULL, 10)}, so leading white space, a sign, then digits up to the first other
     * byte (0 when there are none), clamped to the 64-bit range and then cut to its low 32 bits.
     */
    public static long atoi(byte[] s) {
        int i = 0;
        while (i < s.length && (s[i] == ' ' || (s[i] >= '\t' && s[i] <= '\r'))) i++;
        boolean neg = false;
        if (i < s.length && (s[i] == '+' || s[i] == '-')) neg = s[i++] == '-';
        long v = 0; // accumulated negatively, so that Long.MIN_VALUE fits
        boolean overflow = false;
        while (i < s.length && s[i] >= '0' && s[i] <= '9') {
            int d = s[i++] - '0';
            if (v < (Long.MIN_VALUE + d) / 10) overflow = true;
            if (!overflow) v = v * 10 - d;
        }
        long l = overflow ? (neg ? Long.MIN_VALUE : Long.MAX_VALUE) : (neg ? v : (v == Long.MIN_VALUE ? Long.MAX_VALUE : -v));
        return (int) l;
    }

    /** The ASCII bytes of a command or option name. */
    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
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

    /**
     * An integer in [-LONG_MAX, LONG_MAX], as Redis's getRangeLongFromObjectOrReply checks SRANDMEMBER's,
     * HRANDFIELD's and ZRANDMEMBER's count, LPOS's RANK and LREM's count: {@code ERR value is not an integer
     * or out of range} for a bad integer, {@link Errors#NOT_IN_LONG_RANGE} for LONG_MIN.
     */
    public static long parseSymmetricLong(byte[] s) {
        long v = parseLong(s);
        if (v == Long.MIN_VALUE) throw Errors.error(Errors.NOT_IN_LONG_RANGE);
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

    /**
     * A blocking command's timeout in seconds (BLPOP, BZPOPMIN, ...), as Redis's getTimeoutFromObjectOrReply
     * parses it: a float, rounded up to whole milliseconds. Returns the absolute deadline in unix ms, or 0
     * for "forever" (a timeout of 0).
     */
    public static long timeoutSeconds(byte[] s, long nowMs) {
        double secs = parseTimeoutFloat(s);
        double ms = secs * 1000.0;
        if (ms > Long.MAX_VALUE) throw Errors.error(Errors.TIMEOUT_OUT_OF_RANGE);
        return deadline((long) Math.ceil(ms), nowMs);
    }

    /** Like {@link #timeoutSeconds} for a timeout in integer milliseconds (XREAD BLOCK, WAIT). */
    public static long timeoutMillis(byte[] s, long nowMs) {
        Long ms = parseLongOrNull(s);
        if (ms == null) throw Errors.error(Errors.TIMEOUT_NOT_INTEGER);
        return deadline(ms, nowMs);
    }

    private static long deadline(long ms, long nowMs) {
        if (ms < 0) throw Errors.error(Errors.TIMEOUT_NEGATIVE);
        if (ms == 0) return 0;
        if (ms > Long.MAX_VALUE - nowMs) throw Errors.error(Errors.TIMEOUT_OUT_OF_RANGE);
        return ms + nowMs;
    }

    private static double parseTimeoutFloat(byte[] s) {
        String t = text(s);
        if (t.isEmpty() || t.length() > 5000 || Character.isWhitespace(t.charAt(0))
                || Character.isWhitespace(t.charAt(t.length() - 1))) {
            throw Errors.error(Errors.TIMEOUT_NOT_FLOAT);
        }
        String body = t.startsWith("-") || t.startsWith("+") ? t.substring(1) : t;
        String lowerBody = body.toLowerCase(java.util.Locale.ROOT);
        if (lowerBody.equals("inf") || lowerBody.equals("infinity")) {
            return t.startsWith("-") ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
        }
        // strtold's syntax: decimal, or hexadecimal ("0x10" is 16); Java alone would also take "1d", "1f", "NaN".
        if (lowerBody.matches("0x([0-9a-f]+\\.?[0-9a-f]*|\\.[0-9a-f]+)(p[+-]?\\d+)?")) {
            String hex = lowerBody.contains("p") ? lowerBody : lowerBody + "p0";
            double d = Double.parseDouble(hex);
            return t.startsWith("-") ? -d : d;
        }
        if (!lowerBody.matches("(\\d+\\.?\\d*|\\.\\d+)(e[+-]?\\d+)?")) {
            throw Errors.error(Errors.TIMEOUT_NOT_FLOAT);
        }
        return Double.parseDouble(t);
    }
}
