package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.protocol.RespWriter;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.store.ByteMap;
import io.tide.store.Database;
import io.tide.store.EncodingLimits;
import io.tide.store.SetValue;
import io.tide.store.ZSetValue;
import io.tide.store.ZSetValue.LexRange;
import io.tide.store.ZSetValue.ScoreRange;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.ToIntFunction;

/**
 * Thread-safe (stateless). The sorted-set commands (Redis's t_zset.c), with Redis's argument parsing, error
 * order and reply shapes: WITHSCORES pairs are a flat array in RESP2 and two-element arrays in RESP3, scores
 * are RESP3 doubles. Values are {@link ZSetValue}s; each key's database is reached through
 * {@code ctx.db(key)}, so the multi-key commands (whose keys are found by {@link #numkeys}) run atomically
 * across shards. Score arguments are parsed with C's strtod rules, as Redis parses them.
 */
public final class ZSetCommands {


    // Kinds of range (zrange_type) and set operation.
    private static final int RANK = 0;
    private static final int SCORE = 1;
    private static final int LEX = 2;
    private static final int UNION = 0;
    private static final int INTER = 1;
    private static final int DIFF = 2;
    private static final int AGG_SUM = 0;
    private static final int AGG_MIN = 1;
    private static final int AGG_MAX = 2;

    private ZSetCommands() {}

    public static void register(CommandTable t) {
        t.group("sorted-set");
        t.add("zadd", -4, "write denyoom fast", 1, 1, 1, "@sortedset", "1.2.0",
                "Adds one or more members to a sorted set, or updates their scores. Creates the key if it "
                        + "doesn't exist.",
                Handler.ZADD);
        t.add("zincrby", 4, "write denyoom fast", 1, 1, 1, "@sortedset", "1.2.0",
                "Increments the score of a member in a sorted set.", Handler.ZINCRBY);
        t.add("zrem", -3, "write fast", 1, 1, 1, "@sortedset", "1.2.0",
                "Removes one or more members from a sorted set. Deletes the sorted set if all members were removed.",
                Handler.ZREM);
        t.add("zcard", 2, "readonly fast", 1, 1, 1, "@sortedset", "1.2.0",
                "Returns the number of members in a sorted set.", Handler.ZCARD);
        t.add("zcount", 4, "readonly fast", 1, 1, 1, "@sortedset", "2.0.0",
                "Returns the count of members in a sorted set that have scores within a range.", Handler.ZCOUNT);
        t.add("zlexcount", 4, "readonly fast", 1, 1, 1, "@sortedset", "2.8.9",
                "Returns the number of members in a sorted set within a lexicographical range.",
                Handler.ZLEXCOUNT);
        t.add("zscore", 3, "readonly fast", 1, 1, 1, "@sortedset", "1.2.0",
                "Returns the score of a member in a sorted set.", Handler.ZSCORE);
        t.add("zmscore", -3, "readonly fast", 1, 1, 1, "@sortedset", "6.2.0",
                "Returns the score of one or more members in a sorted set.", Handler.ZMSCORE);
        t.add("zrank", -3, "readonly fast", 1, 1, 1, "@sortedset", "2.0.0",
                "Returns the index of a member in a sorted set ordered by ascending scores.", Handler.ZRANK);
        t.add("zrevrank", -3, "readonly fast", 1, 1, 1, "@sortedset", "2.0.0",
                "Returns the index of a member in a sorted set ordered by descending scores.", Handler.ZREVRANK);
        t.add("zrange", -4, "readonly", 1, 1, 1, "@sortedset", "1.2.0",
                "Returns members in a sorted set within a range of indexes.", Handler.ZRANGE);
        t.add("zrangestore", -5, "write denyoom", 1, 2, 1, "@sortedset", "6.2.0",
                "Stores a range of members from sorted set in a key.", Handler.ZRANGESTORE);
        t.add("zrevrange", -4, "readonly", 1, 1, 1, "@sortedset", "1.2.0",
                "Returns members in a sorted set within a range of indexes in reverse order.", Handler.ZREVRANGE);
        t.add("zrangebyscore", -4, "readonly", 1, 1, 1, "@sortedset", "1.0.5",
                "Returns members in a sorted set within a range of scores.", Handler.ZRANGEBYSCORE);
        t.add("zrevrangebyscore", -4, "readonly", 1, 1, 1, "@sortedset", "2.2.0",
                "Returns members in a sorted set within a range of scores in reverse order.",
                Handler.ZREVRANGEBYSCORE);
        t.add("zrangebylex", -4, "readonly", 1, 1, 1, "@sortedset", "2.8.9",
                "Returns members in a sorted set within a lexicographical range.", Handler.ZRANGEBYLEX);
        t.add("zrevrangebylex", -4, "readonly", 1, 1, 1, "@sortedset", "2.8.9",
                "Returns members in a sorted set within a lexicographical range in reverse order.",
                Handler.ZREVRANGEBYLEX);
        t.add("zremrangebyrank", 4, "write", 1, 1, 1, "@sortedset", "2.0.0",
                "Removes members in a sorted set within a range of indexes. Deletes the sorted set if all members "
                        + "were removed.", Handler.ZREMRANGEBYRANK);
        t.add("zremrangebyscore", 4, "write", 1, 1, 1, "@sortedset", "1.2.0",
                "Removes members in a sorted set within a range of scores. Deletes the sorted set if all members "
                        + "were removed.", Handler.ZREMRANGEBYSCORE);
        t.add("zremrangebylex", 4, "write", 1, 1, 1, "@sortedset", "2.8.9",
                "Removes members in a sorted set within a lexicographical range. Deletes the sorted set if all "
                        + "members were removed.", Handler.ZREMRANGEBYLEX);
        t.add("zpopmin", -2, "write fast", 1, 1, 1, "@sortedset", "5.0.0",
                "Returns the lowest-scoring members from a sorted set after removing them. Deletes the sorted set "
                        + "if the last member was popped.", Handler.ZPOPMIN);
        t.add("zpopmax", -2, "write fast", 1, 1, 1, "@sortedset", "5.0.0",
                "Returns the highest-scoring members from a sorted set after removing them. Deletes the sorted "
                        + "set if the last member was popped.", Handler.ZPOPMAX);
        t.add("zmpop", -4, "write", 0, 0, 0, "@sortedset", "7.0.0",
                "Returns the highest- or lowest-scoring members from one or more sorted sets after removing them. "
                        + "Deletes the sorted set if the last member was popped.", Handler.ZMPOP)
                .keysBy(numkeys(1, false));
        t.add("bzpopmin", -3, "write noscript blocking fast", 1, -2, 1, "@sortedset", "5.0.0",
                "Removes and returns the member with the lowest score from one or more sorted sets. Blocks until "
                        + "a member is available otherwise. Deletes the sorted set if the last element was popped.",
                Handler.BZPOPMIN);
        t.add("bzpopmax", -3, "write noscript blocking fast", 1, -2, 1, "@sortedset", "5.0.0",
                "Removes and returns the member with the highest score from one or more sorted sets. Blocks until "
                        + "a member available otherwise.  Deletes the sorted set if the last element was popped.",
                Handler.BZPOPMAX);
        t.add("bzmpop", -5, "write blocking", 0, 0, 0, "@sortedset", "7.0.0",
                "Removes and returns a member by score from one or more sorted sets. Blocks until a member is "
                        + "available otherwise. Deletes the sorted set if the last element was popped.",
                Handler.BZMPOP).keysBy(numkeys(2, false));
        t.add("zrandmember", -2, "readonly", 1, 1, 1, "@sortedset", "6.2.0",
                "Returns one or more random members from a sorted set.", Handler.ZRANDMEMBER);
        t.add("zunion", -3, "readonly", 0, 0, 0, "@sortedset", "6.2.0",
                "Returns the union of multiple sorted sets.", Handler.ZUNION).keysBy(numkeys(1, false));
        t.add("zunionstore", -4, "write denyoom", 1, 1, 1, "@sortedset", "2.0.0",
                "Stores the union of multiple sorted sets in a key.", Handler.ZUNIONSTORE)
                .keysBy(numkeys(2, true));
        t.add("zinter", -3, "readonly", 0, 0, 0, "@sortedset", "6.2.0",
                "Returns the intersect of multiple sorted sets.", Handler.ZINTER).keysBy(numkeys(1, false));
        t.add("zinterstore", -4, "write denyoom", 1, 1, 1, "@sortedset", "2.0.0",
                "Stores the intersect of multiple sorted sets in a key.", Handler.ZINTERSTORE)
                .keysBy(numkeys(2, true));
        t.add("zintercard", -3, "readonly", 0, 0, 0, "@sortedset", "7.0.0",
                "Returns the number of members of the intersect of multiple sorted sets.", Handler.ZINTERCARD)
                .keysBy(numkeys(1, false));
        t.add("zdiff", -3, "readonly", 0, 0, 0, "@sortedset", "6.2.0",
                "Returns the difference between multiple sorted sets.", Handler.ZDIFF).keysBy(numkeys(1, false));
        t.add("zdiffstore", -4, "write denyoom", 1, 1, 1, "@sortedset", "6.2.0",
                "Stores the difference of multiple sorted sets in a key.", Handler.ZDIFFSTORE)
                .keysBy(numkeys(2, true));
        t.add("zscan", -3, "readonly", 1, 1, 1, "@sortedset", "2.8.0",
                "Iterates over members and scores of a sorted set.", Handler.ZSCAN);
    }

    /**
     * The keys of a command with a numkeys argument at {@code index} followed by that many keys (and, with
     * {@code dest}, the destination at argv[1] first); none when numkeys is malformed.
     */
    static CommandSpec.KeyFinder numkeys(int index, boolean dest) {
        return argv -> {
            if (argv.length <= index) return new byte[0][];
            Long n = Args.parseLongOrNull(argv[index]);
            if (n == null || n < 1 || n > argv.length - index - 1) return new byte[0][];
            int k = n.intValue();
            byte[][] out = new byte[k + (dest ? 1 : 0)][];
            int o = 0;
            if (dest) out[o++] = argv[1];
            for (int i = 0; i < k; i++) out[o++] = argv[index + 1 + i];
            return out;
        };
    }

    // ------------------------------------------------------------------ shared helpers

    static boolean resp3(CommandContext ctx) {
        return ctx.replyProtocol() >= 3;
    }

    /** The value as a sorted set, null for a missing key, WRONGTYPE for any other type. */
    static ZSetValue zset(Object v) {
        if (v == null) return null;
        if (v instanceof ZSetValue z) return z;
        throw Errors.wrongType();
    }

    static EncodingLimits limits(CommandContext ctx) {
        return ctx.server().limits();
    }

    /**
     * After a sorted set obtained with readForWrite changed in place ({@code changed}): deletes the key when the
     * set became empty, else tells the write seam.
     */
    static void written(CommandContext ctx, byte[] key, ZSetValue z, boolean changed) {
        if (!changed) return;
        if (z.size() == 0) ctx.db(key).remove(key);
        else ctx.modified(key);
    }

    static Reply score(double d) {
        return new Reply.Double(d);
    }

    /** Collects (member[, score]) replies: flat in RESP2, [member, score] pairs in RESP3. */
    static final class Emitter implements ZSetValue.EntryVisitor {
        final List<Reply> out = new ArrayList<>();
        final boolean withScores;
        final boolean nested;

        Emitter(boolean withScores, boolean resp3) {
            this.withScores = withScores;
            this.nested = withScores && resp3;
        }

        @Override
        public boolean visit(byte[] member, double s) {
            if (nested) {
                out.add(Reply.array(Reply.bulk(member), score(s)));
            } else {
                out.add(Reply.bulk(member));
                if (withScores) out.add(score(s));
            }
            return true;
        }

        Reply reply() {
            return Reply.array(out);
        }
    }

    // ------------------------------------------------------------------ number parsing (C strtod, as Redis)

    /** Result of a strtod: the value and the index just after what it consumed. */
    private record Strtod(double value, int end, boolean rangeError) {}

    private static boolean isSpace(int c) {
        return c == ' ' || c == '\t' || c == '\n' || c == 0x0b || c == '\f' || c == '\r';
    }

    private static boolean startsWithIgnoreCase(byte[] s, int i, int to, String word) {
        if (to - i < word.length()) return false;
        for (int k = 0; k < word.length(); k++) {
            int c = s[i + k];
            if (c >= 'A' && c <= 'Z') c += 32;
            if (c != word.charAt(k)) return false;
        }
        return true;
    }

    private static int hexDigit(int c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }

    /**
     * glibc's strtod over {@code s[from, to)}: leading white space, a sign, then "inf"/"infinity", "nan" with
     * an optional "(chars)", a hexadecimal or a decimal number. With no conversion the end is {@code from}.
     * {@code rangeError} is glibc's ERANGE for a result that overflows or underflows to zero.
     */
    private static Strtod strtod(byte[] s, int from, int to) {
        int i = from;
        while (i < to && isSpace(s[i])) i++;
        boolean neg = false;
        if (i < to && (s[i] == '+' || s[i] == '-')) {
            neg = s[i] == '-';
            i++;
        }
        if (startsWithIgnoreCase(s, i, to, "inf")) {
            int end = startsWithIgnoreCase(s, i, to, "infinity") ? i + 8 : i + 3;
            return new Strtod(neg ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY, end, false);
        }
        if (startsWithIgnoreCase(s, i, to, "nan")) {
            int end = i + 3;
            if (end < to && s[end] == '(') {
                int k = end + 1;
                while (k < to && (Character.isLetterOrDigit(s[k] & 0x7f) && s[k] > 0 || s[k] == '_')) k++;
                if (k < to && s[k] == ')') end = k + 1;
            }
            return new Strtod(Double.NaN, end, false);
        }
        if (i + 1 < to && s[i] == '0' && (s[i + 1] == 'x' || s[i + 1] == 'X')) {
            Strtod hex = hex(s, i + 2, to, neg);
            if (hex != null) return hex;
        }
        int k = i;
        boolean digits = false;
        boolean nonZero = false;
        while (k < to && s[k] >= '0' && s[k] <= '9') {
            digits = true;
            nonZero |= s[k] != '0';
            k++;
        }
        if (k < to && s[k] == '.') {
            k++;
            while (k < to && s[k] >= '0' && s[k] <= '9') {
                digits = true;
                nonZero |= s[k] != '0';
                k++;
            }
        }
        if (!digits) return new Strtod(0, from, false);
        if (k < to && (s[k] == 'e' || s[k] == 'E')) {
            int q = k + 1;
            if (q < to && (s[q] == '+' || s[q] == '-')) q++;
            if (q < to && s[q] >= '0' && s[q] <= '9') {
                while (q < to && s[q] >= '0' && s[q] <= '9') q++;
                k = q;
            }
        }
        double v = exactDecimal(s, i, k);
        if (Double.isNaN(v)) v = Double.parseDouble(new String(s, i, k - i, StandardCharsets.ISO_8859_1));
        if (neg) v = -v;
        return new Strtod(v, k, Double.isInfinite(v) || (v == 0 && nonZero));
    }

    /** 10^0 .. 10^15, each exactly a double. */
    private static final double[] POW10 = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13,
        1e14, 1e15};

    /**
     * The value of {@code s[from, to)} (no sign) when it is 1 to 15 digits with at most one '.' and nothing else: the
     * digits as an integer below 10^15 and the power of ten below it are both exact doubles, so their quotient is the
     * correctly rounded value, as strtod's (Clinger's fast path). NaN for any other text (an exponent, more digits, a
     * second '.', no digit), which the general parser reads or refuses.
     * Scores such as "1", "42", "1700000000" and "3.25" take this path without making a String (ZADD's hot path).
     */
    static double exactDecimal(byte[] s, int from, int to) {
        long m = 0;
        int digits = 0;
        int fraction = -1;
        for (int j = from; j < to; j++) {
            byte b = s[j];
            if (b == '.') {
                if (fraction >= 0) return Double.NaN;
                fraction = 0;
            } else if (b < '0' || b > '9' || ++digits > 15) {
                return Double.NaN;
            } else {
                m = m * 10 + (b - '0');
                if (fraction >= 0) fraction++;
            }
        }
        if (digits == 0) return Double.NaN;
        return fraction <= 0 ? (double) m : m / POW10[fraction];
    }

    /**
     * The whole of {@code s} when it is an optional sign and then what {@link #exactDecimal} reads exactly (so strtod
     * would read the same value, with no range error); NaN for any other text, which the full strtod then reads.
     */
    static double plainDecimal(byte[] s) {
        int from = s.length > 0 && (s[0] == '-' || s[0] == '+') ? 1 : 0;
        double v = exactDecimal(s, from, s.length);
        return from == 1 && s[0] == '-' ? -v : v;
    }

    /** The hexadecimal form after "0x"; null when no hex digit follows (strtod then reads just the "0"). */
    private static Strtod hex(byte[] s, int k, int to, boolean neg) {
        StringBuilder mant = new StringBuilder("0x");
        boolean digits = false;
        boolean nonZero = false;
        while (k < to && hexDigit(s[k]) >= 0) {
            mant.append((char) s[k]);
            digits = true;
            nonZero |= s[k] != '0';
            k++;
        }
        if (k < to && s[k] == '.') {
            int dot = k;
            k++;
            boolean frac = false;
            StringBuilder f = new StringBuilder(".");
            while (k < to && hexDigit(s[k]) >= 0) {
                f.append((char) s[k]);
                frac = true;
                nonZero |= s[k] != '0';
                k++;
            }
            if (!digits && !frac) return null;
            if (frac || digits) mant.append(f);
            if (!frac) k = dot + 1;
            digits = true;
        }
        if (!digits) return null;
        long exp = 0;
        if (k < to && (s[k] == 'p' || s[k] == 'P')) {
            int q = k + 1;
            boolean eneg = false;
            if (q < to && (s[q] == '+' || s[q] == '-')) {
                eneg = s[q] == '-';
                q++;
            }
            if (q < to && s[q] >= '0' && s[q] <= '9') {
                while (q < to && s[q] >= '0' && s[q] <= '9') {
                    exp = Math.min(exp * 10 + (s[q] - '0'), 1_000_000);
                    q++;
                }
                if (eneg) exp = -exp;
                k = q;
            }
        }
        String m = mant.toString();
        if (m.endsWith(".")) m = m + "0";
        double v = Double.parseDouble(m + "p" + exp);
        if (neg) v = -v;
        return new Strtod(v, k, Double.isInfinite(v) || (v == 0 && nonZero));
    }

    /**
     * Redis's string2d (getDoubleFromObject): the whole argument must be a strtod number, with no leading
     * space, no overflow or underflow to zero, and not NaN; null otherwise.
     */
    static Double parseDouble(byte[] s) {
        if (s.length == 0 || isSpace(s[0])) return null;
        Strtod p = strtod(s, 0, s.length);
        if (p.end() != s.length || p.rangeError() || Double.isNaN(p.value())) return null;
        return p.value();
    }

    /**
     * SORT's weights ({@code strtod(s, &eptr)} with {@code eptr[0] == '\0'}, no ERANGE, not NaN): C-string
     * semantics (the text ends at a NUL), leading white space allowed, and an empty text is 0; null otherwise.
     * glibc also reports ERANGE for a tiny result that is subnormal and inexact; here every subnormal result is
     * refused (one written exactly, such as 0x1p-1074, too).
     */
    static Double parseCStringDouble(byte[] s) {
        int to = s.length;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == 0) {
                to = i;
                break;
            }
        }
        if (to == 0) return 0.0; // no conversion, but eptr already points at the terminator
        Strtod p = strtod(s, 0, to);
        double v = p.value();
        if (p.end() != to || p.rangeError() || Double.isNaN(v)) return null;
        if (v != 0 && Math.abs(v) < Double.MIN_NORMAL) return null;
        return v;
    }

    /** A double argument or the error {@code errorLine} (getDoubleFromObjectOrReply). */
    static double parseDouble(byte[] s, String errorLine) {
        double plain = plainDecimal(s);
        if (!Double.isNaN(plain)) return plain; // ZADD's hot path: no record, no box
        Double d = parseDouble(s);
        if (d == null) throw Errors.error(errorLine);
        return d;
    }

    /** getRangeLongFromObjectOrReply: an integer within [min, max], else {@code errorLine} or Redis's texts. */
    static long rangeLong(byte[] s, long min, long max, String errorLine) {
        Long v = Args.parseLongOrNull(s);
        if (v == null) throw Errors.error(errorLine != null ? errorLine : Errors.NOT_INTEGER);
        if (v < min || v > max) {
            throw Errors.error(errorLine != null ? errorLine : Errors.VALUE_MUST_BE_BETWEEN + min + " and " + max);
        }
        return v;
    }

    /** One end of a score range (zslParseRange): C-string semantics, an optional "(", then strtod. */
    private static double[] rangeItem(byte[] s) {
        int to = s.length;
        for (int i = 0; i < s.length; i++) {
            if (s[i] == 0) {
                to = i;
                break;
            }
        }
        boolean ex = to > 0 && s[0] == '(';
        Strtod p = strtod(s, ex ? 1 : 0, to);
        if (p.end() != to || Double.isNaN(p.value())) return null;
        return new double[] {p.value(), ex ? 1 : 0};
    }

    static ScoreRange parseScoreRange(byte[] min, byte[] max) {
        double[] a = rangeItem(min);
        double[] b = a == null ? null : rangeItem(max);
        if (b == null) throw Errors.error(Errors.MIN_MAX_NOT_FLOAT);
        return new ScoreRange(a[0], a[1] != 0, b[0], b[1] != 0);
    }

    /** One end of a lexicographic range (zslParseLexRangeItem); null when invalid. */
    private static Object[] lexItem(byte[] s) {
        int c0 = s.length == 0 ? 0 : s[0];
        boolean bare = s.length < 2 || s[1] == 0;
        switch (c0) {
            case '+':
                return bare ? new Object[] {LexRange.MAX_STRING, true} : null;
            case '-':
                return bare ? new Object[] {LexRange.MIN_STRING, true} : null;
            case '(':
                return new Object[] {Arrays.copyOfRange(s, 1, s.length), true};
            case '[':
                return new Object[] {Arrays.copyOfRange(s, 1, s.length), false};
            default:
                return null;
        }
    }

    static LexRange parseLexRange(byte[] min, byte[] max) {
        Object[] a = lexItem(min);
        Object[] b = lexItem(max);
        if (a == null || b == null) throw Errors.error(Errors.MIN_MAX_NOT_LEX);
        return new LexRange((byte[]) a[0], (Boolean) a[1], (byte[]) b[0], (Boolean) b[1]);
    }

    // ------------------------------------------------------------------ ZADD, ZINCRBY, ZREM

    static Reply zadd(CommandContext ctx, byte[][] argv) {
        return zaddGeneric(ctx, argv, 0);
    }

    static Reply zincrby(CommandContext ctx, byte[][] argv) {
        return zaddGeneric(ctx, argv, ZSetValue.IN_INCR);
    }

    /** Redis's zaddGenericCommand (also GEOADD's last step). */
    static Reply zaddGeneric(CommandContext ctx, byte[][] argv, int flags) {
        boolean ch = false;
        int idx = 2;
        while (idx < argv.length) {
            byte[] o = argv[idx];
            if (Args.is(o, "nx")) flags |= ZSetValue.IN_NX;
            else if (Args.is(o, "xx")) flags |= ZSetValue.IN_XX;
            else if (Args.is(o, "ch")) ch = true;
            else if (Args.is(o, "incr")) flags |= ZSetValue.IN_INCR;
            else if (Args.is(o, "gt")) flags |= ZSetValue.IN_GT;
            else if (Args.is(o, "lt")) flags |= ZSetValue.IN_LT;
            else break;
            idx++;
        }
        boolean incr = (flags & ZSetValue.IN_INCR) != 0;
        boolean nx = (flags & ZSetValue.IN_NX) != 0;
        boolean xx = (flags & ZSetValue.IN_XX) != 0;
        boolean gt = (flags & ZSetValue.IN_GT) != 0;
        boolean lt = (flags & ZSetValue.IN_LT) != 0;
        int elements = argv.length - idx;
        if (elements % 2 != 0 || elements == 0) throw Errors.syntax();
        elements /= 2;
        if (nx && xx) throw Errors.error(Errors.ZADD_XX_NX);
        if ((gt && nx) || (lt && nx) || (gt && lt)) throw Errors.error(Errors.ZADD_GT_LT_NX);
        if (incr && elements > 1) throw Errors.error(Errors.ZADD_INCR_PAIRS);
        double[] scores = ctx.scores(elements);
        for (int j = 0; j < elements; j++) scores[j] = parseDouble(argv[idx + j * 2], Errors.NOT_FLOAT);

        byte[] key = argv[1];
        ZSetValue z = zset(ctx.readForWrite(key));
        int added = 0;
        int updated = 0;
        int processed = 0;
        double score = 0;
        if (z == null && xx) {
            return incr ? Reply.NULL : Reply.ZERO;
        }
        EncodingLimits limits = limits(ctx);
        Database db = ctx.db(key);
        boolean created = z == null;
        if (created) {
            z = ZSetValue.create(elements, argv[idx + 1].length, limits);
        } else {
            z.maybeConvert(elements, limits);
        }
        if (elements > 1) z.reserveFor(argv, idx + 1, 2, elements);
        double[] newScore = ctx.oneScore();
        boolean nan = false;
        for (int j = 0; j < elements; j++) {
            int out = z.add(scores[j], argv[idx + 1 + j * 2], flags, limits, newScore);
            if ((out & ZSetValue.OUT_NAN) != 0) {
                nan = true;
                break;
            }
            if ((out & ZSetValue.OUT_ADDED) != 0) added++;
            if ((out & ZSetValue.OUT_UPDATED) != 0) updated++;
            if ((out & ZSetValue.OUT_NOP) == 0) {
                processed++;
                score = newScore[0];
            }
        }
        if (elements > 1) z.trimToSize(); // a bulk load keeps no spare capacity
        if (z.isListpack()) ctx.keepsNoArguments(); // a listpack copies members; a tree keeps them (decision 0028)
        if (created) {
            if (z.size() > 0) db.put(key, z, 0, ctx.now());
        } else {
            written(ctx, key, z, added + updated > 0);
        }
        if (added + updated > 0) ctx.notify(KeyspaceEvents.ZSET, incr ? "zincr" : "zadd", key);
        if (nan) throw Errors.error(Errors.ZSET_NAN);
        if (incr) return processed > 0 ? score(score) : Reply.NULL;
        return Reply.integer(ch ? added + updated : added);
    }

    static Reply zrem(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        ZSetValue z = zset(ctx.readForWrite(key));
        if (z == null) return Reply.ZERO;
        int deleted = 0;
        for (int j = 2; j < argv.length; j++) {
            if (z.remove(argv[j])) deleted++;
            if (z.size() == 0) break;
        }
        if (deleted > 0) ctx.notify(KeyspaceEvents.ZSET, "zrem", key);
        written(ctx, key, z, deleted > 0);
        if (z.size() == 0) ctx.notify(KeyspaceEvents.GENERIC, "del", key);
        return Reply.integer(deleted);
    }

    // ------------------------------------------------------------------ reads of single members

    static Reply zcard(CommandContext ctx, byte[][] argv) {
        ZSetValue z = zset(ctx.read(argv[1]));
        return z == null ? Reply.ZERO : Reply.integer(z.size());
    }

    static Reply zscore(CommandContext ctx, byte[][] argv) {
        ZSetValue z = zset(ctx.read(argv[1]));
        if (z == null) return Reply.NULL;
        double s = z.score(argv[2]);
        return Double.isNaN(s) ? Reply.NULL : score(s);
    }

    static Reply zmscore(CommandContext ctx, byte[][] argv) {
        ZSetValue z = zset(ctx.read(argv[1]));
        Reply[] out = new Reply[argv.length - 2];
        for (int j = 2; j < argv.length; j++) {
            double s = z == null ? Double.NaN : z.score(argv[j]);
            out[j - 2] = Double.isNaN(s) ? Reply.NULL : score(s);
        }
        return Reply.array(out);
    }

    static Reply zrank(CommandContext ctx, byte[][] argv) {
        return rankGeneric(ctx, argv, false, "zrank");
    }

    static Reply zrevrank(CommandContext ctx, byte[][] argv) {
        return rankGeneric(ctx, argv, true, "zrevrank");
    }

    private static Reply rankGeneric(CommandContext ctx, byte[][] argv, boolean reverse, String name) {
        if (argv.length > 4) throw Errors.error(Errors.wrongArity(name));
        boolean withScore = false;
        if (argv.length > 3) {
            if (!Args.is(argv[3], "withscore")) throw Errors.syntax();
            withScore = true;
        }
        Reply none = withScore ? Reply.NULL_ARRAY : Reply.NULL;
        ZSetValue z = zset(ctx.read(argv[1]));
        if (z == null) return none;
        long rank = z.rank(argv[2], reverse);
        if (rank < 0) return none;
        if (!withScore) return Reply.integer(rank);
        return Reply.array(Reply.integer(rank), score(z.score(argv[2])));
    }

    // ------------------------------------------------------------------ counts

    static Reply zcount(CommandContext ctx, byte[][] argv) {
        ScoreRange r = parseScoreRange(argv[2], argv[3]);
        ZSetValue z = zset(ctx.read(argv[1]));
        return z == null ? Reply.ZERO : Reply.integer(z.countInRange(r));
    }

    static Reply zlexcount(CommandContext ctx, byte[][] argv) {
        LexRange r = parseLexRange(argv[2], argv[3]);
        ZSetValue z = zset(ctx.read(argv[1]));
        return z == null ? Reply.ZERO : Reply.integer(z.countInLex(r));
    }

    // ------------------------------------------------------------------ ZRANGE family

    static Reply zrange(CommandContext ctx, byte[][] argv) {
        return rangeGeneric(ctx, argv, 1, null, -1, 0);
    }

    static Reply zrangestore(CommandContext ctx, byte[][] argv) {
        return rangeGeneric(ctx, argv, 2, argv[1], -1, 0);
    }

    static Reply zrevrange(CommandContext ctx, byte[][] argv) {
        return rangeGeneric(ctx, argv, 1, null, RANK, -1);
    }

    static Reply zrangebyscore(CommandContext ctx, byte[][] argv) {
        return rangeGeneric(ctx, argv, 1, null, SCORE, 1);
    }

    static Reply zrevrangebyscore(CommandContext ctx, byte[][] argv) {
        return rangeGeneric(ctx, argv, 1, null, SCORE, -1);
    }

    static Reply zrangebylex(CommandContext ctx, byte[][] argv) {
        return rangeGeneric(ctx, argv, 1, null, LEX, 1);
    }

    static Reply zrevrangebylex(CommandContext ctx, byte[][] argv) {
        return rangeGeneric(ctx, argv, 1, null, LEX, -1);
    }

    /**
     * Redis's zrangeGenericCommand: {@code type} -1 = not fixed (BYSCORE/BYLEX may choose), {@code direction}
     * 0 = not fixed (REV may choose), 1 forward, -1 reverse; {@code dst} non-null for ZRANGESTORE.
     */
    private static Reply rangeGeneric(CommandContext ctx, byte[][] argv, int start, byte[] dst, int type,
                                      int direction) {
        byte[] key = argv[start];
        int minIdx = start + 1;
        int maxIdx = start + 2;
        boolean store = dst != null;
        boolean withScores = false;
        long offset = 0;
        long limit = -1;
        for (int j = start + 3; j < argv.length; j++) {
            int left = argv.length - j - 1;
            if (!store && Args.is(argv[j], "withscores")) {
                withScores = true;
            } else if (Args.is(argv[j], "limit") && left >= 2) {
                offset = Args.parseLong(argv[j + 1]);
                limit = Args.parseLong(argv[j + 2]);
                j += 2;
            } else if (direction == 0 && Args.is(argv[j], "rev")) {
                direction = -1;
            } else if (type == -1 && Args.is(argv[j], "bylex")) {
                type = LEX;
            } else if (type == -1 && Args.is(argv[j], "byscore")) {
                type = SCORE;
            } else {
                throw Errors.syntax();
            }
        }
        if (direction == 0) direction = 1;
        if (type == -1) type = RANK;
        if (limit != -1 && type == RANK) throw Errors.error(Errors.ZRANGE_LIMIT_BY_RANK);
        if (withScores && type == LEX) throw Errors.error(Errors.ZRANGE_WITHSCORES_BYLEX);
        boolean reverse = direction < 0;
        if (reverse && type != RANK) {
            int t = maxIdx;
            maxIdx = minIdx;
            minIdx = t;
        }
        long rankStart = 0;
        long rankEnd = 0;
        ScoreRange scores = null;
        LexRange lex = null;
        switch (type) {
            case RANK -> {
                rankStart = Args.parseLong(argv[minIdx]);
                rankEnd = Args.parseLong(argv[maxIdx]);
            }
            case SCORE -> scores = parseScoreRange(argv[minIdx], argv[maxIdx]);
            default -> lex = parseLexRange(argv[minIdx], argv[maxIdx]);
        }
        Object v = ctx.read(key);
        if (v == null) return store ? storeRange(ctx, dst, null, 0) : Reply.EMPTY_ARRAY;
        ZSetValue z = zset(v);
        RangeCollector c = new RangeCollector(store, withScores, resp3(ctx));
        long hint = 0;
        switch (type) {
            case RANK -> hint = byRank(z, rankStart, rankEnd, reverse, c);
            case SCORE -> byScore(z, scores, offset, limit, reverse, c);
            default -> byLex(z, lex, offset, limit, reverse, c);
        }
        if (store) return storeRange(ctx, dst, c, hint);
        return c.emitter.reply();
    }

    /** Collects a range for a reply or (ZRANGESTORE) for a new set. */
    private static final class RangeCollector implements ZSetValue.EntryVisitor {
        final Emitter emitter;
        final List<byte[]> members = new ArrayList<>();
        final List<Double> scores = new ArrayList<>();
        final boolean store;
        long remaining = -1;

        RangeCollector(boolean store, boolean withScores, boolean resp3) {
            this.store = store;
            this.emitter = store ? null : new Emitter(withScores, resp3);
        }

        @Override
        public boolean visit(byte[] member, double score) {
            if (store) {
                members.add(member);
                scores.add(score);
            } else {
                emitter.visit(member, score);
            }
            return true;
        }

        int count() {
            return store ? members.size() : emitter.out.size();
        }
    }

    private static Reply storeRange(CommandContext ctx, byte[] dst, RangeCollector c, long hint) {
        Database db = ctx.db(dst);
        if (c == null || c.members.isEmpty()) {
            if (db.remove(dst) != null) ctx.notify(KeyspaceEvents.GENERIC, "del", dst);
            return Reply.ZERO;
        }
        EncodingLimits limits = limits(ctx);
        ZSetValue out = ZSetValue.create(hint, 0, limits);
        double[] ns = new double[1];
        for (int i = 0; i < c.members.size(); i++) out.add(c.scores.get(i), c.members.get(i), 0, limits, ns);
        db.put(dst, out, 0, ctx.now());
        ctx.notify(KeyspaceEvents.ZSET, "zrangestore", dst);
        return Reply.integer(out.size());
    }

    /** genericZrangebyrankCommand; returns the range length (ZRANGESTORE's size hint). */
    private static long byRank(ZSetValue z, long start, long end, boolean reverse, RangeCollector c) {
        long llen = z.size();
        if (start < 0) start = llen + start;
        if (end < 0) end = llen + end;
        if (start < 0) start = 0;
        if (start > end || start >= llen) return 0;
        if (end >= llen) end = llen - 1;
        long rangelen = end - start + 1;
        long[] left = {rangelen};
        ZSetValue.EntryVisitor take = (m, s) -> {
            c.visit(m, s);
            return --left[0] > 0;
        };
        if (reverse) z.walk((int) (llen - 1 - start), true, take);
        else z.walk((int) start, false, take);
        return rangelen;
    }

    /** genericZrangebyscoreCommand (Redis 7.4: a negative offset skips everything). */
    private static void byScore(ZSetValue z, ScoreRange r, long offset, long limit, boolean reverse,
                                RangeCollector c) {
        if (offset > 0 && offset >= z.size()) return;
        int first = reverse ? z.lastInRange(r) : z.firstInRange(r);
        if (first < 0 || offset < 0) return;
        long at = reverse ? first - offset : first + offset;
        if (at < 0 || at >= z.size() || limit == 0) return;
        long[] left = {limit};
        z.walk((int) at, reverse, (m, s) -> {
            if (reverse ? !r.gteMin(s) : !r.lteMax(s)) return false;
            c.visit(m, s);
            return --left[0] != 0;
        });
    }

    /** genericZrangebylexCommand. */
    private static void byLex(ZSetValue z, LexRange r, long offset, long limit, boolean reverse,
                              RangeCollector c) {
        int first = reverse ? z.lastInLex(r) : z.firstInLex(r);
        if (first < 0 || offset < 0) return;
        long at = reverse ? first - offset : first + offset;
        if (at < 0 || at >= z.size() || limit == 0) return;
        long[] left = {limit};
        z.walk((int) at, reverse, (m, s) -> {
            if (reverse ? !r.gteMin(m) : !r.lteMax(m)) return false;
            c.visit(m, s);
            return --left[0] != 0;
        });
    }

    // ------------------------------------------------------------------ ZREMRANGEBY*

    static Reply zremrangebyrank(CommandContext ctx, byte[][] argv) {
        long start = Args.parseLong(argv[2]);
        long end = Args.parseLong(argv[3]);
        return removeRange(ctx, argv[1], "zremrangebyrank", z -> {
            long llen = z.size();
            long from = Math.max(start < 0 ? llen + start : start, 0);
            long to = end < 0 ? llen + end : end;
            if (from > to || from >= llen) return 0;
            return z.removeRanks((int) from, (int) Math.min(to, llen - 1));
        });
    }

    static Reply zremrangebyscore(CommandContext ctx, byte[][] argv) {
        ScoreRange r = parseScoreRange(argv[2], argv[3]);
        return removeRange(ctx, argv[1], "zremrangebyscore", z -> z.removeRange(r));
    }

    static Reply zremrangebylex(CommandContext ctx, byte[][] argv) {
        LexRange r = parseLexRange(argv[2], argv[3]);
        return removeRange(ctx, argv[1], "zremrangebylex", z -> z.removeLex(r));
    }

    /**
     * ZREMRANGEBY*: {@code remove} takes its range out of the sorted set at {@code key}; replies how many.
     * {@code event} is the keyspace notification.
     */
    private static Reply removeRange(CommandContext ctx, byte[] key, String event, ToIntFunction<ZSetValue> remove) {
        ZSetValue z = zset(ctx.readForWrite(key));
        if (z == null) return Reply.ZERO;
        int removed = remove.applyAsInt(z);
        if (removed > 0) ctx.notify(KeyspaceEvents.ZSET, event, key);
        written(ctx, key, z, removed > 0);
        if (z.size() == 0) ctx.notify(KeyspaceEvents.GENERIC, "del", key);
        return Reply.integer(removed);
    }

    // ------------------------------------------------------------------ pops

    static Reply zpopmin(CommandContext ctx, byte[][] argv) {
        return popMinMax(ctx, argv, false);
    }

    static Reply zpopmax(CommandContext ctx, byte[][] argv) {
        return popMinMax(ctx, argv, true);
    }

    private static Reply popMinMax(CommandContext ctx, byte[][] argv, boolean max) {
        if (argv.length > 3) throw Errors.syntax();
        long count = -1;
        if (argv.length == 3) count = rangeLong(argv[2], 0, Long.MAX_VALUE, Errors.MUST_BE_POSITIVE);
        boolean nested = resp3(ctx) && count != -1;
        return pop(ctx, new byte[][] {argv[1]}, max, false, count, nested, false);
    }

    /**
     * Redis's genericZpopCommand: pops from the first existing key of {@code keys}; the reply shape depends
     * on {@code emitKey} (BZPOP*, ZMPOP) and {@code nested} (pairs as arrays).
     */
    private static Reply pop(CommandContext ctx, byte[][] keys, boolean max, boolean emitKey, long count,
                             boolean nested, boolean nilWhenEmpty) {
        byte[] key = null;
        ZSetValue z = null;
        for (byte[] k : keys) {
            Object v = ctx.readForWrite(k);
            if (v == null) continue;
            z = zset(v);
            key = k;
            break;
        }
        if (z == null) return nilWhenEmpty ? Reply.NULL_ARRAY : Reply.EMPTY_ARRAY;
        if (count == 0) return Reply.EMPTY_ARRAY;
        if (count == -1) count = 1;
        int n = z.size();
        int rangelen = (int) Math.min(count, n);
        List<Reply> items = new ArrayList<>();
        int[] left = {rangelen};
        z.walk(max ? n - 1 : 0, max, (m, s) -> {
            if (nested) {
                items.add(Reply.array(Reply.bulk(m), score(s)));
            } else {
                items.add(Reply.bulk(m));
                items.add(score(s));
            }
            return --left[0] > 0;
        });
        if (max) z.removeRanks(n - rangelen, n - 1);
        else z.removeRanks(0, rangelen - 1);
        ctx.notify(KeyspaceEvents.ZSET, max ? "zpopmax" : "zpopmin", key);
        written(ctx, key, z, true);
        // As Redis propagates ZMPOP and a served BZPOPMIN/BZMPOP: the plain pop of the key that served.
        if (emitKey) ctx.propagateAs(new byte[][] {Args.bytes(max ? "ZPOPMAX" : "ZPOPMIN"), key, Args.bytes(rangelen)});
        if (z.size() == 0) ctx.notify(KeyspaceEvents.GENERIC, "del", key);
        if (!emitKey) return Reply.array(items);
        if (!nested) {
            items.add(0, Reply.bulk(key));
            return Reply.array(items);
        }
        return Reply.array(Reply.bulk(key), Reply.array(items));
    }

    /** ZMPOP and BZMPOP's arguments after numkeys: MIN|MAX [COUNT count]. */
    private record MpopArgs(byte[][] keys, boolean max, long count) {}

    private static MpopArgs mpopArgs(byte[][] argv, int numkeysIdx) {
        long numkeys = rangeLong(argv[numkeysIdx], 1, Long.MAX_VALUE, Errors.NUMKEYS_NOT_POSITIVE);
        if (numkeys >= argv.length - numkeysIdx - 1) throw Errors.syntax();
        int whereIdx = numkeysIdx + (int) numkeys + 1;
        boolean max;
        if (Args.is(argv[whereIdx], "min")) max = false;
        else if (Args.is(argv[whereIdx], "max")) max = true;
        else throw Errors.syntax();
        long count = -1;
        for (int j = whereIdx + 1; j < argv.length; j++) {
            boolean more = argv.length - 1 - j > 0;
            if (count == -1 && Args.is(argv[j], "count") && more) {
                j++;
                count = rangeLong(argv[j], 1, Long.MAX_VALUE, Errors.LIST_COUNT_NOT_POSITIVE);
            } else {
                throw Errors.syntax();
            }
        }
        if (count == -1) count = 1;
        byte[][] keys = Arrays.copyOfRange(argv, numkeysIdx + 1, whereIdx);
        return new MpopArgs(keys, max, count);
    }

    static Reply zmpop(CommandContext ctx, byte[][] argv) {
        MpopArgs a = mpopArgs(argv, 1);
        return pop(ctx, a.keys(), a.max(), true, a.count(), true, true);
    }

    static Reply bzpopmin(CommandContext ctx, byte[][] argv) {
        return blockingPop(ctx, argv, Arrays.copyOfRange(argv, 1, argv.length - 1), false, argv[argv.length - 1],
                -1, false);
    }

    static Reply bzpopmax(CommandContext ctx, byte[][] argv) {
        return blockingPop(ctx, argv, Arrays.copyOfRange(argv, 1, argv.length - 1), true, argv[argv.length - 1],
                -1, false);
    }

    static Reply bzmpop(CommandContext ctx, byte[][] argv) {
        MpopArgs a = mpopArgs(argv, 2);
        return blockingPop(ctx, argv, a.keys(), a.max(), argv[1], a.count(), true);
    }

    /**
     * blockingGenericZpopCommand: pops from the first non-empty key, else blocks on all of them. A retry (a key
     * was signalled) passes over keys that are not sorted sets, as Redis 7.0 serves a ready key only when it holds
     * a sorted set: a key deleted and recreated as a string in one MULTI leaves the client waiting, not WRONGTYPE.
     */
    private static Reply blockingPop(CommandContext ctx, byte[][] argv, byte[][] keys, boolean max, byte[] timeout,
                                     long count, boolean nested) {
        long deadline = Args.timeoutSeconds(timeout, ctx.now());
        boolean retry = ctx.isRetry();
        for (byte[] k : keys) {
            Object v = ctx.readForWrite(k);
            if (v == null || (retry && !(v instanceof ZSetValue))) continue;
            ZSetValue z = zset(v);
            if (z.size() == 0) continue;
            return pop(ctx, new byte[][] {k}, max, true, count, nested, nested);
        }
        return ctx.block(keys, deadline, Reply.NULL_ARRAY, argv);
    }

    // ------------------------------------------------------------------ ZRANDMEMBER

    static Reply zrandmember(CommandContext ctx, byte[][] argv) {
        if (argv.length >= 3) {
            return randWithCount(ctx, argv[1], HashCommands.randomCount(argv, "withscores"), argv.length == 4);
        }
        ZSetValue z = zset(ctx.read(argv[1]));
        if (z == null) return Reply.NULL;
        byte[][] m = new byte[1][];
        z.walk(ThreadLocalRandom.current().nextInt(z.size()), false, (mm, s) -> {
            m[0] = mm;
            return false;
        });
        return Reply.bulk(m[0]);
    }

    private static Reply randWithCount(CommandContext ctx, byte[] key, long l, boolean withScores) {
        ZSetValue z = zset(ctx.read(key));
        if (z == null) return Reply.EMPTY_ARRAY;
        int size = z.size();
        boolean uniq = l >= 0;
        long count = uniq ? l : -l;
        if (count == 0) return Reply.EMPTY_ARRAY;
        Emitter e = new Emitter(withScores, resp3(ctx));
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        if (!uniq || count == 1) {
            // CASE 1: count samples with repetition, in random order.
            // Redis streams the reply; this server builds it, so a count past the longest array it can hold
            // is refused as out of range, as SRANDMEMBER does here.
            long most = SetCommands.MAX_REPLY_ELEMENTS / (withScores ? 2 : 1);
            if (count > most) throw Errors.error(Errors.VALUE_MUST_BE_BETWEEN + -most + " and " + Long.MAX_VALUE);
            if (z.isListpack()) {
                Entries all = Entries.of(z);
                for (long k = 0; k < count; k++) {
                    int r = rnd.nextInt(size);
                    e.visit(all.members[r], all.scores[r]);
                }
            } else {
                for (long k = 0; k < count; k++) z.walk(rnd.nextInt(size), false, (m, s) -> e.visit(m, s) && false);
            }
            return e.reply();
        }
        if (count >= size) {
            // CASE 2: the whole set, in the order Redis iterates it (highest first).
            z.forEach(true, e);
            return e.reply();
        }
        int want = (int) count;
        if (z.isListpack() || count * 3 > size) {
            // CASES 2.5 and 3: distinct members drawn from all of them; a listpack sample keeps listpack order.
            Entries all = Entries.of(z);
            int[] idx = new int[size];
            for (int k = 0; k < size; k++) idx[k] = k;
            for (int k = 0; k < want; k++) {
                int j = k + rnd.nextInt(size - k);
                int t = idx[k];
                idx[k] = idx[j];
                idx[j] = t;
            }
            int[] chosen = Arrays.copyOf(idx, want);
            if (z.isListpack()) Arrays.sort(chosen);
            for (int k : chosen) e.visit(all.members[k], all.scores[k]);
            return e.reply();
        }
        // CASE 4: a large set: random picks until enough distinct ones.
        ByteMap seen = new ByteMap(want);
        while (seen.size() < want) {
            z.walk(rnd.nextInt(size), false, (m, s) -> {
                if (seen.put(m, null)) e.visit(m, s);
                return false;
            });
        }
        return e.reply();
    }

    /** A set's entries copied out in ascending order. */
    private record Entries(byte[][] members, double[] scores) {
        static Entries of(ZSetValue z) {
            byte[][] members = new byte[z.size()][];
            double[] scores = new double[z.size()];
            int[] i = {0};
            z.forEach(false, (m, s) -> {
                members[i[0]] = m;
                scores[i[0]++] = s;
                return true;
            });
            return new Entries(members, scores);
        }
    }

    // ------------------------------------------------------------------ ZUNION, ZINTER, ZDIFF and their STOREs

    static Reply zunion(CommandContext ctx, byte[][] argv) {
        return setOp(ctx, argv, null, 1, UNION, false, "zunion");
    }

    static Reply zunionstore(CommandContext ctx, byte[][] argv) {
        return setOp(ctx, argv, argv[1], 2, UNION, false, "zunionstore");
    }

    static Reply zinter(CommandContext ctx, byte[][] argv) {
        return setOp(ctx, argv, null, 1, INTER, false, "zinter");
    }

    static Reply zinterstore(CommandContext ctx, byte[][] argv) {
        return setOp(ctx, argv, argv[1], 2, INTER, false, "zinterstore");
    }

    static Reply zintercard(CommandContext ctx, byte[][] argv) {
        return setOp(ctx, argv, null, 1, INTER, true, "zintercard");
    }

    static Reply zdiff(CommandContext ctx, byte[][] argv) {
        return setOp(ctx, argv, null, 1, DIFF, false, "zdiff");
    }

    static Reply zdiffstore(CommandContext ctx, byte[][] argv) {
        return setOp(ctx, argv, argv[1], 2, DIFF, false, "zdiffstore");
    }

    /** An input of a set operation: a sorted set, a plain set (members count with score 1), or nothing. */
    private static final class Source {
        final Object subject;
        final ZSetValue zset;
        final SetValue set;
        double weight = 1;

        Source(Object subject) {
            this.subject = subject;
            if (subject == null) {
                zset = null;
                set = null;
            } else if (subject instanceof ZSetValue z) {
                zset = z;
                set = null;
            } else if (subject instanceof SetValue sv) {
                zset = null;
                set = sv;
            } else {
                throw Errors.wrongType();
            }
        }

        int length() {
            return zset != null ? zset.size() : set != null ? set.size() : 0;
        }

        /** Members with their scores, sorted sets from the highest (zuiInitIterator's order). */
        void forEach(ZSetValue.EntryVisitor v) {
            if (zset != null) {
                zset.forEach(true, v);
            } else if (set != null) {
                set.forEach(m -> v.visit(m, 1.0));
            }
        }

        /** The member's score in this input, NaN when absent. */
        double find(byte[] member) {
            if (zset != null) return zset.score(member);
            if (set != null) return set.contains(member) ? 1.0 : Double.NaN;
            return Double.NaN;
        }
    }

    private static double aggregate(double target, double val, int agg) {
        return switch (agg) {
            case AGG_SUM -> {
                double r = target + val;
                yield Double.isNaN(r) ? 0.0 : r;
            }
            case AGG_MIN -> val < target ? val : target;
            default -> val > target ? val : target;
        };
    }

    /** Redis's zunionInterDiffGenericCommand. */
    private static Reply setOp(CommandContext ctx, byte[][] argv, byte[] dst, int numkeysIdx, int op,
                               boolean cardinalityOnly, String name) {
        long setnum = Args.parseLong(argv[numkeysIdx]);
        if (setnum < 1) throw Errors.error(Errors.AT_LEAST_ONE_KEY + name + "' command");
        if (setnum > argv.length - (numkeysIdx + 1)) throw Errors.syntax();
        int n = (int) setnum;
        Source[] src = new Source[n];
        int j = numkeysIdx + 1;
        for (int i = 0; i < n; i++, j++) src[i] = new Source(ctx.read(argv[j]));
        int aggregate = AGG_SUM;
        boolean withScores = false;
        long limit = 0;
        int remaining = argv.length - j;
        while (remaining > 0) {
            if (op != DIFF && !cardinalityOnly && remaining >= n + 1 && Args.is(argv[j], "weights")) {
                j++;
                remaining--;
                for (int i = 0; i < n; i++, j++, remaining--) {
                    src[i].weight = parseDouble(argv[j], Errors.WEIGHT_NOT_FLOAT);
                }
            } else if (op != DIFF && !cardinalityOnly && remaining >= 2 && Args.is(argv[j], "aggregate")) {
                j++;
                remaining--;
                if (Args.is(argv[j], "sum")) aggregate = AGG_SUM;
                else if (Args.is(argv[j], "min")) aggregate = AGG_MIN;
                else if (Args.is(argv[j], "max")) aggregate = AGG_MAX;
                else throw Errors.syntax();
                j++;
                remaining--;
            } else if (dst == null && !cardinalityOnly && Args.is(argv[j], "withscores")) {
                j++;
                remaining--;
                withScores = true;
            } else if (cardinalityOnly && remaining >= 2 && Args.is(argv[j], "limit")) {
                j++;
                remaining--;
                limit = rangeLong(argv[j], 0, Long.MAX_VALUE, Errors.LIMIT_NEGATIVE);
                j++;
                remaining--;
            } else {
                throw Errors.syntax();
            }
        }
        if (op != DIFF) Arrays.sort(src, Comparator.comparingInt(Source::length)); // stable, as glibc's qsort

        List<byte[]> members = new ArrayList<>();
        List<Double> scores = new ArrayList<>();
        long cardinality = 0;
        int agg = aggregate;
        if (op == INTER) {
            if (src[0].length() > 0) {
                long cap = limit;
                long[] card = {0};
                src[0].forEach((m, s) -> {
                    double sc = src[0].weight * s;
                    if (Double.isNaN(sc)) sc = 0;
                    int k;
                    for (k = 1; k < n; k++) {
                        double value;
                        if (src[k].subject == src[0].subject) {
                            value = s * src[k].weight;
                        } else {
                            value = src[k].find(m);
                            if (Double.isNaN(value)) break;
                            value *= src[k].weight;
                        }
                        sc = aggregate(sc, value, agg);
                    }
                    if (k == n) {
                        if (cardinalityOnly) {
                            card[0]++;
                            return cap == 0 || card[0] < cap;
                        }
                        members.add(m);
                        scores.add(sc);
                    }
                    return true;
                });
                cardinality = card[0];
            }
        } else if (op == UNION) {
            ByteMap acc = new ByteMap(src[n - 1].length());
            List<byte[]> order = new ArrayList<>();
            for (Source s : src) {
                if (s.length() == 0) continue;
                double w = s.weight;
                s.forEach((m, sc) -> {
                    double value = w * sc;
                    if (Double.isNaN(value)) value = 0;
                    int slot = acc.indexOf(m);
                    if (slot < 0) {
                        acc.put(m, value);
                        order.add(m);
                    } else {
                        acc.setValueAt(slot, aggregate((Double) acc.valueAt(slot), value, agg));
                    }
                    return true;
                });
            }
            for (byte[] m : order) {
                members.add(m);
                scores.add((Double) acc.get(m));
            }
        } else {
            boolean same = false;
            for (int k = 1; k < n; k++) same |= src[k].subject != null && src[k].subject == src[0].subject;
            if (src[0].length() > 0 && !same) {
                src[0].forEach((m, s) -> {
                    for (int k = 1; k < n; k++) {
                        if (!Double.isNaN(src[k].find(m))) return true;
                    }
                    members.add(m);
                    scores.add(s);
                    return true;
                });
            }
        }
        if (cardinalityOnly) return Reply.integer(cardinality);

        int size = members.size();
        Integer[] ix = new Integer[size];
        for (int i = 0; i < size; i++) ix[i] = i;
        Arrays.sort(ix, (a, b) -> {
            double sa = scores.get(a);
            double sb = scores.get(b);
            if (sa < sb) return -1;
            if (sa > sb) return 1;
            return Arrays.compareUnsigned(members.get(a), members.get(b));
        });
        byte[][] sortedMembers = new byte[size][];
        double[] sortedScores = new double[size];
        for (int i = 0; i < size; i++) {
            sortedMembers[i] = members.get(ix[i]);
            sortedScores[i] = scores.get(ix[i]);
        }
        if (dst != null) {
            Database db = ctx.db(dst);
            if (size == 0) {
                if (db.remove(dst) != null) ctx.notify(KeyspaceEvents.GENERIC, "del", dst);
                return Reply.ZERO;
            }
            ZSetValue out = ZSetValue.fromSorted(sortedMembers, sortedScores, size, limits(ctx));
            db.put(dst, out, 0, ctx.now());
            ctx.notify(KeyspaceEvents.ZSET, name, dst);
            return Reply.integer(size);
        }
        Emitter e = new Emitter(withScores, resp3(ctx));
        for (int i = 0; i < size; i++) e.visit(sortedMembers[i], sortedScores[i]);
        return e.reply();
    }

    // ------------------------------------------------------------------ ZSCAN

    static Reply zscan(CommandContext ctx, byte[][] argv) {
        long cursor = KeyCommands.parseCursor(argv[2]);
        ZSetValue z = zset(ctx.read(argv[1]));
        if (z == null) return ScanOptions.EMPTY;
        ScanOptions o = ScanOptions.parse(argv, 3, Errors.SYNTAX, false);
        List<Reply> out = new ArrayList<>();
        ZSetValue.EntryVisitor add = (m, s) -> {
            if (o.matches(m)) {
                out.add(Reply.bulk(m));
                out.add(Reply.bulk(RespWriter.formatDouble(s)));
            }
            return true;
        };
        long next = 0;
        if (z.isListpack()) {
            z.forEach(false, add);
        } else {
            next = z.scan(cursor, o.limit(), add);
        }
        return ScanOptions.reply(next, out);
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        ZADD,
        ZINCRBY,
        ZREM,
        ZCARD,
        ZCOUNT,
        ZLEXCOUNT,
        ZSCORE,
        ZMSCORE,
        ZRANK,
        ZREVRANK,
        ZRANGE,
        ZRANGESTORE,
        ZREVRANGE,
        ZRANGEBYSCORE,
        ZREVRANGEBYSCORE,
        ZRANGEBYLEX,
        ZREVRANGEBYLEX,
        ZREMRANGEBYRANK,
        ZREMRANGEBYSCORE,
        ZREMRANGEBYLEX,
        ZPOPMIN,
        ZPOPMAX,
        ZMPOP,
        BZPOPMIN,
        BZPOPMAX,
        BZMPOP,
        ZRANDMEMBER,
        ZUNION,
        ZUNIONSTORE,
        ZINTER,
        ZINTERSTORE,
        ZINTERCARD,
        ZDIFF,
        ZDIFFSTORE,
        ZSCAN;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case ZADD -> zadd(ctx, argv);
                case ZINCRBY -> zincrby(ctx, argv);
                case ZREM -> zrem(ctx, argv);
                case ZCARD -> zcard(ctx, argv);
                case ZCOUNT -> zcount(ctx, argv);
                case ZLEXCOUNT -> zlexcount(ctx, argv);
                case ZSCORE -> zscore(ctx, argv);
                case ZMSCORE -> zmscore(ctx, argv);
                case ZRANK -> zrank(ctx, argv);
                case ZREVRANK -> zrevrank(ctx, argv);
                case ZRANGE -> zrange(ctx, argv);
                case ZRANGESTORE -> zrangestore(ctx, argv);
                case ZREVRANGE -> zrevrange(ctx, argv);
                case ZRANGEBYSCORE -> zrangebyscore(ctx, argv);
                case ZREVRANGEBYSCORE -> zrevrangebyscore(ctx, argv);
                case ZRANGEBYLEX -> zrangebylex(ctx, argv);
                case ZREVRANGEBYLEX -> zrevrangebylex(ctx, argv);
                case ZREMRANGEBYRANK -> zremrangebyrank(ctx, argv);
                case ZREMRANGEBYSCORE -> zremrangebyscore(ctx, argv);
                case ZREMRANGEBYLEX -> zremrangebylex(ctx, argv);
                case ZPOPMIN -> zpopmin(ctx, argv);
                case ZPOPMAX -> zpopmax(ctx, argv);
                case ZMPOP -> zmpop(ctx, argv);
                case BZPOPMIN -> bzpopmin(ctx, argv);
                case BZPOPMAX -> bzpopmax(ctx, argv);
                case BZMPOP -> bzmpop(ctx, argv);
                case ZRANDMEMBER -> zrandmember(ctx, argv);
                case ZUNION -> zunion(ctx, argv);
                case ZUNIONSTORE -> zunionstore(ctx, argv);
                case ZINTER -> zinter(ctx, argv);
                case ZINTERSTORE -> zinterstore(ctx, argv);
                case ZINTERCARD -> zintercard(ctx, argv);
                case ZDIFF -> zdiff(ctx, argv);
                case ZDIFFSTORE -> zdiffstore(ctx, argv);
                case ZSCAN -> zscan(ctx, argv);
            };
        }
    }
}
