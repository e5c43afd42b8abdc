package io.tide.util;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

class GlobTest {

    private static boolean m(String pattern, String subject) {
        return Glob.matches(pattern, subject, false);
    }

    /** Rows follow Redis's quirks: in {@code [abc-]} and {@code [a-]} the dash makes a range ending at ']'. */
    @ParameterizedTest(name = "''{0}'' ~ ''{1}'' = {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            `` | `` | true
            `` | a | false
            a | a | true
            a | b | false
            a | aa | false
            abc | abc | true
            * | `` | true
            * | anything | true
            ** | x | true
            a* | a | true
            a* | abc | true
            a* | bac | false
            *c | abc | true
            *c | abd | false
            a*c | ac | true
            a*c | abbbc | true
            a*c | abbbd | false
            *a*b* | xxaxxbxx | true
            *a*b* | xxbxxaxx | false
            h?llo | hello | true
            h?llo | hllo | false
            ? | `` | false
            ?? | ab | true
            h[ae]llo | hallo | true
            h[ae]llo | hillo | false
            h[^e]llo | hallo | true
            h[^e]llo | hello | false
            h[a-b]llo | hbllo | true
            h[a-b]llo | hcllo | false
            h[b-a]llo | hallo | true
            [0-9][0-9] | 42 | true
            [0-9] | a | false
            [abc-] | - | false
            [-abc] | - | true
            [] | a | false
            []] | ] | false
            [\\]] | ] | true
            [\\-] | - | true
            [a-] | ] | true
            [a-] | ^ | true
            [a-] | b | false
            [abc | b | true
            [abc | d | false
            [ | `` | false
            \\* | * | true
            \\* | a | false
            \\? | ? | true
            \\[a] | [a] | true
            a\\ | a\\ | true
            \\\\ | \\ | true
            user:* | user:1000 | true
            user:?? | user:1 | false
            *foo* | barfoobaz | true
            *:*:* | a:b:c | true
            *:*:* | a:b | false
            """)
    void matchesLikeRedis(String pattern, String subject, boolean expected) {
        assertThat(m(pattern, subject)).isEqualTo(expected);
    }

    @Test
    void nocase() {
        assertThat(Glob.matches("HELLO", "hello", true)).isTrue();
        assertThat(Glob.matches("HELLO", "hello", false)).isFalse();
        assertThat(Glob.matches("h*O", "hellO", true)).isTrue();
        assertThat(Glob.matches("[A-C]x", "bX", true)).isTrue();
        assertThat(Glob.matches("[a-c]x", "BX", true)).isTrue();
        assertThat(Glob.matches("[abc]", "B", true)).isTrue();
        assertThat(Glob.matches("[^abc]", "B", true)).isFalse();
        assertThat(Glob.matches("[\\A]", "a", true)).as("escapes in a class compare exactly").isFalse();
        assertThat(Glob.matches("*MAX*", "proto-max-bulk-len", true)).isTrue();
    }

    @Test
    void binarySubjects() {
        byte[] subject = {0, (byte) 0xff, 'a', (byte) 0x80};
        assertThat(Glob.matches(new byte[] {'*'}, subject, false)).isTrue();
        assertThat(Glob.matches(new byte[] {'?', '?', 'a', '?'}, subject, false)).isTrue();
        assertThat(Glob.matches(new byte[] {0, (byte) 0xff, '*'}, subject, false)).isTrue();
        assertThat(Glob.matches(new byte[] {1, '*'}, subject, false)).isFalse();
    }

    @Test
    void pathologicalPatternsStayFast() {
        String subject = "a".repeat(20_000);
        assertTimeoutPreemptively(Duration.ofSeconds(5), () -> {
            assertThat(m("*a*a*a*a*a*a*a*a*a*a*a*b", subject)).isFalse();
            assertThat(m("*a*a*a*a*a*a*a*a*a*a*a*a", subject)).isTrue();
            assertThat(m("a*".repeat(2000) + "b", subject)).isFalse();
            assertThat(m("*?*?*?*?*?*?*?*?*?*?c", subject)).isFalse();
        });
    }

    @Test
    void isLiteral() {
        assertThat(Glob.isLiteral(b("user:1000"))).isTrue();
        assertThat(Glob.isLiteral(b(""))).isTrue();
        assertThat(Glob.isLiteral(b("a]b"))).isTrue();
        assertThat(Glob.isLiteral(b("user:*"))).isFalse();
        assertThat(Glob.isLiteral(b("a?"))).isFalse();
        assertThat(Glob.isLiteral(b("[ab]"))).isFalse();
        assertThat(Glob.isLiteral(b("a\\*"))).isFalse();
    }

    @Test
    void subrangeOverload() {
        byte[] p = b("xxa*cxx");
        byte[] s = b("--abbc--");
        assertThat(Glob.matches(p, 2, 5, s, 2, 6, false)).isTrue();
        assertThat(Glob.matches(p, 2, 5, s, 2, 5, false)).isFalse();
    }

    /** Cross-checks against a straightforward recursive matcher written from Redis's description. */
    @Test
    void agreesWithRecursiveReferenceOnRandomInputs() {
        Random rnd = new Random(42);
        String patternAlphabet = "ab*?[]^-\\A";
        String subjectAlphabet = "abAB-]\\^";
        for (int i = 0; i < 200_000; i++) {
            byte[] p = random(rnd, patternAlphabet, rnd.nextInt(8));
            byte[] s = random(rnd, subjectAlphabet, rnd.nextInt(8));
            boolean nocase = rnd.nextBoolean();
            boolean expected = Reference.match(p, 0, s, 0, nocase);
            assertThat(Glob.matches(p, s, nocase))
                    .as("pattern '%s' subject '%s' nocase %s", new String(p, StandardCharsets.ISO_8859_1),
                            new String(s, StandardCharsets.ISO_8859_1), nocase)
                    .isEqualTo(expected);
        }
    }

    private static byte[] random(Random rnd, String alphabet, int len) {
        byte[] out = new byte[len];
        for (int i = 0; i < len; i++) {
            out[i] = (byte) alphabet.charAt(rnd.nextInt(alphabet.length()));
        }
        return out;
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Exponential-time oracle: tries every split at each star. Only for short inputs. */
    private static final class Reference {
        static boolean match(byte[] p, int pi, byte[] s, int si, boolean nocase) {
            if (pi == p.length) {
                return si == s.length;
            }
            if (p[pi] == '*') {
                for (int k = si; k <= s.length; k++) {
                    if (match(p, pi + 1, s, k, nocase)) {
                        return true;
                    }
                }
                return false;
            }
            if (si == s.length) {
                return false;
            }
            byte c = s[si];
            byte t = p[pi];
            if (t == '?') {
                return match(p, pi + 1, s, si + 1, nocase);
            }
            if (t == '\\') {
                if (pi + 1 < p.length) {
                    return p[pi + 1] == c && match(p, pi + 2, s, si + 1, nocase);
                }
                return c == '\\' && match(p, pi + 1, s, si + 1, nocase);
            }
            if (t == '[') {
                int i = pi + 1;
                boolean not = i < p.length && p[i] == '^';
                if (not) {
                    i++;
                }
                boolean hit = false;
                while (true) {
                    if (i + 1 < p.length && p[i] == '\\') {
                        hit |= p[i + 1] == c;
                        i += 2;
                    } else if (i >= p.length) {
                        break;
                    } else if (p[i] == ']') {
                        i++;
                        break;
                    } else if (i + 2 < p.length && p[i + 1] == '-') {
                        int lo = Math.min(p[i], p[i + 2]);
                        int hi = Math.max(p[i], p[i + 2]);
                        int x = c;
                        if (nocase) {
                            lo = low(lo);
                            hi = low(hi);
                            x = low(x);
                        }
                        hit |= x >= lo && x <= hi;
                        i += 3;
                    } else {
                        hit |= p[i] == c || (nocase && low(p[i]) == low(c));
                        i++;
                    }
                }
                return hit != not && match(p, i, s, si + 1, nocase);
            }
            return (t == c || (nocase && low(t) == low(c))) && match(p, pi + 1, s, si + 1, nocase);
        }

        private static int low(int c) {
            return c >= 'A' && c <= 'Z' ? c + 32 : c;
        }
    }
}
