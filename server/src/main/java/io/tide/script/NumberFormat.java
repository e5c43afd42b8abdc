package io.tide.script;

import java.math.BigDecimal;
import java.math.MathContext;

/**
 * C's printf number forms, which Java's Formatter does not follow: Lua 5.1's number-to-string rule ({@code "%.14g"},
 * which LuaJ does not follow either) and {@code "%.Nf"} (Redis's INFO, GEODIST, LATENCY DOCTOR). C rounds a double's
 * exact binary value, ties to even; Java's {@code %.2f} rounds its shortest decimal text half up (0.125 gives 0.13
 * where C gives 0.12, 1.005 gives 1.01 where C gives 1.00). Thread-safe (stateless).
 */
public final class NumberFormat {

    private static final double[] POW10 = new double[18];

    static {
        double p = 1;
        for (int i = 0; i < POW10.length; i++, p *= 10) POW10[i] = p;
    }

    private NumberFormat() {}

    /** C's {@code printf("%.<decimals>f", d)}: nan, inf, -inf, and the sign of a negative value that rounds to 0. */
    public static String f(double d, int decimals) {
        if (Double.isNaN(d)) return Double.doubleToRawLongBits(d) < 0 ? "-nan" : "nan";
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        String s = new BigDecimal(d).setScale(decimals, java.math.RoundingMode.HALF_EVEN).toPlainString();
        boolean negative = d < 0 || (d == 0 && 1 / d < 0);
        return negative && !s.startsWith("-") ? "-" + s : s;
    }

    /** C's {@code printf("%.14g", d)}. */
    public static String g14(double d) {
        return g(d, 14);
    }

    /** C's {@code printf("%.<precision>g", d)}. */
    public static String g(double d, int precision) {
        if (Double.isNaN(d)) return d != d && Double.doubleToRawLongBits(d) < 0 ? "-nan" : "nan";
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        if (d == 0) return (1 / d < 0) ? "-0" : "0";
        // An integer of at most `precision` digits prints as itself: the common case (counters, TTLs, indexes)
        // skips BigDecimal, which a script pays per number it passes to redis.call.
        if (d == Math.rint(d) && precision >= 1 && precision <= 17 && Math.abs(d) < POW10[precision]) {
            return Long.toString((long) d);
        }
        BigDecimal bd = new BigDecimal(d).round(new MathContext(precision, java.math.RoundingMode.HALF_EVEN));
        int exp = bd.precision() - bd.scale() - 1;
        if (exp < -4 || exp >= precision) {
            BigDecimal mant = bd.movePointLeft(exp);
            String m = strip(mant.setScale(precision - 1, java.math.RoundingMode.HALF_EVEN).toPlainString());
            String e = Integer.toString(Math.abs(exp));
            if (e.length() < 2) e = "0" + e;
            return m + "e" + (exp < 0 ? "-" : "+") + e;
        }
        int scale = Math.max(0, precision - 1 - exp);
        return strip(bd.setScale(scale, java.math.RoundingMode.HALF_EVEN).toPlainString());
    }

    private static String strip(String s) {
        if (s.indexOf('.') < 0) return s;
        int end = s.length();
        while (s.charAt(end - 1) == '0') end--;
        if (s.charAt(end - 1) == '.') end--;
        return s.substring(0, end);
    }
}
