package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** ListValue and its entry format against a plain list model, its encoding switches, and its memory figures. */
class ListValueTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static String repeat(char c, int n) {
        return String.valueOf(c).repeat(n);
    }

    /** Pushes as RPUSH does: the conversion check for all elements first, then the pushes. */
    private static ListValue rpush(int fill, String... elements) {
        ListValue l = new ListValue();
        rpush(l, fill, elements);
        return l;
    }

    private static void rpush(ListValue l, int fill, String... elements) {
        rpushWithDepth(l, fill, 0, elements);
    }

    private static void rpushWithDepth(ListValue l, int fill, int depth, String... elements) {
        long bytes = 0;
        for (String e : elements) bytes += e.length();
        l.beforeAdding(fill, depth, bytes, elements.length);
        for (String e : elements) l.push(b(e), false);
    }

    private static List<String> strings(byte[][] elements) {
        List<String> out = new ArrayList<>();
        for (byte[] e : elements) out.add(s(e));
        return out;
    }

    private static List<String> all(ListValue l) {
        List<String> out = new ArrayList<>();
        for (byte[] e : l.range(0, (int) l.size(), false)) out.add(s(e));
        return out;
    }

    // ---------------------------------------------------------------- entry format

    @Test
    void entries_roundTripEveryEncoding_withRedisSizes() {
        String[][] cases = {
            {"0", "2"}, {"127", "2"}, {"128", "3"}, {"-1", "3"}, {"4095", "3"}, {"-4096", "3"}, {"4096", "4"},
            {"32767", "4"}, {"-32768", "4"}, {"32768", "5"}, {"8388607", "5"}, {"-8388608", "5"},
            {"8388608", "6"}, {"2147483647", "6"}, {"-2147483648", "6"}, {"2147483648", "10"},
            {"9223372036854775807", "10"}, {"-9223372036854775808", "10"}, {"9223372036854775808", "21"},
            {"", "2"}, {"a", "3"}, {"-0", "4"}, {"01", "4"}, {" 1", "4"}, {"+1", "4"}, {repeat('x', 63), "65"},
            {repeat('x', 64), "67"}, {repeat('x', 125), "128"}, {repeat('x', 126), "130"}, {repeat('x', 4095), "4099"},
            {repeat('x', 4096), "4103"}, {repeat('x', 16377), "16384"}, {repeat('x', 16378), "16386"},
        };
        for (String[] c : cases) {
            byte[] e = b(c[0]);
            int size = ListPack.entrySize(e);
            assertThat(size).as("size of '%s'", c[0].length() > 20 ? c[0].length() + " bytes" : c[0])
                    .isEqualTo(Integer.parseInt(c[1]));
            byte[] buf = new byte[size + 4];
            int end = ListPack.write(buf, 2, e);
            assertThat(end).isEqualTo(2 + size);
            assertThat(ListPack.sizeAt(buf, 2)).isEqualTo(size);
            assertThat(ListPack.startBefore(buf, end)).isEqualTo(2);
            assertThat(ListPack.read(buf, 2)).isEqualTo(e);
            assertThat(ListPack.elementLength(buf, 2)).isEqualTo(e.length);
            assertThat(ListPack.matches(buf, 2, new ListPack.Probe(e))).isTrue();
            assertThat(ListPack.matches(buf, 2, new ListPack.Probe(b(c[0] + "0")))).isFalse();
        }
    }

    // ---------------------------------------------------------------- against a model

    @ParameterizedTest(name = "fill={0} depth={1}")
    @CsvSource({"-2,0", "-1,0", "-5,0", "0,0", "1,0", "3,0", "16,0",
                "-2,1", "-2,2", "-1,1", "0,1", "1,3", "3,1", "3,2", "16,1", "16,4"})
    void randomOperations_matchAListModel(int fill, int depth) {
        Random rnd = new Random(fill * 31L + 7 + depth * 1009L);
        for (int round = 0; round < 30; round++) {
            ListValue l = new ListValue();
            List<String> model = new ArrayList<>();
            for (int step = 0; step < 300; step++) {
                int op = rnd.nextInt(100);
                if (op < 30 || model.isEmpty()) {
                    int n = 1 + rnd.nextInt(4);
                    String[] add = new String[n];
                    long bytes = 0;
                    for (int i = 0; i < n; i++) {
                        add[i] = element(rnd);
                        bytes += add[i].length();
                    }
                    boolean head = rnd.nextBoolean();
                    l.beforeAdding(fill, depth, bytes, n);
                    byte[][] argv = new byte[n + 1][];
                    for (int i = 0; i < n; i++) argv[i + 1] = b(add[i]);
                    if (rnd.nextBoolean()) l.pushAll(argv, 1, head);
                    else for (int i = 0; i < n; i++) l.push(argv[i + 1], head);
                    for (String e : add) {
                        if (head) model.addFirst(e);
                        else model.add(e);
                    }
                } else if (op < 45) {
                    boolean head = rnd.nextBoolean();
                    String got = s(l.pop(head));
                    assertThat(got).isEqualTo(head ? model.removeFirst() : model.removeLast());
                    l.afterRemoving(fill);
                } else if (op < 55) {
                    String pivot = model.get(rnd.nextInt(model.size()));
                    if (rnd.nextInt(5) == 0) pivot = "missing";
                    String e = element(rnd);
                    boolean after = rnd.nextBoolean();
                    l.beforeAdding(fill, depth, e.length(), 1);
                    long r = l.insert(b(pivot), b(e), after);
                    int at = model.indexOf(pivot);
                    if (at < 0) {
                        assertThat(r).isEqualTo(-1);
                    } else {
                        model.add(after ? at + 1 : at, e);
                        assertThat(r).isEqualTo(model.size());
                    }
                } else if (op < 65) {
                    long arg = rnd.nextInt(2 * model.size() + 4) - model.size() - 2;
                    int index = (int) (arg < 0 ? arg + model.size() : arg);
                    String e = element(rnd);
                    l.beforeAdding(fill, depth, e.length(), 1);
                    boolean ok = l.set(arg, b(e));
                    assertThat(ok).isEqualTo(index >= 0 && index < model.size());
                    if (ok) model.set(index, e);
                    l.afterRemoving(fill);
                } else if (op < 72) {
                    String e = model.get(rnd.nextInt(model.size()));
                    long count = rnd.nextInt(5) - 2;
                    long removed = l.removeMatching(b(e), count);
                    long expected = removeModel(model, e, count);
                    assertThat(removed).isEqualTo(expected);
                    if (!model.isEmpty()) l.afterRemoving(fill);
                } else if (op < 78) {
                    int from = rnd.nextInt(model.size());
                    int n = 1 + rnd.nextInt(model.size() - from);
                    if (n == model.size()) n = Math.max(1, n - 1);
                    if (from + n > model.size()) continue;
                    l.removeRange(from, n);
                    model.subList(from, from + n).clear();
                    if (!model.isEmpty()) l.afterRemoving(fill);
                } else if (op < 88) {
                    long arg = rnd.nextInt(2 * model.size() + 4) - model.size() - 2;
                    int index = (int) (arg < 0 ? arg + model.size() : arg);
                    byte[] got = l.get(arg);
                    if (index >= 0 && index < model.size()) assertThat(s(got)).isEqualTo(model.get(index));
                    else assertThat(got).isNull();
                } else if (op < 94) {
                    String e = rnd.nextBoolean() ? model.get(rnd.nextInt(model.size())) : element(rnd);
                    long rank = rnd.nextBoolean() ? 1 + rnd.nextInt(3) : -1 - rnd.nextInt(3);
                    long limit = rnd.nextInt(4);
                    long maxlen = rnd.nextInt(3) == 0 ? rnd.nextInt(model.size() + 1) : 0;
                    assertThat(l.positions(b(e), rank, limit, maxlen))
                            .containsExactly(positionsModel(model, e, rank, limit, maxlen));
                } else {
                    int from = rnd.nextInt(model.size());
                    int n = rnd.nextInt(model.size() - from + 1);
                    List<String> expected = new ArrayList<>(model.subList(from, from + n));
                    assertThat(strings(l.range(from, n, false))).containsExactlyElementsOf(expected);
                    if (n > 0) {
                        List<String> rev = new ArrayList<>(expected).reversed();
                        assertThat(strings(l.range(from + n - 1, n, true))).containsExactlyElementsOf(rev);
                    }
                }
                if (model.isEmpty()) break;
                assertThat(l.size()).isEqualTo(model.size());
                assertThat(all(l)).containsExactlyElementsOf(model);
                assertThat(Arrays.stream(l.nodeCounts()).sum()).isEqualTo(model.size());
                assertThat(Arrays.stream(l.nodeCounts()).allMatch(c -> c > 0)).isTrue();
                assertThat(l.memoryBytes()).isEqualTo(l.recomputedMemoryBytes());
                assertThat(l.compressionSettled()).as(l.compressionLayout() + " op " + op + " step " + step).isTrue();
                if (depth == 0) assertThat(l.compressionLayout()).doesNotContain("C");
                ListValue copy = l.copy();
                if (step % 50 == 0) {
                    assertThat(all(copy)).containsExactlyElementsOf(model);
                    assertThat(copy.encodingName()).isEqualTo(l.encodingName());
                    assertThat(copy.nodeCounts()).containsExactly(l.nodeCounts());
                    assertThat(copy.memoryBytes()).isEqualTo(copy.recomputedMemoryBytes());
                    assertThat(copy.compressionLayout()).isEqualTo(l.compressionLayout());
                }
            }
        }
    }

    private static String element(Random rnd) {
        return switch (rnd.nextInt(10)) {
            case 0 -> Long.toString(rnd.nextLong());
            case 1 -> Integer.toString(rnd.nextInt(300) - 150);
            case 2 -> Integer.toString(rnd.nextInt());
            case 3 -> repeat('L', 3000 + rnd.nextInt(7000)); // sometimes a plain node
            case 4 -> repeat('m', 100 + rnd.nextInt(300));
            default -> "e" + rnd.nextInt(20);
        };
    }

    private static long removeModel(List<String> model, String e, long count) {
        long quota = count == 0 ? Long.MAX_VALUE : Math.abs(count);
        long removed = 0;
        if (count >= 0) {
            for (int i = 0; i < model.size() && removed < quota; ) {
                if (model.get(i).equals(e)) {
                    model.remove(i);
                    removed++;
                } else {
                    i++;
                }
            }
        } else {
            for (int i = model.size() - 1; i >= 0 && removed < quota; i--) {
                if (model.get(i).equals(e)) {
                    model.remove(i);
                    removed++;
                }
            }
        }
        return removed;
    }

    private static long[] positionsModel(List<String> model, String e, long rank, long limit, long maxlen) {
        List<Long> out = new ArrayList<>();
        int n = model.size();
        long matches = 0;
        for (int index = 0; index < n && (maxlen == 0 || index < maxlen); index++) {
            int i = rank > 0 ? index : n - 1 - index;
            if (!model.get(i).equals(e)) continue;
            matches++;
            if (matches < Math.abs(rank)) continue;
            out.add((long) i);
            if (limit != 0 && out.size() >= limit) break;
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * LPUSH and RPUSH of one element at a time (the pushes of a queue or a log) grow a listpack's array by a quarter, as
     * single inserts do, instead of copying it whole on every push; a push of many elements at once still takes one
     * array of exactly the size needed.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void pushesOfOneElement_growTheArrayByAQuarter_aPushOfManyExactly(boolean head) {
        ListValue l = new ListValue();
        int arrays = 0;
        byte[] seen = null;
        for (int i = 0; i < 500; i++) {
            byte[][] argv = {null, b("element")};
            l.beforeAdding(-2, 0, argv[1].length, 1);
            l.pushAll(argv, 1, head);
            // A list of one element (a new key) takes no spare room.
            if (i == 0) assertThat(l.buf.length - (l.end - l.start)).isLessThan(8);
            if (l.buf != seen) {
                arrays++;
                seen = l.buf;
            }
        }
        assertThat(l.encodingName()).isEqualTo("listpack");
        assertThat(l.size()).isEqualTo(500);
        // 500 entries of 9 bytes grown by a quarter from 16 bytes: about 25 arrays; copying on every push made 500.
        assertThat(arrays).isBetween(2, 40);
        assertThat(l.buf.length).isLessThanOrEqualTo((l.end - l.start) * 5 / 4 + 16);
        assertThat(l.memoryBytes()).isEqualTo(l.recomputedMemoryBytes());

        ListValue many = new ListValue();
        byte[][] argv = new byte[101][];
        for (int i = 1; i <= 100; i++) argv[i] = b("element");
        many.beforeAdding(-2, 0, 700, 100);
        many.pushAll(argv, 1, head);
        assertThat(many.buf.length - (many.end - many.start)).isLessThan(8);
        // More elements than a quarter of the list in one push: exactly again.
        many.beforeAdding(-2, 0, 700, 100);
        many.pushAll(argv, 1, head);
        assertThat(many.buf.length - (many.end - many.start)).isLessThan(8);
        assertThat(many.size()).isEqualTo(200);
    }

    // ---------------------------------------------------------------- encodings as Redis 7.2 switches them

    @Test
    void defaultFill_staysListpackUpTo8kbThenQuicklist() {
        ListValue l = new ListValue();
        // Entries of 10 bytes take 12 bytes each: the listpack reaches 7 + 12 * 682 = 8191 bytes.
        for (int i = 0; i < 682; i++) rpush(l, -2, repeat('a', 10));
        assertThat(l.encodingName()).isEqualTo("listpack");
        // The check counts the raw bytes of the additions: 8191 + 10 > 8192.
        rpush(l, -2, repeat('a', 10));
        assertThat(l.encodingName()).isEqualTo("quicklist");
        assertThat(l.nodeCounts()).containsExactly(682, 1);
    }

    @Test
    void countFill_convertsOnTheFourthElement_andBackAtHalf() {
        ListValue l = rpush(3, "a", "b", "c");
        assertThat(l.encodingName()).isEqualTo("listpack");
        rpush(l, 3, "d");
        assertThat(l.encodingName()).isEqualTo("quicklist");
        assertThat(l.nodeCounts()).containsExactly(3, 1);
        l.removeRange(1, 3); // RPOP lst 3
        l.afterRemoving(3);
        assertThat(l.encodingName()).isEqualTo("listpack");
        assertThat(all(l)).containsExactly("a");
    }

    @Test
    void quicklist_convertsBackOnlyWithOneNodeWithinHalfTheLimit() {
        ListValue l = rpush(4, "a", "b", "c", "d");
        rpush(l, 4, "e"); // [a b c d][e]
        assertThat(l.nodeCounts()).containsExactly(4, 1);
        l.pop(false); // [a b c d]: one node, but 4 > 4 / 2
        l.afterRemoving(4);
        assertThat(l.encodingName()).isEqualTo("quicklist");
        l.pop(false);
        l.afterRemoving(4);
        assertThat(l.encodingName()).isEqualTo("quicklist");
        l.pop(false); // 2 elements: within half
        l.afterRemoving(4);
        assertThat(l.encodingName()).isEqualTo("listpack");
    }

    @Test
    void lremAndLtrim_convertBack() {
        ListValue l = rpush(3, "a", "a", "a");
        rpush(l, 3, "d");
        assertThat(l.removeMatching(b("a"), 3)).isEqualTo(3);
        l.afterRemoving(3);
        assertThat(l.encodingName()).isEqualTo("listpack");

        l = rpush(3, "a", "b", "c");
        rpush(l, 3, "d");
        l.removeRange(0, 1);
        l.removeRange(1, 2); // LTRIM 1 1
        l.afterRemoving(3);
        assertThat(l.encodingName()).isEqualTo("listpack");
        assertThat(all(l)).containsExactly("b");
    }

    @Test
    void largeElements_getPlainNodes_whichNeverConvertBack() {
        String large = repeat('x', 8192);
        ListValue l = rpush(-1, large);
        assertThat(l.encodingName()).isEqualTo("quicklist");
        rpush(l, -1, "a");
        rpush(l, -1, "b");
        assertThat(l.nodeCounts()).containsExactly(1, 2);
        l.removeRange(1, 2); // RPOP 2
        l.afterRemoving(-1);
        assertThat(l.encodingName()).isEqualTo("quicklist"); // a plain node alone stays a quicklist
        l.beforeAdding(-1, 0, 1, 1);
        assertThat(l.set(-1, b("c"))).isTrue();
        l.afterRemoving(-1);
        assertThat(l.encodingName()).isEqualTo("listpack");
        assertThat(all(l)).containsExactly("c");
    }

    @Test
    void lsetOfALargeElementInsideANode_splitsItAroundAPlainNode() {
        ListValue l = rpush(-2, "aa", "bb", "cc", "dd", "ee");
        String large = repeat('e', 9000);
        l.beforeAdding(-2, 0, large.length(), 1);
        assertThat(l.encodingName()).isEqualTo("quicklist");
        assertThat(l.set(2, b(large))).isTrue();
        assertThat(all(l)).containsExactly("aa", "bb", large, "dd", "ee");
        assertThat(l.nodeCounts()).containsExactly(2, 1, 2);
        assertThat(l.memoryBytes()).isEqualTo(l.recomputedMemoryBytes());
    }

    @Test
    void fillBelowMinusFive_actsAsMinusFive() {
        ListValue l = rpush(-6, repeat('x', 60000));
        assertThat(l.encodingName()).isEqualTo("listpack");
        rpush(l, -6, repeat('x', 5536));
        assertThat(l.encodingName()).isEqualTo("quicklist");
    }

    @Test
    void fillZero_holdsOneElement() {
        ListValue l = rpush(0, "a");
        assertThat(l.encodingName()).isEqualTo("listpack");
        rpush(l, 0, "b");
        assertThat(l.encodingName()).isEqualTo("quicklist");
    }

    @Test
    void linsertInAFullNode_splitsAndMergesAsRedis() {
        // fill 4: nodes of at most 4 elements.
        ListValue l = rpush(4, "1", "2", "3", "4");
        rpush(l, 4, "5", "6", "7", "8", "9");
        assertThat(l.nodeCounts()).containsExactly(4, 4, 1);
        l.beforeAdding(4, 0, 1, 1);
        assertThat(l.insert(b("2"), b("x"), true)).isEqualTo(10);
        // The full first node splits after "2": [1 2] + new [x 3 4]; no neighbours fit a merge.
        assertThat(l.nodeCounts()).containsExactly(2, 3, 4, 1);
        assertThat(all(l)).containsExactly("1", "2", "x", "3", "4", "5", "6", "7", "8", "9");
        // Inserting before the head of a full node whose previous node has room appends to that node.
        l.insert(b("5"), b("y"), false);
        assertThat(l.nodeCounts()).containsExactly(2, 4, 4, 1);
        assertThat(all(l)).containsExactly("1", "2", "x", "3", "4", "y", "5", "6", "7", "8", "9");
    }

    @Test
    void lindexOnALongQuicklist_skipsNodes() {
        ListValue l = new ListValue();
        for (int i = 0; i < 200_000; i++) {
            l.beforeAdding(-2, 0, 8, 1);
            l.push(b("v" + i), false);
        }
        assertThat(l.nodeCounts().length).isGreaterThan(100);
        long t0 = System.nanoTime();
        for (int i = 0; i < 2000; i++) {
            assertThat(s(l.get(100_000 + i))).isEqualTo("v" + (100_000 + i));
        }
        assertThat(s(l.get(-1))).isEqualTo("v199999");
        // 2000 middle lookups: node skipping keeps this far below an element-by-element walk.
        assertThat(System.nanoTime() - t0).isLessThan(2_000_000_000L);
    }

    // ---------------------------------------------------------------- memory

    @Test
    void bytesPerElement_smallEncodingBeatsLarge() {
        int n = 100;
        ListValue small = new ListValue();
        ListValue large = new ListValue();
        for (int i = 0; i < n; i++) {
            String e = "element:" + i;
            small.beforeAdding(-2, 0, e.length(), 1);
            small.push(b(e), false);
            large.beforeAdding(8, 0, e.length(), 1); // nodes of 8 elements
            large.push(b(e), false);
        }
        assertThat(small.encodingName()).isEqualTo("listpack");
        assertThat(large.encodingName()).isEqualTo("quicklist");
        double perSmall = (double) small.memoryBytes() / n;
        double perLarge = (double) large.memoryBytes() / n;
        ListValue big = new ListValue();
        int m = 100_000;
        for (int i = 0; i < m; i++) {
            String e = "element:" + i;
            big.beforeAdding(-2, 0, e.length(), 1);
            big.push(b(e), false);
        }
        double perBig = (double) big.memoryBytes() / m;
        System.out.printf("list bytes/element (~11-byte elements): listpack %.1f, quicklist(fill 8) %.1f, "
                + "quicklist(-2, %d elements) %.1f%n", perSmall, perLarge, m, perBig);
        assertThat(perSmall).isLessThan(perLarge);
        assertThat(small.memoryBytes()).isEqualTo(small.recomputedMemoryBytes());
        assertThat(big.memoryBytes()).isEqualTo(big.recomputedMemoryBytes());
    }

    @Test
    void copy_isDeepAndKeepsTheEncoding() {
        ListValue l = rpush(3, "a", "b", "c", "d");
        ListValue c = l.copy();
        c.push(b("z"), true);
        assertThat(all(l)).containsExactly("a", "b", "c", "d");
        assertThat(all(c)).containsExactly("z", "a", "b", "c", "d");
        assertThat(c.encodingName()).isEqualTo("quicklist");
        ListValue p = rpush(-2, "x");
        ListValue pc = p.copy();
        pc.set(0, b("y"));
        assertThat(all(p)).containsExactly("x");
        assertThat(pc.encodingName()).isEqualTo("listpack");
    }

    // ---------------------------------------------------------------- list-compress-depth

    /** {@code n} typical values (ids in a key-like text), pushed one by one as RPUSH does, at {@code depth}. */
    private static ListValue typical(int depth, int n) {
        ListValue l = new ListValue();
        for (int i = 0; i < n; i++) rpushWithDepth(l, -2, depth, "user:" + (100000 + i) + ":session");
        return l;
    }

    private static List<String> typicalModel(int n) {
        List<String> m = new ArrayList<>();
        for (int i = 0; i < n; i++) m.add("user:" + (100000 + i) + ":session");
        return m;
    }

    @Test
    void compressDepth_compressesEveryNodeButTheEnds_andRoundTrips() {
        ListValue plain = typical(0, 5000);
        ListValue one = typical(1, 5000);
        ListValue two = typical(2, 5000);
        int nodes = plain.nodeCount();
        assertThat(nodes).isGreaterThan(6);
        assertThat(plain.compressionLayout()).isEqualTo("r".repeat(nodes));
        assertThat(one.compressionLayout()).isEqualTo("r" + "C".repeat(nodes - 2) + "r");
        assertThat(two.compressionLayout()).isEqualTo("rr" + "C".repeat(nodes - 4) + "rr");
        assertThat(one.nodeCounts()).containsExactly(plain.nodeCounts());
        assertThat(all(one)).containsExactlyElementsOf(typicalModel(5000));
        assertThat(all(two)).containsExactlyElementsOf(typicalModel(5000));
        // Memory reflects the compressed arrays, and the incremental figure stays exact.
        assertThat(one.memoryBytes()).isLessThan(plain.memoryBytes() / 2);
        assertThat(one.memoryBytes()).isEqualTo(one.recomputedMemoryBytes());
        assertThat(two.memoryBytes()).isGreaterThan(one.memoryBytes());
        // A copy keeps the compressed nodes as they are.
        ListValue c = one.copy();
        assertThat(c.compressionLayout()).isEqualTo(one.compressionLayout());
        assertThat(c.memoryBytes()).isEqualTo(c.recomputedMemoryBytes()).isLessThanOrEqualTo(one.memoryBytes());
        assertThat(all(c)).containsExactlyElementsOf(typicalModel(5000));
    }

    @Test
    void compressDepth_followsRedisRules_smallOrIncompressibleNodesStayRaw() {
        // Nodes of 2 small elements are under MIN_COMPRESS_BYTES (48): never compressed.
        ListValue small = new ListValue();
        for (int i = 0; i < 20; i++) rpushWithDepth(small, 2, 1, "e" + i);
        assertThat(small.compressionLayout()).isEqualTo("r".repeat(10));
        assertThat(small.compressionSettled()).isTrue();
        // Random bytes do not compress by more than MIN_COMPRESS_IMPROVE (8): kept raw.
        Random rnd = new Random(1);
        ListValue random = new ListValue();
        for (int i = 0; i < 12; i++) {
            byte[] e = new byte[60];
            rnd.nextBytes(e);
            for (int k = 0; k < e.length; k++) if (e[k] >= '0' && e[k] <= '9') e[k] = 'x'; // never an integer
            random.beforeAdding(1, 1, e.length, 1);
            random.push(e, false);
        }
        assertThat(random.compressionLayout()).isEqualTo("r".repeat(12));
        // Repetitive nodes of the same shape compress.
        ListValue rep = new ListValue();
        for (int i = 0; i < 12; i++) rpushWithDepth(rep, 1, 1, repeat('a', 60));
        assertThat(rep.compressionLayout()).isEqualTo("r" + "C".repeat(10) + "r");
        // MIN_COMPRESS_BYTES: a 47-byte node (7 + 1 + 38 + 1) stays raw, a 48-byte one compresses.
        ListValue under = new ListValue();
        for (int i = 0; i < 5; i++) rpushWithDepth(under, 1, 1, repeat('a', 38));
        assertThat(under.compressionLayout()).isEqualTo("rrrrr");
        ListValue at = new ListValue();
        for (int i = 0; i < 5; i++) rpushWithDepth(at, 1, 1, repeat('a', 39));
        assertThat(at.compressionLayout()).isEqualTo("rCCCr");
    }

    @Test
    void nodeCompression_keepsNodesRaw_unlessLzfSavesMoreThanEightBytes() {
        Random rnd = new Random(3);
        boolean sawKept = false;
        boolean sawCompressed = false;
        for (int k = 0; k < 2000 && !(sawKept && sawCompressed); k++) {
            // Random letters with a repeated run: the run's length decides what LZF saves.
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < 60; i++) sb.append((char) ('a' + rnd.nextInt(26)));
            sb.append(repeat('z', rnd.nextInt(20)));
            byte[] e = b(sb.toString());
            byte[] entries = new byte[ListPack.entrySize(e)];
            ListPack.write(entries, 0, e);
            byte[] image = new byte[entries.length + ListPack.OVERHEAD];
            image[0] = (byte) image.length;
            image[4] = 1;
            System.arraycopy(entries, 0, image, 6, entries.length);
            image[image.length - 1] = (byte) 0xFF;
            byte[] out = new byte[image.length * 2];
            int c = io.tide.util.Lzf.compress(image, 0, image.length, out, out.length);
            int saved = image.length - c;
            ListNode node = new ListNode(entries, 0, entries.length, 1);
            boolean compressed = node.compress();
            assertThat(compressed).as("saves " + saved).isEqualTo(saved > ListNode.MIN_COMPRESS_IMPROVE);
            if (compressed) {
                sawCompressed = true;
                assertThat(node.buf).hasSize(c);
                node.decompress();
                assertThat(ListPack.read(node.buf, node.start)).isEqualTo(e);
            } else if (saved > 0) {
                sawKept = true;
            }
        }
        assertThat(sawKept).isTrue();
        assertThat(sawCompressed).isTrue();
    }

    @Test
    void compressDepth_readsLeaveNodesCompressed_writesRecompress() {
        int n = 5000;
        ListValue l = typical(1, n);
        List<String> model = typicalModel(n);
        String layout = l.compressionLayout();
        long memory = l.memoryBytes();
        // LINDEX, LRANGE, LPOS in the middle: the nodes stay compressed, nothing changes.
        assertThat(s(l.get(n / 2))).isEqualTo(model.get(n / 2));
        assertThat(strings(l.range(n / 3, 700, false))).containsExactlyElementsOf(model.subList(n / 3, n / 3 + 700));
        assertThat(strings(l.range(n / 3 + 699, 700, true)))
                .containsExactlyElementsOf(new ArrayList<>(model.subList(n / 3, n / 3 + 700)).reversed());
        assertThat(l.positions(b(model.get(n / 2)), 1, 0, 0)).containsExactly(n / 2);
        assertThat(l.compressionLayout()).isEqualTo(layout);
        assertThat(l.memoryBytes()).isEqualTo(memory);
        // LSET in the middle: decompressed, changed, compressed again.
        l.set(n / 2, b("changed"));
        model.set(n / 2, "changed");
        assertThat(l.compressionSettled()).isTrue();
        assertThat(l.compressionLayout()).isEqualTo(layout);
        // LINSERT in the middle: a full node splits; the new nodes are compressed too.
        l.beforeAdding(-2, 1, 8, 1);
        assertThat(l.insert(b(model.get(n / 3)), b("inserted"), true)).isEqualTo(n + 1);
        model.add(n / 3 + 1, "inserted");
        assertThat(l.compressionSettled()).isTrue();
        assertThat(l.compressionLayout()).matches("rC+r");
        // LREM of elements in compressed nodes, and one that is absent (nodes untouched).
        String layoutNow = l.compressionLayout();
        assertThat(l.removeMatching(b("absent"), 0)).isZero();
        assertThat(l.compressionLayout()).isEqualTo(layoutNow);
        assertThat(l.removeMatching(b(model.get(2000)), 0)).isEqualTo(1);
        model.remove(2000);
        assertThat(l.removeMatching(b("changed"), -1)).isEqualTo(1);
        model.remove("changed");
        assertThat(l.compressionSettled()).isTrue();
        // LTRIM-like range removal from the head: the new ends are raw, the rest compressed.
        l.removeRange(0, 1500);
        model.subList(0, 1500).clear();
        assertThat(l.compressionSettled()).isTrue();
        assertThat(l.compressionLayout()).matches("rC+r");
        // Pops down to two nodes: nothing compressed any more.
        while (l.nodeCount() > 2) {
            l.pop(true);
            model.removeFirst();
            assertThat(l.compressionSettled()).isTrue();
        }
        assertThat(l.compressionLayout()).isEqualTo("rr");
        assertThat(all(l)).containsExactlyElementsOf(model);
        assertThat(l.memoryBytes()).isEqualTo(l.recomputedMemoryBytes());
    }

    @Test
    void compressDepth_isTheOneSetWhenTheListBecameAQuicklist() {
        ListValue l = new ListValue();
        for (int i = 0; i < 2000; i++) rpushWithDepth(l, -2, 0, "user:" + (100000 + i) + ":session");
        // A later depth (CONFIG SET) does not reach an existing quicklist, as in Redis.
        for (int i = 2000; i < 5000; i++) rpushWithDepth(l, -2, 1, "user:" + (100000 + i) + ":session");
        assertThat(l.compressionLayout()).doesNotContain("C");
        // A list that becomes a quicklist after the change takes the new depth.
        ListValue m = typical(1, 5000);
        assertThat(m.compressionLayout()).contains("C");
    }

    @Test
    void compressedPlainNodes_roundTrip() {
        ListValue l = new ListValue();
        String big = repeat('p', 20000);
        for (int i = 0; i < 4; i++) rpushWithDepth(l, -2, 1, big + i);
        assertThat(l.compressionLayout()).isEqualTo("rCCr");
        assertThat(l.memoryBytes()).isLessThan(3 * 20000);
        assertThat(all(l)).containsExactly(big + 0, big + 1, big + 2, big + 3);
        l.set(1, b("small"));
        assertThat(all(l)).containsExactly(big + 0, "small", big + 2, big + 3);
        assertThat(l.compressionSettled()).isTrue();
        assertThat(l.memoryBytes()).isEqualTo(l.recomputedMemoryBytes());
    }
}
