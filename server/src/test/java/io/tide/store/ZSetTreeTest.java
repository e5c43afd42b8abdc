package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The sorted set's B+ tree against a sorted model, with node capacities small enough to build deep trees. */
class ZSetTreeTest {

    private record Key(double score, byte[] member) {}

    private static final Comparator<Key> ORDER = (a, b) -> a.score != b.score
            ? Double.compare(a.score, b.score)
            : Arrays.compareUnsigned(a.member, b.member);

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** The model's entries in (score, member) order. */
    private static List<Key> sorted(Map<String, Double> model) {
        List<Key> out = new ArrayList<>();
        model.forEach((m, s) -> out.add(new Key(s, b(m))));
        out.sort(ORDER);
        return out;
    }

    private static List<Key> walked(ZSetTree t, int from, boolean reverse) {
        List<Key> out = new ArrayList<>();
        t.walk(from, reverse, (m, s) -> out.add(new Key(s, m)));
        return out;
    }

    private static void assertSame(ZSetTree t, Map<String, Double> model, Random rnd) {
        t.verify();
        List<Key> expected = sorted(model);
        assertThat(t.size()).isEqualTo(expected.size());
        List<Key> got = walked(t, 0, false);
        assertThat(got).hasSize(expected.size());
        for (int i = 0; i < got.size(); i++) {
            assertThat(got.get(i).member()).isEqualTo(expected.get(i).member());
            assertThat(got.get(i).score()).isEqualTo(expected.get(i).score());
        }
        if (expected.isEmpty()) return;
        for (int k = 0; k < 20; k++) {
            int i = rnd.nextInt(expected.size());
            Key e = expected.get(i);
            assertThat(t.rank(e.member())).isEqualTo(i);
            assertThat(t.score(e.member())).isEqualTo(e.score());
            assertThat(t.memberAt(i)).isEqualTo(e.member());
            assertThat(t.scoreAt(i)).isEqualTo(e.score());
            List<Key> back = walked(t, i, true);
            assertThat(back).hasSize(i + 1);
            assertThat(back.get(back.size() - 1).member()).isEqualTo(expected.get(0).member());
            double bound = rnd.nextInt(60);
            long below = expected.stream().filter(x -> x.score() < bound).count();
            assertThat(t.countWhile((s, m) -> s < bound)).isEqualTo((int) below);
        }
    }

    @ParameterizedTest(name = "leaf {0}, inner {1}")
    @CsvSource({"4, 4", "5, 6", "128, 64"})
    void randomOperations_matchModel(int leaf, int inner) {
        Random rnd = new Random(leaf * 31L + inner);
        ZSetTree t = new ZSetTree(0, leaf, inner);
        Map<String, Double> model = new HashMap<>();
        int keys = leaf == 128 ? 3000 : 400;
        for (int step = 0; step < 30_000; step++) {
            String m = "m" + rnd.nextInt(keys);
            int op = rnd.nextInt(20);
            if (op < 9) {
                double s = rnd.nextInt(60);
                Double cur = model.get(m);
                if (cur == null) t.insert(b(m), s);
                else t.updateScore(t.slotOf(b(m)), s);
                model.put(m, s);
            } else if (op < 15) {
                assertThat(t.remove(b(m))).isEqualTo(model.remove(m) != null);
            } else if (op < 16 && !model.isEmpty()) {
                List<Key> order = sorted(model);
                int a = rnd.nextInt(order.size());
                int c = Math.min(order.size() - 1, a + rnd.nextInt(leaf * 3));
                for (int i = a; i <= c; i++) model.remove(new String(order.get(i).member(), StandardCharsets.UTF_8));
                assertThat(t.removeRanks(a, c)).isEqualTo(c - a + 1);
            } else {
                assertThat(t.contains(b(m))).isEqualTo(model.containsKey(m));
                assertThat(Double.isNaN(t.score(b(m)))).isEqualTo(!model.containsKey(m));
            }
            if (step % 1000 == 0) assertSame(t, model, rnd);
        }
        assertSame(t, model, rnd);
        assertThat(t.copy().size()).isEqualTo(model.size());
        ZSetTree c = t.copy();
        c.verify();
        assertThat(walked(c, 0, false).stream().map(k -> new String(k.member(), StandardCharsets.UTF_8)).toList())
                .isEqualTo(walked(t, 0, false).stream().map(k -> new String(k.member(), StandardCharsets.UTF_8)).toList());
    }

    @Test
    void ascendingAndDescendingLoads_fillTheLeaves() {
        int n = 100_000;
        ZSetTree up = new ZSetTree(n);
        ZSetTree down = new ZSetTree(n);
        ZSetTree random = new ZSetTree(n);
        Random rnd = new Random(3);
        for (int i = 0; i < n; i++) {
            up.insert(b("member:" + i), i);
            down.insert(b("member:" + i), -i);
            random.insert(b("member:" + i), rnd.nextDouble());
        }
        up.verify();
        down.verify();
        random.verify();
        long base = new ZSetTree(n).memoryBytes();
        for (int i = 0; i < n; i++) base += MemoryCost.ofKey(b("member:" + i));
        // The map's array of value references, which its first value makes, is the map's too.
        ByteMap refs = new ByteMap(n);
        long none = refs.memoryBytes();
        refs.put(b("m"), b("v"));
        base += refs.memoryBytes() - none - MemoryCost.ofKey(b("m")) - MemoryCost.of(b("v"));
        double upPer = (double) (up.memoryBytes() - base) / n;
        double downPer = (double) (down.memoryBytes() - base) / n;
        double randomPer = (double) (random.memoryBytes() - base) / n;
        System.out.printf("zset tree bytes per entry beyond members and map: ascending %.1f, descending %.1f, random %.1f%n",
                upPer, downPer, randomPer);
        // A full leaf costs 12.5 bytes per entry (a reference and a score, plus the leaf's object and headers); a
        // random order leaves them about 70% full. A halving split on every load would cost 25 per entry.
        assertThat(upPer).isLessThan(13.5);
        assertThat(downPer).isLessThan(13.5);
        assertThat(randomPer).isBetween(14.0, 20.0);
        assertThat(up.height()).isEqualTo(3);
    }

    @Test
    void removals_mergeNodesAndGiveBackMemory() {
        ZSetTree t = new ZSetTree(0, 8, 4);
        Random rnd = new Random(5);
        for (int i = 0; i < 5000; i++) t.insert(b("m" + i), rnd.nextInt(1000));
        long full = t.memoryBytes();
        int tall = t.height();
        for (int i = 0; i < 5000; i++) {
            if (i % 50 != 0) assertThat(t.remove(b("m" + i))).isTrue();
        }
        t.verify();
        assertThat(t.size()).isEqualTo(100);
        assertThat(t.height()).isLessThan(tall);
        assertThat(t.memoryBytes()).isLessThan(full / 10);
        t.removeRanks(0, 99);
        t.verify();
        assertThat(t.size()).isZero();
        assertThat(t.height()).isEqualTo(1);
    }

    @Test
    void scan_visitsEveryMemberWithItsScore() {
        ZSetTree t = new ZSetTree(0, 4, 4);
        for (int i = 0; i < 500; i++) t.insert(b("m" + i), i * 0.5);
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        do {
            cursor = t.scan(cursor, 10, (m, s) -> {
                String name = new String(m, StandardCharsets.UTF_8);
                assertThat(s).isEqualTo(Integer.parseInt(name.substring(1)) * 0.5);
                seen.add(name);
                return true;
            });
        } while (cursor != 0);
        assertThat(seen).hasSize(500);
    }

    @Test
    void updateScore_inPlaceAtLeafEdgesKeepsSeparatorsValid() {
        ZSetTree t = new ZSetTree(0, 4, 4);
        for (int i = 0; i < 64; i++) t.insert(b(String.format("m%02d", i)), i);
        // every member moved a little in both directions (in place when it stays inside its leaf), then far
        for (int i = 0; i < 64; i++) {
            t.updateScore(t.slotOf(b(String.format("m%02d", i))), i + 0.4);
            t.verify();
            t.updateScore(t.slotOf(b(String.format("m%02d", i))), i - 0.4);
            t.verify();
        }
        for (int i = 0; i < 64; i++) {
            t.updateScore(t.slotOf(b(String.format("m%02d", i))), 100 - i);
            t.verify();
        }
        assertThat(t.memberAt(0)).isEqualTo(b("m63"));
        assertThat(t.rank(b("m00"))).isEqualTo(63);
    }
}
