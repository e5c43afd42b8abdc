package io.tide.script;

import java.math.BigDecimal;
import java.math.MathContext;

/** Lua 5.1's number-to-string rule ({@code "%.14g"}), which LuaJ does not follow. Thread-safe (stateless). */
public final class NumberFormat {

    private static final double[] POW10 = new double[18];

    static {
        double p = 1;
        for (int i = 0; i < POW10.length; i++, p *= 10) POW10[i] = p;
    }

    private NumberFormat() {}

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
