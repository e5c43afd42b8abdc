package io.tide.util;

/**
 * Redis's glob matching ({@code stringmatchlen}) over bytes, as used by KEYS, SCAN MATCH, PSUBSCRIBE and CONFIG GET.
 * Thread-safe (stateless).
 *
 * <p>Supported syntax, with Redis's exact quirks:
 * <ul>
 *   <li>{@code *} any run of bytes (consecutive stars collapse), {@code ?} exactly one byte;</li>
 *   <li>{@code [abc]}, {@code [^abc]}, {@code [a-z]} (a reversed range {@code [z-a]} means the same), {@code \]} inside a
 *       class; {@code []} is an empty class that matches nothing; an unterminated class runs to the end of the
 *       pattern; {@code [a-]} is the range from {@code a} to {@code ]}, as in Redis;</li>
 *   <li>{@code \x} matches {@code x} literally; a trailing lone backslash matches a backslash;</li>
 *   <li>with {@code nocase}, ASCII letters compare case-insensitively (escaped bytes inside a class compare exactly,
 *       as in Redis). Bytes compare as signed values in ranges, as Redis does with {@code char} on x86-64.</li>
 * </ul>
 *
 * <p>Redis guards its recursive matcher against patterns such as {@code *a*a*a*a*b} with a "skip longer matches" flag
 * and a nesting limit. This matcher is iterative instead: on a mismatch it only ever backtracks to the most recent
 * star, which is enough because every other token consumes exactly one byte. Time is O(pattern x subject) in the
 * worst case, stack use is constant, and the answer is the same as Redis's for every pattern Redis accepts.
 */
public final class Glob {

    private Glob() {}

    /** Whether {@code subject} matches the whole of {@code pattern}. */
    public static boolean matches(byte[] pattern, byte[] subject, boolean nocase) {
        return matches(pattern, 0, pattern.length, subject, 0, subject.length, nocase);
    }

    /** Whether {@code subject[sFrom, sTo)} matches the whole of {@code pattern[pFrom, pTo)}. */
    public static boolean matches(byte[] pattern, int pFrom, int pTo, byte[] subject, int sFrom, int sTo,
                                  boolean nocase) {
        int p = pFrom;
        int s = sFrom;
        int starP = -1;   // pattern index just after the most recent star run
        int starS = -1;   // subject index that star run is currently assumed to end at
        while (s < sTo) {
            if (p < pTo && pattern[p] == '*') {
                while (p < pTo && pattern[p] == '*') {
                    p++;
                }
                if (p == pTo) {
                    return true;    // a trailing star swallows the rest
                }
                starP = p;
                starS = s;
                continue;
            }
            if (p < pTo) {
                long step = matchOne(pattern, p, pTo, subject[s], nocase);
                if (step >= 0) {
                    p = (int) step;
                    s++;
                    continue;
                }
            }
            if (starP < 0) {
                return false;
            }
            // Let the last star swallow one more byte and retry the rest of the pattern from there.
            starS++;
            s = starS;
            p = starP;
        }
        while (p < pTo && pattern[p] == '*') {
            p++;
        }
        return p == pTo;
    }

    /** Convenience for ASCII/UTF-8 strings. */
    public static boolean matches(String pattern, String subject, boolean nocase) {
        return matches(pattern.getBytes(java.nio.charset.StandardCharsets.UTF_8),
                subject.getBytes(java.nio.charset.StandardCharsets.UTF_8), nocase);
    }

    /** Whether the pattern has no special bytes at all, so it can only match itself (a point lookup suffices). */
    public static boolean isLiteral(byte[] pattern) {
        for (byte b : pattern) {
            if (b == '*' || b == '?' || b == '[' || b == '\\') {
                return false;
            }
        }
        return true;
    }

    /**
     * Matches the single non-star token at {@code p} against byte {@code c}: returns the index just past the token
     * when it matches, or -1 when it does not.
     */
    private static long matchOne(byte[] pat, int p, int end, byte c, boolean nocase) {
        byte b = pat[p];
        switch (b) {
            case '?':
                return p + 1;
            case '\\':
                if (end - p >= 2) {
                    return pat[p + 1] == c ? p + 2 : -1;
                }
                return c == '\\' ? p + 1 : -1;   // a lone trailing backslash is literal
            case '[':
                return matchClass(pat, p + 1, end, c, nocase);
            default:
                return equal(b, c, nocase) ? p + 1 : -1;
        }
    }

    /** Matches a class whose body starts at {@code i} (just after '['); same return convention as matchOne. */
    private static long matchClass(byte[] pat, int i, int end, byte c, boolean nocase) {
        boolean not = i < end && pat[i] == '^';
        if (not) {
            i++;
        }
        boolean match = false;
        while (true) {
            int left = end - i;
            if (left >= 2 && pat[i] == '\\') {
                i++;
                if (pat[i] == c) {
                    match = true;
                }
            } else if (left <= 0) {
                break;                       // unterminated: the class ends with the pattern
            } else if (pat[i] == ']') {
                i++;                         // consume the closing bracket
                break;
            } else if (left >= 3 && pat[i + 1] == '-') {
                int start = pat[i];
                int stop = pat[i + 2];
                if (start > stop) {
                    int t = start;
                    start = stop;
                    stop = t;
                }
                int x = c;
                if (nocase) {
                    start = lower(start);
                    stop = lower(stop);
                    x = lower(x);
                }
                if (x >= start && x <= stop) {
                    match = true;
                }
                i += 2;
            } else if (equal(pat[i], c, nocase)) {
                match = true;
            }
            i++;
        }
        if (i > end) {
            i = end;
        }
        return match != not ? i : -1;
    }

    private static boolean equal(byte a, byte b, boolean nocase) {
        return a == b || (nocase && lower(a) == lower(b));
    }

    private static int lower(int c) {
        return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
    }
}
