package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

class SetValueTest {

    private static final EncodingLimits DEFAULTS = EncodingLimits.DEFAULTS;

    /** Redis's defaults with the three set thresholds replaced. */
    private static EncodingLimits setLimits(long intsetEntries, long listpackEntries, long listpackValue) {
        return new EncodingLimits(-2, 512, 64, intsetEntries, listpackEntries, listpackValue, 128, 64, 4096, 100, 3000);
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static List<String> members(SetValue set) {
        List<String> out = new ArrayList<>();
        set.forEach(m -> out.add(s(m)));
        return out;
    }

    private static SetValue setOf(String... members) {
        SetValue set = SetValue.create(b(members[0]), members.length, DEFAULTS);
        for (String m : members) set.add(b(m), DEFAULTS);
        return set;
    }

    // ---------------------------------------------------------------- IntSet

    @Test
    void intSet_randomOperations_matchTreeSet_acrossWidths() {
        Random rnd = new Random(11);
        IntSet is = new IntSet();
        TreeSet<Long> ref = new TreeSet<>();
        long[] scales = {100, 40_000, 3_000_000_000L, Long.MAX_VALUE};
        for (int op = 0; op < 20_000; op++) {
            long scale = scales[Math.min(op / 4000, 3)];
            long v = scale == Long.MAX_VALUE ? rnd.nextLong() : rnd.nextLong(-scale, scale);
            if (rnd.nextInt(3) == 0 && !ref.isEmpty()) {
                long victim = rnd.nextBoolean() ? ref.first() : v;
                assertThat(is.remove(victim)).isEqualTo(ref.remove(victim));
            } else {
                assertThat(is.add(v)).isEqualTo(ref.add(v));
            }
            assertThat(is.size()).isEqualTo(ref.size());
        }
        int i = 0;
        for (long v : ref) assertThat(is.get(i++)).isEqualTo(v);
        assertThat(is.width()).isEqualTo(8);
        assertThat(is.contains(ref.first())).isTrue();
    }

    @Test
    void intSet_upgrade_placesNewExtremeAtTheRightEnd() {
        IntSet is = new IntSet();
        is.add(5);
        is.add(-3);
        assertThat(is.width()).isEqualTo(2);
        is.add(70_000);
        assertThat(is.width()).isEqualTo(4);
        is.add(-5_000_000_000L);
        assertThat(is.width()).isEqualTo(8);
        assertThat(List.of(is.get(0), is.get(1), is.get(2), is.get(3))).containsExactly(-5_000_000_000L, -3L, 5L, 70_000L);
        assertThat(is.memoryBytes()).isEqualTo(24 + MemoryCost.bytes(4 * 8));
        // The width never shrinks, as in Redis.
        is.remove(-5_000_000_000L);
        assertThat(is.width()).isEqualTo(8);
        assertThat(is.contains(70_000)).isTrue();
        assertThat(is.contains(Long.MIN_VALUE)).isFalse();
    }

    @Test
    void isInteger_followsString2ll() {
        for (String yes : new String[] {"0", "1", "-1", "9223372036854775807", "-9223372036854775808", "123"}) {
            assertThat(IntSet.isInteger(b(yes))).as(yes).isTrue();
            assertThat(IntSet.parse(b(yes))).isEqualTo(Long.parseLong(yes));
        }
        for (String no : new String[] {"", "-", "-0", "01", "+1", " 1", "1 ", "9223372036854775808",
                "-9223372036854775809", "1.0", "abc", "12345678901234567890123"}) {
            assertThat(IntSet.isInteger(b(no))).as(no).isFalse();
        }
        assertThat(IntSet.digits(Long.MIN_VALUE)).isEqualTo(20);
        assertThat(IntSet.digits(-10)).isEqualTo(3);
        assertThat(IntSet.digits(0)).isEqualTo(1);
    }

    // ---------------------------------------------------------------- SetListpack

    @Test
    void listpack_keepsInsertionOrder_throughRemovals_andLongEntries() {
        SetListpack lp = new SetListpack();
        String longOne = "x".repeat(300); // a two-byte length prefix
        for (String m : new String[] {"c", "a", longOne, "", "b"}) lp.append(b(m));
        assertThat(lp.remove(b("a"))).isTrue();
        assertThat(lp.remove(b("a"))).isFalse();
        List<String> seen = new ArrayList<>();
        lp.forEach(m -> seen.add(s(m)));
        assertThat(seen).containsExactly("c", longOne, "", "b");
        assertThat(lp.contains(b(""))).isTrue();
        assertThat(s(lp.get(1))).isEqualTo(longOne);
        assertThat(s(lp.removeAt(0))).isEqualTo("c");
        assertThat(lp.size()).isEqualTo(3);
        int used = 2 + 300 + 1 + 0 + 1 + 1;
        assertThat(lp.memoryBytes()).isBetween(24 + MemoryCost.bytes(used), 24 + MemoryCost.bytes(used + used / 4 + 24));
    }

    /** Appends fill spare room (a quarter more when full), so memory stays within a quarter of the entries'. */
    @Test
    void listpack_growsByAQuarter_andTrimsWhenMostlyEmpty() {
        SetListpack lp = new SetListpack();
        int used = 0;
        long grown = 0;
        long last = lp.memoryBytes();
        for (int i = 0; i < 120; i++) {
            byte[] m = b(String.format("member:%012d", i));
            lp.append(m);
            used += 1 + m.length;
            if (lp.memoryBytes() != last) grown++;
            last = lp.memoryBytes();
            assertThat(last).isBetween(24 + MemoryCost.bytes(used), 24 + MemoryCost.bytes(used + used / 4 + 24));
        }
        assertThat(grown).as("reallocations for 120 appends").isLessThan(25);
        for (int i = 0; i < 110; i++) assertThat(lp.remove(b(String.format("member:%012d", i)))).isTrue();
        assertThat(lp.memoryBytes()).isLessThanOrEqualTo(24 + MemoryCost.bytes(2 * 10 * 20 + 16));
        List<String> seen = new ArrayList<>();
        lp.forEach(m -> seen.add(s(m)));
        assertThat(seen).hasSize(10).first().isEqualTo("member:000000000110");
    }

    @Test
    void listpack_sample_picksDistinctMembersInOrder_andRemovesThem() {
        Random rnd = new Random(3);
        for (int round = 0; round < 200; round++) {
            SetListpack lp = new SetListpack();
            for (int i = 0; i < 20; i++) lp.append(b("m" + i));
            int count = rnd.nextInt(21);
            byte[][] picked = lp.sample(count, true, rnd);
            assertThat(picked.length).isEqualTo(count);
            List<Integer> idx = new ArrayList<>();
            for (byte[] p : picked) idx.add(Integer.parseInt(s(p).substring(1)));
            assertThat(idx).isSorted().doesNotHaveDuplicates();
            assertThat(lp.size()).isEqualTo(20 - count);
            for (byte[] p : picked) assertThat(lp.contains(p)).isFalse();
        }
    }

    // ---------------------------------------------------------------- encodings and conversions

    @Test
    void create_picksEncodingFromFirstMemberAndHint() {
        assertThat(SetValue.create(b("1"), 1, DEFAULTS).encodingName()).isEqualTo("intset");
        assertThat(SetValue.create(b("1"), 512, DEFAULTS).encodingName()).isEqualTo("intset");
        assertThat(SetValue.create(b("1"), 513, DEFAULTS).encodingName()).isEqualTo("hashtable");
        assertThat(SetValue.create(b("a"), 128, DEFAULTS).encodingName()).isEqualTo("listpack");
        assertThat(SetValue.create(b("a"), 129, DEFAULTS).encodingName()).isEqualTo("hashtable");
        assertThat(SetValue.create(b("01"), 1, DEFAULTS).encodingName()).isEqualTo("listpack");
    }

    @Test
    void intset_nonIntegerMember_becomesListpack_keepingSortedIntsFirst() {
        SetValue set = setOf("30", "-2", "7");
        assertThat(set.encodingName()).isEqualTo("intset");
        assertThat(members(set)).containsExactly("-2", "7", "30");
        set.add(b("x"), DEFAULTS);
        assertThat(set.encodingName()).isEqualTo("listpack");
        assertThat(members(set)).containsExactly("-2", "7", "30", "x");
        set.add(b("5"), DEFAULTS);
        assertThat(members(set)).containsExactly("-2", "7", "30", "x", "5");
    }

    @Test
    void intset_nonIntegerMember_becomesHashtable_whenListpackWouldNotFit() {
        EncodingLimits lim = setLimits(512, 128, 4);
        SetValue set = SetValue.create(b("1"), 1, lim);
        set.add(b("12345"), lim);                      // five digits: longer than a listpack value may be
        set.add(b("ab"), lim);
        assertThat(set.encodingName()).isEqualTo("hashtable");

        SetValue full = SetValue.newIntset();
        for (int i = 0; i < 128; i++) full.add(b(Integer.toString(i)), DEFAULTS);
        full.add(b("x"), DEFAULTS);                    // 128 ints + 1 > set-max-listpack-entries
        assertThat(full.encodingName()).isEqualTo("hashtable");
        assertThat(full.size()).isEqualTo(129);
    }

    @Test
    void intset_pastMaxIntsetEntries_becomesHashtable() {
        SetValue set = SetValue.newIntset();
        for (int i = 0; i < 512; i++) set.add(b(Integer.toString(i * 3)), DEFAULTS);
        assertThat(set.encodingName()).isEqualTo("intset");
        assertThat(set.add(b("0"), DEFAULTS)).isFalse();
        assertThat(set.encodingName()).isEqualTo("intset");
        set.addInteger(-1, DEFAULTS);
        assertThat(set.encodingName()).isEqualTo("hashtable");
        assertThat(set.size()).isEqualTo(513);
        assertThat(set.contains(b("-1"))).isTrue();
        assertThat(set.contains(b("1533"))).isTrue();
    }

    @Test
    void listpack_pastEntriesOrValueLimit_becomesHashtable_andNeverConvertsBack() {
        SetValue set = SetValue.newListpack();
        for (int i = 0; i < 128; i++) set.add(b("m" + i), DEFAULTS);
        assertThat(set.encodingName()).isEqualTo("listpack");
        set.add(b("m128"), DEFAULTS);
        assertThat(set.encodingName()).isEqualTo("hashtable");
        for (int i = 0; i < 120; i++) set.remove(b("m" + i));
        assertThat(set.encodingName()).isEqualTo("hashtable");

        SetValue longValue = setOf("a");
        longValue.add(b("v".repeat(64)), DEFAULTS);
        assertThat(longValue.encodingName()).isEqualTo("listpack");
        longValue.add(b("v".repeat(65)), DEFAULTS);
        assertThat(longValue.encodingName()).isEqualTo("hashtable");
    }

    @Test
    void convertForHint_sendsCompactSetsStraightToHashtable() {
        SetValue lp = setOf("a", "b");
        lp.convertForHint(129, DEFAULTS);
        assertThat(lp.encodingName()).isEqualTo("hashtable");
        SetValue is = setOf("1", "2");
        is.convertForHint(512, DEFAULTS);
        assertThat(is.encodingName()).isEqualTo("intset");
        is.convertForHint(513, DEFAULTS);
        assertThat(is.encodingName()).isEqualTo("hashtable");
        assertThat(new TreeSet<>(members(is))).containsExactly("1", "2");
    }

    @Test
    void convertToIntsetIfIntegers_onlyWhenAllIntegersAndSmallEnough() {
        SetValue table = SetValue.newHashtable(4);
        for (int i = 0; i < 300; i++) table.add(b(Integer.toString(i)), DEFAULTS);
        table.convertToIntsetIfIntegers(DEFAULTS);
        assertThat(table.encodingName()).isEqualTo("intset");
        assertThat(table.size()).isEqualTo(300);

        SetValue mixed = setOf("a", "1");
        mixed.convertToIntsetIfIntegers(DEFAULTS);
        assertThat(mixed.encodingName()).isEqualTo("listpack");

        SetValue big = SetValue.newHashtable(600);
        for (int i = 0; i < 600; i++) big.add(b(Integer.toString(i)), DEFAULTS);
        big.convertToIntsetIfIntegers(DEFAULTS);
        assertThat(big.encodingName()).isEqualTo("hashtable");
    }

    @Test
    void randomOperations_matchJavaSet_inEveryEncoding() {
        Random rnd = new Random(5);
        for (int round = 0; round < 30; round++) {
            SetValue set = null;
            Set<String> ref = new HashSet<>();
            for (int op = 0; op < 2000; op++) {
                String m = rnd.nextInt(4) == 0 ? "s" + rnd.nextInt(300) : Integer.toString(rnd.nextInt(1200) - 600);
                if (set == null) set = SetValue.create(b(m), 1, DEFAULTS);
                int kind = rnd.nextInt(10);
                if (kind < 6) {
                    assertThat(set.add(b(m), DEFAULTS)).isEqualTo(ref.add(m));
                } else if (kind < 9) {
                    assertThat(set.remove(b(m))).isEqualTo(ref.remove(m));
                } else if (!ref.isEmpty()) {
                    String popped = s(set.popRandom(rnd));
                    assertThat(ref.remove(popped)).isTrue();
                }
                assertThat(set.size()).isEqualTo(ref.size());
                assertThat(set.contains(b(m))).isEqualTo(ref.contains(m));
            }
            assertThat(new HashSet<>(members(set))).isEqualTo(ref);
            SetValue copy = set.copy();
            copy.add(b("only-in-copy"), DEFAULTS);
            assertThat(set.contains(b("only-in-copy"))).isFalse();
            assertThat(copy.encodingName()).isIn(set.encodingName(), "hashtable");
        }
    }

    @Test
    void scan_ofHashtable_returnsEveryMemberPresentThroughout_acrossResizes() {
        SetValue set = SetValue.newHashtable(0);
        for (int i = 0; i < 1000; i++) set.add(b("keep" + i), DEFAULTS);
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        int step = 0;
        do {
            cursor = set.scan(cursor, 10, m -> seen.add(s(m)));
            // Grow and shrink the table under the scan.
            if (step % 3 == 0) for (int i = 0; i < 400; i++) set.add(b("tmp" + step + ":" + i), DEFAULTS);
            if (step % 3 == 2) for (int s = step - 2; s <= step; s++) for (int i = 0; i < 400; i++) set.remove(b("tmp" + s + ":" + i));
            step++;
        } while (cursor != 0);
        for (int i = 0; i < 1000; i++) assertThat(seen).contains("keep" + i);
    }

    @Test
    void scan_ofCompactEncodings_returnsEverythingWithCursorZero() {
        SetValue set = setOf("3", "1", "2");
        List<String> seen = new ArrayList<>();
        assertThat(set.scan(77, 1, m -> seen.add(s(m)))).isZero();
        assertThat(seen).containsExactly("1", "2", "3");
    }

    // ---------------------------------------------------------------- memory

    @Test
    void bytesPerElement_compactEncodingsBeatHashtable() {
        int n = 100;
        SetValue ints = SetValue.newIntset();
        SetValue intsTable = SetValue.newHashtable(0);
        SetValue strings = SetValue.newListpack();
        SetValue stringsTable = SetValue.newHashtable(0);
        for (int i = 0; i < n; i++) {
            byte[] num = b(Integer.toString(i * 7));
            ints.add(num, DEFAULTS);
            intsTable.add(num, DEFAULTS);
            byte[] str = b("member:" + i);
            strings.add(str, DEFAULTS);
            stringsTable.add(str, DEFAULTS);
        }
        assertThat(ints.encodingName()).isEqualTo("intset");
        assertThat(strings.encodingName()).isEqualTo("listpack");
        double intset = (double) ints.memoryBytes() / n;
        double intHt = (double) intsTable.memoryBytes() / n;
        double listpack = (double) strings.memoryBytes() / n;
        double strHt = (double) stringsTable.memoryBytes() / n;
        System.out.printf("set bytes/element (n=%d): intset %.1f vs hashtable %.1f; listpack %.1f vs hashtable %.1f%n",
                n, intset, intHt, listpack, strHt);
        assertThat(intset).isLessThan(intHt);
        assertThat(listpack).isLessThan(strHt);
    }

    @Test
    void memoryBytes_tracksEveryChange() {
        SetValue set = setOf("1", "2");
        long small = set.memoryBytes();
        set.add(b("300000"), DEFAULTS);
        assertThat(set.memoryBytes()).isGreaterThan(small);
        long before = set.memoryBytes();
        set.remove(b("300000"));
        set.remove(b("2"));
        assertThat(set.memoryBytes()).isLessThan(before);
        Set<String> ordered = new LinkedHashSet<>(members(set));
        assertThat(ordered).containsExactly("1");
    }
}
