package io.tide.command.family;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.math.RoundingMode;

/**
 * Thread-safe (immutable). An exact emulation of the x87 80-bit {@code long double} that Redis uses for
 * INCRBYFLOAT and HINCRBYFLOAT: a 64-bit significand, exponents down to subnormal 2^-16445, overflow at
 * 2^16384, round-half-even. Parsing follows Redis's {@code string2ld} (glibc {@code strtold}, correctly
 * rounded, plus Redis's rejections) and {@link #toHumanString()} its {@code ld2string(LD_STR_HUMAN)}
 * ({@code %.17Lf} with trailing zeros removed), so results match Redis byte for byte.
 *
 * <p>A finite value is {@code (negative ? -1 : 1) * magnitude * 2^exponent}.
 */
public final class LongDouble {

    /** Bits in the significand of the x87 extended format. */
    private static final int PRECISION = 64;
    /** Exponent of the least significant bit of the smallest subnormal: 2^-16445. */
    private static final int MIN_LSB_EXPONENT = -16445;
    /** Values of at least 2^16384 overflow to infinity. */
    private static final int OVERFLOW_BIT = 16384;
    /** Redis's MAX_LONG_DOUBLE_CHARS: longer arguments are rejected. */
    private static final int MAX_CHARS = 5 * 1024;

    public static final LongDouble ZERO = new LongDouble(false, BigInteger.ZERO, 0, false);
    private static final LongDouble POSITIVE_INFINITY = new LongDouble(false, BigInteger.ZERO, 0, true);
    private static final LongDouble NEGATIVE_INFINITY = new LongDouble(true, BigInteger.ZERO, 0, true);

    private final boolean negative;
    private final BigInteger magnitude;
    private final int exponent;
    private final boolean infinite;

    private LongDouble(boolean negative, BigInteger magnitude, int exponent, boolean infinite) {
        this.negative = negative;
        this.magnitude = magnitude;
        this.exponent = exponent;
        this.infinite = infinite;
    }

    /** The exact value of a 64-bit integer (it always fits the significand). */
    public static LongDouble of(long v) {
        if (v == 0) return ZERO;
        BigInteger m = BigInteger.valueOf(v);
        return new LongDouble(v < 0, m.abs(), 0, false);
    }

    public boolean isInfinite() {
        return infinite;
    }

    /**
     * Parses as Redis's {@code string2ld}: null when the text is empty, too long, starts with white space,
     * is not wholly consumed by {@code strtold} (an embedded NUL included), is NaN, or overflows or
     * underflows to zero. Infinity ({@code inf}, {@code infinity}) is accepted.
     */
    public static LongDouble parse(byte[] s) {
        int n = s.length;
        if (n == 0 || n >= MAX_CHARS) return null;
        // strtold stops at a NUL, and Redis requires the whole argument to be consumed.
        for (byte b : s) {
            if (b == 0) return null;
        }
        if (isSpace(s[0])) return null;
        int i = 0;
        boolean neg = false;
        if (i < n && (s[i] == '+' || s[i] == '-')) {
            neg = s[i] == '-';
            i++;
        }
        String rest = new String(s, i, n - i, java.nio.charset.StandardCharsets.ISO_8859_1).toLowerCase(
                java.util.Locale.ROOT);
        if (rest.equals("inf") || rest.equals("infinity")) {
            return neg ? NEGATIVE_INFINITY : POSITIVE_INFINITY;
        }
        if (rest.length() > 1 && rest.charAt(0) == '0' && rest.charAt(1) == 'x') {
            return parseHex(rest.substring(2), neg);
        }
        return parseDecimal(rest, neg);
    }

    private static boolean isSpace(byte b) {
        return b == ' ' || b == '\t' || b == '\n' || b == '\u000b' || b == '\f' || b == '\r';
    }

    private static LongDouble parseDecimal(String t, boolean neg) {
        int len = t.length();
        int i = 0;
        StringBuilder digits = new StringBuilder();
        int fractionDigits = 0;
        int mantissaDigits = 0;
        while (i < len && isDigit(t.charAt(i))) {
            digits.append(t.charAt(i++));
            mantissaDigits++;
        }
        if (i < len && t.charAt(i) == '.') {
            i++;
            while (i < len && isDigit(t.charAt(i))) {
                digits.append(t.charAt(i++));
                fractionDigits++;
                mantissaDigits++;
            }
        }
        if (mantissaDigits == 0) return null;
        long exp10 = 0;
        if (i < len && t.charAt(i) == 'e') {
            int j = i + 1;
            boolean expNeg = false;
            if (j < len && (t.charAt(j) == '+' || t.charAt(j) == '-')) {
                expNeg = t.charAt(j) == '-';
                j++;
            }
            int start = j;
            while (j < len && isDigit(t.charAt(j))) {
                if (exp10 < 1_000_000_000L) exp10 = exp10 * 10 + (t.charAt(j) - '0');
                j++;
            }
            if (j > start) { // otherwise strtold stops before the 'e', leaving it unconsumed
                i = j;
                if (expNeg) exp10 = -exp10;
            } else {
                exp10 = 0;
            }
        }
        if (i != len) return null;
        BigInteger d = new BigInteger(digits.toString());
        if (d.signum() == 0) return ZERO;
        long e10 = exp10 - fractionDigits;
        int significant = d.toString().length();
        // Magnitude bounds: value < 10^(significant + e10) and >= 10^(significant - 1 + e10).
        if (significant - 1 + e10 > 4933) return null;       // above 1.19e4932: overflow
        if (significant + e10 < -4952) return null;          // below 3.6e-4951 / 2: underflow to zero
        LongDouble r;
        if (e10 >= 0) {
            r = round(neg, d.multiply(BigInteger.TEN.pow((int) e10)), 0, false);
        } else {
            BigInteger den = BigInteger.TEN.pow((int) -e10);
            // Scale so the quotient carries more than PRECISION + 1 bits (so round() always drops some),
            // then round with the remainder as a sticky bit.
            int k = Math.max(0, PRECISION + 2 + den.bitLength() - d.bitLength());
            BigInteger[] qr = d.shiftLeft(k).divideAndRemainder(den);
            r = round(neg, qr[0], -k, qr[1].signum() != 0);
        }
        if (r.infinite || r.magnitude.signum() == 0) return null; // ERANGE: HUGE_VAL or underflow to zero
        return r;
    }

    private static LongDouble parseHex(String t, boolean neg) {
        int len = t.length();
        int i = 0;
        BigInteger m = BigInteger.ZERO;
        int digits = 0;
        long exp2 = 0;
        while (i < len && Character.digit(t.charAt(i), 16) >= 0) {
            m = m.shiftLeft(4).add(BigInteger.valueOf(Character.digit(t.charAt(i++), 16)));
            digits++;
        }
        if (i < len && t.charAt(i) == '.') {
            i++;
            while (i < len && Character.digit(t.charAt(i), 16) >= 0) {
                m = m.shiftLeft(4).add(BigInteger.valueOf(Character.digit(t.charAt(i++), 16)));
                digits++;
                exp2 -= 4;
            }
        }
        if (digits == 0) return null; // "0x" alone: strtold reads "0" and leaves "x"
        if (i < len && t.charAt(i) == 'p') {
            int j = i + 1;
            boolean expNeg = false;
            if (j < len && (t.charAt(j) == '+' || t.charAt(j) == '-')) {
                expNeg = t.charAt(j) == '-';
                j++;
            }
            int start = j;
            long p = 0;
            while (j < len && isDigit(t.charAt(j))) {
                if (p < 1_000_000_000L) p = p * 10 + (t.charAt(j) - '0');
                j++;
            }
            if (j > start) {
                i = j;
                exp2 += expNeg ? -p : p;
            }
        }
        if (i != len) return null;
        if (m.signum() == 0) return ZERO;
        long top = m.bitLength() + exp2;
        if (top > OVERFLOW_BIT + 1) return null;
        if (top < MIN_LSB_EXPONENT - 1) return null;
        LongDouble r = round(neg, m, (int) exp2, false);
        if (r.infinite || r.magnitude.signum() == 0) return null;
        return r;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }

    /**
     * Rounds {@code (m + sticky*epsilon) * 2^e} to the extended format, half to even. {@code sticky}
     * says that the exact value is slightly above {@code m * 2^e} (a non-zero remainder was dropped).
     */
    private static LongDouble round(boolean neg, BigInteger m, int e, boolean sticky) {
        if (m.signum() == 0 && !sticky) return ZERO;
        int shift = Math.max(m.bitLength() - PRECISION, MIN_LSB_EXPONENT - e);
        if (shift > 0) {
            BigInteger kept = m.shiftRight(shift);
            boolean half = m.testBit(shift - 1);
            boolean below = sticky || m.getLowestSetBit() < shift - 1;
            if (half && (below || kept.testBit(0))) kept = kept.add(BigInteger.ONE);
            m = kept;
            e += shift;
            if (m.bitLength() > PRECISION) { // carried into a 65th bit: exact to drop the zero bit
                m = m.shiftRight(1);
                e++;
            }
        }
        if (m.signum() == 0) return ZERO;
        if ((long) m.bitLength() + e > OVERFLOW_BIT) return neg ? NEGATIVE_INFINITY : POSITIVE_INFINITY;
        return new LongDouble(neg, m, e, false);
    }

    /** The sum, rounded as the x87 FPU does (round to nearest even at 64 bits). */
    public LongDouble add(LongDouble o) {
        if (infinite || o.infinite) {
            if (infinite && o.infinite && negative != o.negative) return null; // NaN
            return infinite ? this : o;
        }
        if (magnitude.signum() == 0) return o;
        if (o.magnitude.signum() == 0) return this;
        int e = Math.min(exponent, o.exponent);
        BigInteger a = magnitude.shiftLeft(exponent - e);
        BigInteger b = o.magnitude.shiftLeft(o.exponent - e);
        if (negative) a = a.negate();
        if (o.negative) b = b.negate();
        BigInteger sum = a.add(b);
        return round(sum.signum() < 0, sum.abs(), e, false);
    }

    /** Redis's {@code ld2string(LD_STR_HUMAN)}: {@code %.17Lf}, trailing zeros and dot removed, "-0" as "0". */
    public String toHumanString() {
        if (infinite) return negative ? "-inf" : "inf";
        BigDecimal v;
        if (exponent >= 0) {
            v = new BigDecimal(magnitude.shiftLeft(exponent));
        } else {
            v = new BigDecimal(magnitude.multiply(BigInteger.valueOf(5).pow(-exponent)), -exponent);
        }
        String s = v.setScale(17, RoundingMode.HALF_EVEN).toPlainString();
        int end = s.length();
        if (s.indexOf('.') >= 0) {
            while (s.charAt(end - 1) == '0') end--;
            if (s.charAt(end - 1) == '.') end--;
        }
        s = s.substring(0, end);
        if (negative && !s.equals("0")) s = "-" + s;
        return s;
    }

    @Override
    public String toString() {
        return toHumanString();
    }
}
