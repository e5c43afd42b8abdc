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

    public static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    public static byte[] bytes(long v) {
        return Long.toString(v).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * Parses a 64-bit integer exactly as Redis's string2ll: optional '-', digits, no leading zeros, no
     * '+', no spaces, within range. Returns false through the exception-free variant.
     */
    public static boolean isLong(byte[] s) {
        return parseLongOrNull(s) != null;
    }

    /** {@code ERR value is not an integer or out of range} unless {@code s} is a valid 64-bit integer. */
    public static long parseLong(byte[] s) {
        Long v = parseLongOrNull(s);
        if (v == null) throw Errors.notInteger();
        return v;
    }

    /** Like {@link #parseLong(byte[])} with a caller-chosen error line. */
    public static long parseLong(byte[] s, String errorLine) {
        Long v = parseLongOrNull(s);
        if (v == null) throw Errors.error(errorLine);
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

    /** An int in [min, max] or {@code ERR value is not an integer or out of range}. */
    public static int parseInt(byte[] s, int min, int max) {
        long v = parseLong(s);
        if (v < min || v > max) throw Errors.notInteger();
        return (int) v;
    }

    /**
     * Parses a double as Redis does with strtod: no leading space, the whole argument consumed,
     * {@code inf}/{@code -inf}/{@code +inf}/{@code infinity} accepted, NaN rejected.
     */
    public static double parseDouble(byte[] s) {
        Double d = parseDoubleOrNull(s);
        if (d == null) throw Errors.notFloat();
        return d;
    }

    public static double parseDouble(byte[] s, String errorLine) {
        Double d = parseDoubleOrNull(s);
        if (d == null) throw Errors.error(errorLine);
        return d;
    }

    public static Double parseDoubleOrNull(byte[] s) {
        int n = s.length;
        if (n == 0 || n > 5000) return null;
        String t = new String(s, StandardCharsets.ISO_8859_1);
        String body = t;
        int sign = 1;
        if (body.startsWith("-")) {
            sign = -1;
            body = body.substring(1);
        } else if (body.startsWith("+")) {
            body = body.substring(1);
        }
        String lb = body.toLowerCase(java.util.Locale.ROOT);
        if (lb.equals("inf") || lb.equals("infinity")) {
            return sign * Double.POSITIVE_INFINITY;
        }
        // strtod's decimal form: digits [. digits] [e[+-]digits]; at least one digit in the mantissa.
        int i = 0;
        int digits = 0;
        int len = body.length();
        while (i < len && Character.isDigit(body.charAt(i)) && body.charAt(i) < 128) {
            i++;
            digits++;
        }
        if (i < len && body.charAt(i) == '.') {
            i++;
            while (i < len && body.charAt(i) >= '0' && body.charAt(i) <= '9') {
                i++;
                digits++;
            }
        }
        if (digits == 0) return null;
        if (i < len && (body.charAt(i) == 'e' || body.charAt(i) == 'E')) {
            i++;
            if (i < len && (body.charAt(i) == '+' || body.charAt(i) == '-')) i++;
            int expDigits = 0;
            while (i < len && body.charAt(i) >= '0' && body.charAt(i) <= '9') {
                i++;
                expDigits++;
            }
            if (expDigits == 0) return null;
        }
        if (i != len) return null;
        double v = Double.parseDouble(t);
        if (Double.isNaN(v)) return null;
        return v;
    }
}
