package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** ZSetValue in both encodings against a plain model, its encoding switches, memory and SCAN. */
class ZSetValueTest {

    private static final EncodingLimits LIMITS = EncodingLimits.DEFAULTS;

    private static EncodingLimits zsetLimits(long entries, long value) {
        return new EncodingLimits(-2, 512, 64, 512, 128, 64, entries, value, 4096, 100, 3000);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static int add(ZSetValue z, double score, String member, int flags) {
        return z.add(score, b(member), flags, LIMITS, new double[1]);
    }

    /** A value in the requested encoding: listpack, or skiplist forced by a size hint. */
    private static ZSetValue empty(boolean skiplist) {
        ZSetValue z = ZSetValue.create(skiplist ? 1000 : 1, 1, LIMITS);
        assertThat(z.encodingName()).isEqualTo(skiplist ? "btree" : "listpack");
        return z;
    }

    private static List<String> members(ZSetValue z, boolean reverse) {
        List<String> out = new ArrayList<>();
        z.forEach(reverse, (m, sc) -> out.add(s(m) + "=" + sc));
        return out;
    }

    @ParameterizedTest(name = "skiplist={0}")
    @ValueSource(booleans = {false, true})
    void order_isScoreThenMemberBytes(boolean skiplist) {
        ZSetValue z = empty(skiplist);
        add(z, 2, "b", 0);
        add(z, 1, "z", 0);
        add(z, 2, "a", 0);
        add(z, 2, "\u00e9", 0); // bytes 0xC3 0xA9: after ASCII, compared unsigned
        add(z, Double.NEGATIVE_INFINITY, "low", 0);
        add(z, 2, "aa", 0);
        assertThat(members(z, false)).containsExactly("low=-Infinity", "z=1.0", "a=2.0", "aa=2.0", "b=2.0",
                "\u00e9=2.0");
        assertThat(members(z, true).getFirst()).isEqualTo("\u00e9=2.0");
        assertThat(z.rank(b("aa"), false)).isEqualTo(3);
        assertThat(z.rank(b("aa"), true)).isEqualTo(2);
        assertThat(z.rank(b("nope"), false)).isEqualTo(-1);
    }

    @ParameterizedTest(name = "skiplist={0}")
    @ValueSource(booleans = {false, true})
    void add_flagsAsZsetAdd(boolean skiplist) {
        ZSetValue z = empty(skiplist);
        double[] ns = new double[1];
        assertThat(z.add(1, b("a"), 0, LIMITS, ns)).isEqualTo(ZSetValue.OUT_ADDED);
        assertThat(z.add(1, b("a"), 0, LIMITS, ns)).isZero();
        assertThat(z.add(5, b("a"), ZSetValue.IN_NX, LIMITS, ns)).isEqualTo(ZSetValue.OUT_NOP);
        assertThat(z.add(5, b("b"), ZSetValue.IN_XX, LIMITS, ns)).isEqualTo(ZSetValue.OUT_NOP);
        assertThat(z.add(0, b("a"), ZSetValue.IN_GT, LIMITS, ns)).isEqualTo(ZSetValue.OUT_NOP);
        assertThat(z.add(3, b("a"), ZSetValue.IN_GT, LIMITS, ns)).isEqualTo(ZSetValue.OUT_UPDATED);
        assertThat(z.add(4, b("a"), ZSetValue.IN_LT, LIMITS, ns)).isEqualTo(ZSetValue.OUT_NOP);
        assertThat(z.add(2, b("a"), ZSetValue.IN_INCR, LIMITS, ns)).isEqualTo(ZSetValue.OUT_UPDATED);
        assertThat(ns[0]).isEqualTo(5);
        assertThat(z.add(Double.POSITIVE_INFINITY, b("a"), 0, LIMITS, ns)).isEqualTo(ZSetValue.OUT_UPDATED);
        assertThat(z.add(Double.NEGATIVE_INFINITY, b("a"), ZSetValue.IN_INCR, LIMITS, ns))
                .isEqualTo(ZSetValue.OUT_NAN);
        assertThat(z.add(Double.NaN, b("c"), 0, LIMITS, ns)).isEqualTo(ZSetValue.OUT_NAN);
        assertThat(z.score(b("a"))).isEqualTo(Double.POSITIVE_INFINITY);
        assertThat(z.size()).isEqualTo(1);
    }

    @Test
    void negativeZero_becomesZeroInListpackOnly() {
        ZSetValue lp = empty(false);
        ZSetValue sl = empty(true);
        add(lp, -0.0, "m", 0);
        add(sl, -0.0, "m", 0);
        assertThat(1 / lp.score(b("m"))).isPositive();
        assertThat(1 / sl.score(b("m"))).isNegative();
    }

    @Test
    void listpack_convertsAtRedisThresholds() {
        ZSetValue z = ZSetValue.create(1, 1, LIMITS);
        for (int i = 0; i < 128; i++) add(z, i, "m" + i, 0);
        assertThat(z.encodingName()).isEqualTo("listpack");
        add(z, 0, "m0", ZSetValue.IN_INCR); // an update never converts
        assertThat(z.encodingName()).isEqualTo("listpack");
        add(z, 200, "m128", 0);
        assertThat(z.encodingName()).isEqualTo("btree");
        assertThat(z.size()).isEqualTo(129);
        for (int i = 0; i < 129; i++) z.remove(b("m" + i));
        assertThat(z.size()).isZero();
        assertThat(z.encodingName()).isEqualTo("btree"); // never converts back by itself

        ZSetValue v = ZSetValue.create(1, 1, LIMITS);
        add(v, 1, "x".repeat(64), 0);
        assertThat(v.encodingName()).isEqualTo("listpack");
        add(v, 1, "y".repeat(65), 0);
        assertThat(v.encodingName()).isEqualTo("btree");

        assertThat(ZSetValue.create(129, 1, LIMITS).encodingName()).isEqualTo("btree");
        assertThat(ZSetValue.create(128, 65, LIMITS).encodingName()).isEqualTo("btree");
        ZSetValue w = ZSetValue.create(1, 1, LIMITS);
        add(w, 1, "a", 0);
        w.maybeConvert(128, LIMITS);
        assertThat(w.encodingName()).isEqualTo("listpack");
        w.maybeConvert(129, LIMITS);
        assertThat(w.encodingName()).isEqualTo("btree");
        assertThat(w.score(b("a"))).isEqualTo(1);
    }

    @Test
    void fromSorted_picksEncodingAsStoreCommands() {
        byte[][] m = {b("a"), b("b")};
        double[] sc = {1, 2};
        assertThat(ZSetValue.fromSorted(m, sc, 2, LIMITS).encodingName()).isEqualTo("listpack");
        byte[][] longer = {b("a"), b("b".repeat(65))};
        assertThat(ZSetValue.fromSorted(longer, sc, 2, LIMITS).encodingName()).isEqualTo("btree");
        byte[][] many = new byte[200][];
        double[] manyScores = new double[200];
        for (int i = 0; i < 200; i++) {
            many[i] = b(String.format("m%03d", i));
            manyScores[i] = i;
        }
        ZSetValue big = ZSetValue.fromSorted(many, manyScores, 200, LIMITS);
        assertThat(big.encodingName()).isEqualTo("btree");
        assertThat(big.rank(b("m150"), false)).isEqualTo(150);
    }

    @ParameterizedTest(name = "skiplist={0}")
    @ValueSource(booleans = {false, true})
    void randomOperations_matchModel(boolean skiplist) {
        Random rnd = new Random(skiplist ? 7 : 11);
        EncodingLimits roomy = zsetLimits(100_000, 100_000);
        ZSetValue z = skiplist ? ZSetValue.create(1000, 1, LIMITS) : ZSetValue.create(1, 1, roomy);
        TreeMap<String, Double> model = new TreeMap<>();
        for (int step = 0; step < 4000; step++) {
            String m = "k" + rnd.nextInt(300);
            int op = rnd.nextInt(10);
            if (op < 6) {
                double sc = rnd.nextInt(50);
                z.add(sc, b(m), 0, roomy, new double[1]);
                model.put(m, sc);
            } else if (op < 8) {
                assertThat(z.remove(b(m))).isEqualTo(model.remove(m) != null);
            } else if (op == 8 && !model.isEmpty()) {
                int a = rnd.nextInt(model.size());
                int c = Math.min(model.size() - 1, a + rnd.nextInt(5));
                List<String> sorted = sortedModel(model);
                for (int i = a; i <= c; i++) model.remove(sorted.get(i).split("=")[0]);
                assertThat(z.removeRanks(a, c)).isEqualTo(c - a + 1);
            } else {
                ZSetValue.ScoreRange r = new ZSetValue.ScoreRange(rnd.nextInt(50), rnd.nextBoolean(),
                        rnd.nextInt(50), rnd.nextBoolean());
                long expected = model.values().stream().filter(v -> r.gteMin(v) && r.lteMax(v)).count();
                assertThat(z.countInRange(r)).isEqualTo((int) expected);
            }
            if (step % 97 == 0) {
                assertThat(members(z, false)).isEqualTo(sortedModel(model));
                List<String> sorted = sortedModel(model);
                for (int i = 0; i < sorted.size(); i += 7) {
                    String name = sorted.get(i).split("=")[0];
                    assertThat(z.rank(b(name), false)).isEqualTo(i);
                    int at = i;
                    z.walk(i, false, (mm, sc) -> {
                        assertThat(s(mm) + "=" + sc).isEqualTo(sorted.get(at));
                        return false;
                    });
                }
            }
        }
        assertThat(z.size()).isEqualTo(model.size());
        assertThat(z.encodingName()).isEqualTo(skiplist ? "btree" : "listpack");
    }

    private static List<String> sortedModel(TreeMap<String, Double> model) {
        List<String> out = new ArrayList<>();
        model.entrySet().stream()
                .sorted((x, y) -> x.getValue().equals(y.getValue())
                        ? Arrays.compareUnsigned(b(x.getKey()), b(y.getKey()))
                        : Double.compare(x.getValue(), y.getValue()))
                .forEach(e -> out.add(e.getKey() + "=" + e.getValue()));
        return out;
    }

    @ParameterizedTest(name = "skiplist={0}")
    @ValueSource(booleans = {false, true})
    void lexRanges_firstLastCountRemove(boolean skiplist) {
        ZSetValue z = empty(skiplist);
        for (String m : new String[] {"a", "b", "c", "d", "e"}) add(z, 0, m, 0);
        ZSetValue.LexRange bd = new ZSetValue.LexRange(b("b"), false, b("d"), true);
        assertThat(z.firstInLex(bd)).isEqualTo(1);
        assertThat(z.lastInLex(bd)).isEqualTo(2);
        assertThat(z.countInLex(bd)).isEqualTo(2);
        ZSetValue.LexRange all = new ZSetValue.LexRange(ZSetValue.LexRange.MIN_STRING, true,
                ZSetValue.LexRange.MAX_STRING, true);
        assertThat(z.countInLex(all)).isEqualTo(5);
        ZSetValue.LexRange none = new ZSetValue.LexRange(b("x"), false, b("z"), false);
        assertThat(z.firstInLex(none)).isEqualTo(-1);
        assertThat(z.removeLex(bd)).isEqualTo(2);
        assertThat(members(z, false)).containsExactly("a=0.0", "d=0.0", "e=0.0");
        assertThat(z.removeLex(all)).isEqualTo(3);
        assertThat(z.size()).isZero();
    }

    @ParameterizedTest(name = "skiplist={0}")
    @ValueSource(booleans = {false, true})
    void copy_isDeepAndSameEncoding(boolean skiplist) {
        ZSetValue z = empty(skiplist);
        for (int i = 0; i < 50; i++) add(z, i, "m" + i, 0);
        ZSetValue c = z.copy();
        assertThat(c.encodingName()).isEqualTo(z.encodingName());
        if (!skiplist) assertThat(c.memoryBytes()).isEqualTo(z.memoryBytes());
        add(c, 100, "m0", 0);
        c.remove(b("m1"));
        assertThat(z.score(b("m0"))).isZero();
        assertThat(z.size()).isEqualTo(50);
        assertThat(members(c, false)).hasSize(49);
    }

    @ParameterizedTest(name = "skiplist={0}")
    @ValueSource(booleans = {false, true})
    void memoryBytes_growsAndShrinksWithContent(boolean skiplist) {
        ZSetValue z = empty(skiplist);
        long empty = z.memoryBytes();
        for (int i = 0; i < 100; i++) add(z, i, "member:" + i, 0);
        long full = z.memoryBytes();
        assertThat(full).isGreaterThan(empty + 100 * 8);
        for (int i = 0; i < 100; i++) z.remove(b("member:" + i));
        assertThat(z.memoryBytes()).isLessThan(full);
        if (!skiplist) assertThat(z.memoryBytes()).isEqualTo(empty);
    }

    @Test
    void bytesPerElement_listpackSmallerThanSkiplist() {
        int n = 100;
        EncodingLimits noListpack = zsetLimits(0, 64);
        ZSetValue lp = ZSetValue.create(n, 10, LIMITS);
        ZSetValue sl = ZSetValue.create(n, 10, noListpack);
        for (int i = 0; i < n; i++) {
            add(lp, i * 1.5, "member:" + i, 0);
            add(sl, i * 1.5, "member:" + i, 0);
        }
        double lpPer = (double) lp.memoryBytes() / n;
        double slPer = (double) sl.memoryBytes() / n;
        System.out.printf("zset bytes per element (%d members of ~10 bytes): listpack %.1f, skiplist %.1f%n",
                n, lpPer, slPer);
        assertThat(lp.encodingName()).isEqualTo("listpack");
        assertThat(sl.encodingName()).isEqualTo("btree");
        assertThat(lpPer).isLessThan(slPer);
    }

    @Test
    void scan_returnsEveryMemberPresentThroughoutAcrossResizes() {
        ZSetValue z = empty(true);
        for (int i = 0; i < 1000; i++) add(z, i, "stay" + i, 0);
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        int round = 0;
        do {
            cursor = z.scan(cursor, 10, (m, sc) -> {
                seen.add(s(m));
                return true;
            });
            // grow and shrink the member map between calls
            if (round % 3 == 0) for (int i = 0; i < 200; i++) add(z, -1, "tmp" + round + "_" + i, 0);
            if (round % 3 == 2) for (int r = round - 2; r < round; r++) {
                for (int i = 0; i < 200; i++) z.remove(b("tmp" + r + "_" + i));
            }
            round++;
        } while (cursor != 0);
        for (int i = 0; i < 1000; i++) assertThat(seen).contains("stay" + i);
    }
}
