package io.tide.script;

import java.io.ByteArrayOutputStream;
import java.math.BigDecimal;
import java.math.MathContext;
import java.math.RoundingMode;
import java.util.function.Function;
import org.luaj.vm2.LuaError;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaValue;
import org.luaj.vm2.Varargs;

/**
 * Lua 5.1's {@code string.format}, which Redis's scripts get: each directive is C's printf with flags {@code -+ #0},
 * a width and a precision of at most two digits each. LuaJ's own ignores widths and precisions of numbers ("%.2f"
 * of 2.0005 gave "2.0005", "%g" the shortest text of the double). Integers ({@code d i o u x X c}) are the number
 * cast to a 64-bit integer, as Lua 5.1 casts to {@code long long}; floats follow C's exact-binary, ties-to-even
 * rounding ({@link NumberFormat}); {@code %s} takes strings and numbers (numbers as {@code %.14g}), {@code %q}
 * quotes as Lua 5.1 does. Errors carry Lua 5.1's texts. Thread-safe (stateless).
 */
final class LuaFormat {

    private static final String FLAGS = "-+ #0";

    private LuaFormat() {}

    /** {@code string.format(a...)}; {@code error} turns a message into the error the script sees. */
    static LuaString format(Varargs a, Function<String, LuaError> error) {
        LuaString f = a.checkstring(1);
        byte[] fmt = f.m_bytes;
        int end = f.m_offset + f.m_length;
        ByteArrayOutputStream out = new ByteArrayOutputStream(f.m_length + 16);
        int arg = 1;
        for (int i = f.m_offset; i < end; ) {
            byte c = fmt[i++];
            if (c != '%') {
                out.write(c);
                continue;
            }
            if (i < end && fmt[i] == '%') {
                out.write('%');
                i++;
                continue;
            }
            // Lua 5.1: the argument must exist, then scanformat reads flags and at most two digits of width and
            // of precision
            if (++arg > a.narg()) throw error.apply("bad argument #" + arg + " to 'format' (no value)");
            int start = i;
            while (i < end && FLAGS.indexOf(fmt[i]) >= 0) i++;
            if (i - start > FLAGS.length()) throw error.apply("invalid format (repeated flags)");
            String flags = new String(fmt, start, i - start, java.nio.charset.StandardCharsets.ISO_8859_1);
            int width = -1;
            for (int d = 0; d < 2 && i < end && isDigit(fmt[i]); d++) {
                width = Math.max(width, 0) * 10 + (fmt[i++] - '0');
            }
            int precision = -1;
            if (i < end && fmt[i] == '.') {
                i++;
                precision = 0;
                for (int d = 0; d < 2 && i < end && isDigit(fmt[i]); d++) precision = precision * 10 + (fmt[i++] - '0');
            }
            if (i < end && isDigit(fmt[i])) throw error.apply("invalid format (width or precision too long)");
            int conv = i < end ? fmt[i++] & 0xff : 0;
            switch (conv) {
                case 'c' -> { // C's sprintf, then strlen: a NUL ends the item
                    ByteArrayOutputStream item = new ByteArrayOutputStream();
                    pad(item, flags, width, new byte[] {(byte) toLong(a, arg, error)});
                    byte[] b = item.toByteArray();
                    int nul = indexOf(b, (byte) 0);
                    out.write(b, 0, nul < 0 ? b.length : nul);
                }
                case 'd', 'i' -> pad(out, flags, width, integer(toLong(a, arg, error), flags, precision, false, 10));
                case 'o' -> pad(out, flags, width, integer(toUnsigned(a, arg, error), flags, precision, true, 8));
                case 'u' -> pad(out, flags, width, integer(toUnsigned(a, arg, error), flags, precision, true, 10));
                case 'x' -> pad(out, flags, width, integer(toUnsigned(a, arg, error), flags, precision, true, 16));
                case 'X' -> pad(out, flags, width,
                        upper(integer(toUnsigned(a, arg, error), flags, precision, true, 16)));
                case 'e', 'E', 'f', 'g', 'G' -> pad(out, flags, width,
                        floating(number(a, arg, error), flags, precision, (char) conv));
                case 'q' -> quoted(out, string(a, arg, error));
                case 's' -> {
                    LuaString s = string(a, arg, error);
                    if (precision < 0 && s.m_length >= 100) { // Lua 5.1 adds a long string whole, unformatted
                        out.write(s.m_bytes, s.m_offset, s.m_length);
                    } else {
                        int n = precision < 0 ? s.m_length : Math.min(precision, s.m_length);
                        for (int k = 0; k < n; k++) if (s.m_bytes[s.m_offset + k] == 0) n = k; // C's %s ends at a NUL
                        byte[] b = new byte[n];
                        System.arraycopy(s.m_bytes, s.m_offset, b, 0, n);
                        pad(out, flags, width, b);
                    }
                }
                // Lua 5.1 writes the option with %c, which drops a NUL (the format's end)
                default -> throw error.apply("invalid option '%" + (conv == 0 ? "" : String.valueOf((char) conv))
                        + "' to 'format'");
            }
        }
        return LuaString.valueUsing(out.toByteArray());
    }

    private static boolean isDigit(byte b) {
        return b >= '0' && b <= '9';
    }

    private static double number(Varargs a, int arg, Function<String, LuaError> error) {
        LuaValue v = a.arg(arg);
        LuaValue n = v.tonumber();
        if (n.isnil()) throw badArgument(error, arg, "number", v);
        return n.todouble();
    }

    /** The number cast to {@code long long} as x86-64 does: out of range (and nan) gives Long.MIN_VALUE. */
    private static long toLong(Varargs a, int arg, Function<String, LuaError> error) {
        double d = number(a, arg, error);
        return d >= -0x1p63 && d < 0x1p63 ? (long) d : Long.MIN_VALUE;
    }

    /**
     * The number cast to {@code unsigned long} as gcc does on x86-64: from 2^63 up, 2^63 less, converted, with the top
     * bit flipped (so what is out of range, infinity included, gives 0); below, as a signed cast.
     */
    private static long toUnsigned(Varargs a, int arg, Function<String, LuaError> error) {
        double d = number(a, arg, error);
        if (d >= 0x1p63) {
            double r = d - 0x1p63;
            return (r < 0x1p63 ? (long) r : Long.MIN_VALUE) ^ Long.MIN_VALUE;
        }
        return d >= -0x1p63 ? (long) d : Long.MIN_VALUE;
    }

    private static int indexOf(byte[] b, byte v) {
        for (int i = 0; i < b.length; i++) if (b[i] == v) return i;
        return -1;
    }

    /**
     * A number as Lua 5.1 writes it ({@code %.14g}: tostring, {@code ..}'s operands, %s), where LuaJ would write a
     * fractional one its own way.
     */
    static LuaString numberText(LuaValue v) {
        return LuaString.valueOf(NumberFormat.g14(v.todouble()));
    }

    private static LuaString string(Varargs a, int arg, Function<String, LuaError> error) {
        LuaValue v = a.arg(arg);
        if (v.type() == LuaValue.TNUMBER) return numberText(v);
        if (!v.isstring()) throw badArgument(error, arg, "string", v);
        return v.checkstring();
    }

    private static LuaError badArgument(Function<String, LuaError> error, int arg, String expected, LuaValue got) {
        return error.apply("bad argument #" + arg + " to 'format' (" + expected + " expected, got " + got.typename()
                + ")");
    }

    /**
     * A formatted number: its sign, whether the '0' flag may pad it (C: not inf or nan, nor an integer with a
     * precision), its digits.
     */
    private record Num(String sign, boolean zeroPads, String body) {}

    /** C's %d, %o, %u, %x with '+', ' ', '#' and a precision (the least number of digits). */
    private static Num integer(long v, String flags, int precision, boolean unsigned, int radix) {
        boolean negative = !unsigned && v < 0;
        String digits = unsigned ? Long.toUnsignedString(v, radix) : Long.toString(Math.abs(v));
        if (!unsigned && v == Long.MIN_VALUE) digits = "9223372036854775808";
        if (precision == 0 && v == 0) digits = "";
        StringBuilder sb = new StringBuilder();
        for (int i = digits.length(); i < precision; i++) sb.append('0');
        sb.append(digits);
        if (flags.indexOf('#') >= 0) {
            if (radix == 8 && (sb.length() == 0 || sb.charAt(0) != '0')) sb.insert(0, '0');
            if (radix == 16 && v != 0) sb.insert(0, "0x");
        }
        return new Num(negative ? "-" : unsigned ? "" : sign(flags), precision < 0, sb.toString());
    }

    private static Num upper(Num n) {
        return new Num(n.sign(), n.zeroPads(), n.body().toUpperCase(java.util.Locale.ROOT));
    }

    /** The sign C's '+' or ' ' flag gives a number that is not negative. */
    private static String sign(String flags) {
        return flags.indexOf('+') >= 0 ? "+" : flags.indexOf(' ') >= 0 ? " " : "";
    }

    /** C's %e, %f, %g (and upper case) of {@code d}. */
    private static Num floating(double d, String flags, int precision, char conv) {
        boolean upper = Character.isUpperCase(conv);
        boolean alt = flags.indexOf('#') >= 0;
        int p = precision < 0 ? 6 : precision;
        String body;
        boolean negative = d < 0 || (d == 0 && 1 / d < 0) || (Double.isNaN(d) && Double.doubleToRawLongBits(d) < 0);
        double x = Math.abs(d);
        if (Double.isNaN(d)) {
            body = "nan";
        } else if (Double.isInfinite(d)) {
            body = "inf";
        } else {
            switch (Character.toLowerCase(conv)) {
                case 'f' -> body = NumberFormat.f(x, p);
                case 'e' -> body = exponent(x, p);
                default -> {
                    int g = p == 0 ? 1 : p;
                    if (!alt) {
                        body = NumberFormat.g(x, g); // C's %g: trailing zeros go
                    } else { // '#' keeps them
                        int exp = x == 0 ? 0 : exponentOf(x, g);
                        body = exp < -4 || exp >= g ? exponent(x, g - 1) : NumberFormat.f(x, g - 1 - exp);
                    }
                }
            }
            if (alt && body.indexOf('.') < 0) {
                int e = body.indexOf('e');
                body = e < 0 ? body + "." : body.substring(0, e) + "." + body.substring(e);
            }
        }
        if (upper) body = body.toUpperCase(java.util.Locale.ROOT);
        return new Num(negative ? "-" : sign(flags), !Double.isNaN(d) && !Double.isInfinite(d), body);
    }

    /** The decimal exponent of {@code x} (positive) once rounded to {@code digits} significant digits. */
    private static int exponentOf(double x, int digits) {
        BigDecimal bd = new BigDecimal(x).round(new MathContext(digits, RoundingMode.HALF_EVEN));
        return bd.precision() - bd.scale() - 1;
    }

    /** C's %.{@code decimals}e of a positive or zero {@code x}. */
    private static String exponent(double x, int decimals) {
        int exp = 0;
        String mantissa;
        if (x == 0) {
            mantissa = decimals == 0 ? "0" : "0." + "0".repeat(decimals);
        } else {
            BigDecimal bd = new BigDecimal(x).round(new MathContext(decimals + 1, RoundingMode.HALF_EVEN));
            exp = bd.precision() - bd.scale() - 1;
            mantissa = bd.movePointLeft(exp).setScale(decimals, RoundingMode.HALF_EVEN).toPlainString();
        }
        String e = Integer.toString(Math.abs(exp));
        return mantissa + "e" + (exp < 0 ? "-" : "+") + (e.length() < 2 ? "0" + e : e);
    }

    /** A number padded to {@code width}: with the '0' flag (and no '-') zeros go after its sign and any 0x prefix. */
    private static void pad(ByteArrayOutputStream out, String flags, int width, Num n) {
        boolean zeros = n.zeroPads() && flags.indexOf('0') >= 0 && flags.indexOf('-') < 0;
        int fill = Math.max(0, width - n.sign().length() - n.body().length());
        if (!zeros) {
            pad(out, flags, width, (n.sign() + n.body()).getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
            return;
        }
        String body = n.body();
        int prefix = body.startsWith("0x") || body.startsWith("0X") ? 2 : 0;
        out.writeBytes((n.sign() + body.substring(0, prefix) + "0".repeat(fill) + body.substring(prefix))
                .getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    /** Text padded with spaces to {@code width}: before it, or after it with the '-' flag. */
    private static void pad(ByteArrayOutputStream out, String flags, int width, byte[] text) {
        int fill = Math.max(0, width - text.length);
        boolean left = flags.indexOf('-') >= 0;
        if (!left) for (int i = 0; i < fill; i++) out.write(' ');
        out.write(text, 0, text.length);
        if (left) for (int i = 0; i < fill; i++) out.write(' ');
    }

    /** Lua 5.1's addquoted: '"', '\\' and a newline escaped with a backslash, '\r' as \r, '\0' as \000. */
    private static void quoted(ByteArrayOutputStream out, LuaString s) {
        out.write('"');
        for (int i = 0; i < s.m_length; i++) {
            byte c = s.m_bytes[s.m_offset + i];
            switch (c) {
                case '"', '\\', '\n' -> {
                    out.write('\\');
                    out.write(c);
                }
                case '\r' -> out.writeBytes("\\r".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                case 0 -> out.writeBytes("\\000".getBytes(java.nio.charset.StandardCharsets.ISO_8859_1));
                default -> out.write(c);
            }
        }
        out.write('"');
    }
}
