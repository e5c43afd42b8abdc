package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DatabaseTest {

    private static final long NOW = 1_700_000_000_000L;

    private static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(Object bytes) {
        return new String((byte[]) bytes, StandardCharsets.UTF_8);
    }

    @Test
    void put_get_overwrite_remove() {
        Database db = new Database(3);
        assertThat(db.id()).isEqualTo(3);
        assertThat(db.get(k("a"), NOW)).isNull();
        db.put(k("a"), k("1"), 0, NOW);
        assertThat(s(db.get(k("a"), NOW))).isEqualTo("1");
        db.put(k("a"), k("2"), 0, NOW);
        assertThat(s(db.get(k("a"), NOW))).isEqualTo("2");
        assertThat(db.size()).isEqualTo(1);
        assertThat(db.exists(k("a"), NOW)).isTrue();
        assertThat(s(db.remove(k("a")))).isEqualTo("2");
        assertThat(db.remove(k("a"))).isNull();
        assertThat(db.size()).isZero();
        assertThat(db.exists(k("a"), NOW)).isFalse();
    }

    @Test
    void emptyKey_isAnOrdinaryKey() {
        Database db = new Database(0);
        db.put(new byte[0], k("empty"), 0, NOW);
        db.put(k("x"), k("x"), 0, NOW);
        assertThat(s(db.get(new byte[0], NOW))).isEqualTo("empty");
        assertThat(s(db.remove(new byte[0]))).isEqualTo("empty");
        assertThat(db.get(new byte[0], NOW)).isNull();
        assertThat(db.size()).isEqualTo(1);
    }

    @Test
    void expiredKey_isDeletedLazily_andListenerCalled() {
        Database db = new Database(0);
        List<String> expired = new ArrayList<>();
        db.setObserver(expiryObserver((d, key, value) -> {
            assertThat(d).isSameAs(db);
            expired.add(s(key) + "=" + s(value));
        }));
        db.put(k("t"), k("v"), NOW + 1000, NOW);
        db.put(k("p"), k("w"), 0, NOW);
        assertThat(db.volatileCount()).isEqualTo(1);
        assertThat(db.expireAt(k("t"))).isEqualTo(NOW + 1000);
        assertThat(db.expireAt(k("p"))).isZero();
        assertThat(s(db.get(k("t"), NOW + 1000))).isEqualTo("v"); // expired only when now > when
        assertThat(db.size()).isEqualTo(2);
        assertThat(db.peek(k("t"), NOW + 1001)).isNull();
        assertThat(expired).containsExactly("t=v");
        assertThat(db.size()).isEqualTo(1);
        assertThat(db.volatileCount()).isZero();
        assertThat(db.exists(k("p"), NOW + 10_000_000)).isTrue();
    }

    @Test
    void keepTtl_keepsExpiry_zeroClearsIt() {
        Database db = new Database(0);
        db.put(k("a"), k("1"), NOW + 5000, NOW);
        db.put(k("a"), k("2"), Database.KEEP_TTL, NOW);
        assertThat(db.expireAt(k("a"))).isEqualTo(NOW + 5000);
        assertThat(db.volatileCount()).isEqualTo(1);
        db.put(k("a"), k("3"), 0, NOW);
        assertThat(db.expireAt(k("a"))).isZero();
        assertThat(db.volatileCount()).isZero();
        db.put(k("new"), k("1"), Database.KEEP_TTL, NOW);
        assertThat(db.expireAt(k("new"))).isZero();
    }

    @Test
    void setExpireAt_and_persist() {
        Database db = new Database(0);
        assertThat(db.setExpireAt(k("a"), NOW)).isFalse();
        db.put(k("a"), k("1"), 0, NOW);
        assertThat(db.persist(k("a"))).isFalse();
        assertThat(db.setExpireAt(k("a"), NOW + 10)).isTrue();
        assertThat(db.volatileCount()).isEqualTo(1);
        assertThat(db.setExpireAt(k("a"), NOW + 20)).isTrue();
        assertThat(db.volatileCount()).isEqualTo(1);
        assertThat(db.expireAt(k("a"))).isEqualTo(NOW + 20);
        assertThat(db.persist(k("a"))).isTrue();
        assertThat(db.persist(k("a"))).isFalse();
        assertThat(db.volatileCount()).isZero();
        assertThat(db.get(k("a"), NOW + 1_000_000)).isNotNull();
    }

    @Test
    void idleMillis_followsAccessClock() {
        Database db = new Database(0);
        assertThat(db.idleMillis(k("a"), NOW)).isEqualTo(-1);
        db.put(k("a"), k("1"), 0, NOW);
        assertThat(db.idleMillis(k("a"), NOW + 5000)).isBetween(4000L, 6000L);
        db.peek(k("a"), NOW + 5000);
        db.exists(k("a"), NOW + 5000);
        assertThat(db.idleMillis(k("a"), NOW + 5000)).isBetween(4000L, 6000L);
        db.get(k("a"), NOW + 5000);
        assertThat(db.idleMillis(k("a"), NOW + 5000)).isLessThan(1000L);
        db.touch(k("a"), NOW + 9000);
        assertThat(db.idleMillis(k("a"), NOW + 9000)).isLessThan(1000L);
    }

    @Test
    void growTo200k_andShrinkBackToZero_everythingChecked() {
        Database db = new Database(0);
        int n = 200_000;
        for (int i = 0; i < n; i++) {
            db.put(k("key:" + i), SharedIntegers.valueOf(i), i % 3 == 0 ? NOW + i : 0, NOW);
            assertThat(db.size()).isEqualTo(i + 1);
        }
        assertThat(db.capacity()).isGreaterThanOrEqualTo(n * 4 / 3);
        assertThat(db.volatileCount()).isEqualTo((n + 2) / 3);
        for (int i = 0; i < n; i++) {
            assertThat(db.peek(k("key:" + i), NOW)).isEqualTo((long) i);
            assertThat(db.expireAt(k("key:" + i))).isEqualTo(i % 3 == 0 ? NOW + i : 0);
        }
        for (int i = 0; i < n; i++) {
            assertThat(db.remove(k("key:" + i))).isEqualTo((long) i);
            if (i % 997 == 0) {
                for (int j = i + 1; j < n; j += 101) {
                    assertThat(db.peek(k("key:" + j), NOW)).isEqualTo((long) j);
                }
            }
        }
        assertThat(db.size()).isZero();
        assertThat(db.volatileCount()).isZero();
        assertThat(db.capacity()).isEqualTo(Database.MIN_CAPACITY);
        assertThat(db.isRehashing()).isFalse();
    }

    /**
     * A write after {@code getForWrite} of the same key array starts at the slot the read found (INCR's read and
     * write). Between the two, anything may move or drop that slot: a delete's backward shift, a resize and its
     * migration steps, a flush. Random runs against a map: every key keeps its own value and the size stays right.
     */
    @Test
    void writeAfterRead_findsTheKeyWhereverItMovedSince() {
        Random rnd = new Random(12);
        for (int run = 0; run < 40; run++) {
            Database db = new Database(0);
            Map<String, String> model = new HashMap<>();
            int keys = 8 + rnd.nextInt(300);
            for (int op = 0; op < 3000; op++) {
                String name = "k" + rnd.nextInt(keys);
                byte[] key = k(name);
                Object before = db.getForWrite(key, NOW);
                assertThat(before == null ? null : s(before)).as(name).isEqualTo(model.get(name));
                int between = rnd.nextInt(4);
                for (int j = 0; j < between; j++) {
                    String other = "k" + rnd.nextInt(keys);
                    switch (rnd.nextInt(10)) {
                        case 0, 1, 2 -> { db.remove(k(other)); model.remove(other); }
                        case 3 -> db.rehashStep(1 + rnd.nextInt(4));
                        case 4 -> { if (rnd.nextInt(50) == 0) { db.clear(); model.clear(); } }
                        default -> {
                            String v = "o" + op + "-" + j;
                            db.put(k(other), k(v), 0, NOW);
                            model.put(other, v);
                        }
                    }
                }
                String v = "v" + op;
                db.put(key, k(v), 0, NOW);
                model.put(name, v);
                assertThat(db.size()).isEqualTo(model.size());
            }
            for (Map.Entry<String, String> e : model.entrySet()) {
                assertThat(s(db.peek(k(e.getKey()), NOW))).as(e.getKey()).isEqualTo(e.getValue());
            }
        }
    }

    @Test
    void remove_duringRehash_keepsOtherKeysReachable() {
        Database db = new Database(0);
        int n = 0;
        // Fill until a resize starts, then stop right there.
        while (!db.isRehashing()) {
            db.put(k("k" + n), k("v" + n), 0, NOW);
            n++;
        }
        assertThat(db.isRehashing()).isTrue();
        for (int i = 0; i < n; i += 2) {
            assertThat(s(db.remove(k("k" + i)))).isEqualTo("v" + i);
            for (int j = 1; j < n; j += 2) {
                assertThat(s(db.peek(k("k" + j), NOW))).isEqualTo("v" + j);
            }
        }
        assertThat(db.size()).isEqualTo(n / 2);
    }

    @Test
    void insertBurst_duringShrink_neverOverfillsTheNewTable() {
        for (int start : new int[] {1000, 5000, 40_000}) {
            Database db = new Database(0);
            for (int i = 0; i < start; i++) {
                db.put(k("k" + i), k("v"), i % 2 == 0 ? NOW + 1000 : 0, NOW);
            }
            while (db.rehashStep(1000)) {
                // settle
            }
            int removed = 0;
            while (!db.isRehashing()) {
                db.remove(k("k" + removed++));
            }
            int added = 0;
            for (; added < start * 2; added++) {
                db.put(k("burst" + added), k("b"), 0, NOW);
            }
            assertThat(db.size()).isEqualTo(start - removed + added);
            for (int i = removed; i < start; i++) {
                assertThat(db.peek(k("k" + i), NOW)).isNotNull();
                assertThat(db.expireAt(k("k" + i))).isEqualTo(i % 2 == 0 ? NOW + 1000 : 0);
            }
            for (int i = 0; i < added; i++) {
                assertThat(db.peek(k("burst" + i), NOW)).isNotNull();
            }
            assertThat(db.volatileCount()).isEqualTo((start - removed) / 2);
        }
    }

    @Test
    void overwrite_duringRehash_movesKeyAndKeepsTtl() {
        Database db = new Database(0);
        int n = 0;
        while (!db.isRehashing()) {
            db.put(k("k" + n), k("v" + n), NOW + n + 1, NOW);
            n++;
        }
        long size = db.size();
        for (int i = n - 1; i >= 0; i--) {
            db.put(k("k" + i), k("w" + i), Database.KEEP_TTL, NOW);
        }
        assertThat(db.size()).isEqualTo(size);
        assertThat(db.volatileCount()).isEqualTo(size);
        for (int i = 0; i < n; i++) {
            assertThat(s(db.peek(k("k" + i), NOW))).isEqualTo("w" + i);
            assertThat(db.expireAt(k("k" + i))).isEqualTo(NOW + i + 1);
        }
        while (db.rehashStep(7)) {
            // drain
        }
        for (int i = 0; i < n; i++) {
            assertThat(s(db.peek(k("k" + i), NOW))).isEqualTo("w" + i);
        }
    }

    @Test
    void randomOps_matchHashMap() {
        Random rnd = new Random(42);
        Database db = new Database(0);
        Map<String, String> ref = new HashMap<>();
        for (int op = 0; op < 100_000; op++) {
            String key = randomKey(rnd, op < 50_000 ? 5000 : 500);
            int what = rnd.nextInt(10);
            if (what < 5) {
                String v = "v" + op;
                db.put(k(key), k(v), 0, NOW);
                ref.put(key, v);
            } else if (what < 8) {
                Object got = db.remove(k(key));
                String want = ref.remove(key);
                assertThat(got == null ? null : s(got)).isEqualTo(want);
            } else {
                Object got = db.get(k(key), NOW);
                assertThat(got == null ? null : s(got)).isEqualTo(ref.get(key));
            }
            if (rnd.nextInt(100) == 0) {
                db.rehashStep(rnd.nextInt(50));
            }
            assertThat(db.size()).isEqualTo(ref.size());
        }
        Map<String, String> all = new HashMap<>();
        db.forEach((key, value) -> assertThat(all.put(s(key), s(value))).isNull());
        assertThat(all).isEqualTo(ref);
    }

    private static String randomKey(Random rnd, int space) {
        int id = rnd.nextInt(space);
        if (id == 0) {
            return "";
        }
        // Varied lengths: 1..40 bytes, deterministic per id.
        int len = 1 + (id * 7919) % 40;
        StringBuilder sb = new StringBuilder(Integer.toString(id));
        while (sb.length() < len) {
            sb.append((char) ('a' + sb.length() % 26));
        }
        return sb.toString();
    }

    @Test
    void scan_returnsEveryKeyPresentThroughout_whileTableGrowsAndShrinks() {
        Database db = new Database(0);
        Set<String> stable = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            stable.add("stable:" + i);
            db.put(k("stable:" + i), k("x"), 0, NOW);
        }
        Set<String> seen = new HashSet<>();
        int startCap = db.capacity();
        int maxCap = startCap;
        int minCapAfterMax = Integer.MAX_VALUE;
        int rehashingCalls = 0;
        int churnNext = 0;
        int churnDeleted = 0;
        int calls = 0;
        long cursor = 0;
        do {
            cursor = db.scan(cursor, 2, key -> seen.add(s(key)));
            calls++;
            if (calls <= 300) {
                for (int i = 0; i < 100; i++) {
                    db.put(k("churn:" + churnNext++), k("y"), 0, NOW);
                }
            } else if (churnDeleted < churnNext) {
                for (int i = 0; i < 100 && churnDeleted < churnNext; i++) {
                    db.remove(k("churn:" + churnDeleted++));
                }
            }
            if (db.isRehashing()) {
                rehashingCalls++;
            }
            maxCap = Math.max(maxCap, db.capacity());
            if (maxCap > startCap) {
                minCapAfterMax = Math.min(minCapAfterMax, db.capacity());
            }
        } while (cursor != 0);
        assertThat(seen).containsAll(stable);
        assertThat(maxCap).as("grew several times").isGreaterThanOrEqualTo(startCap * 8);
        assertThat(minCapAfterMax).as("shrank during the scan").isLessThan(maxCap);
        assertThat(rehashingCalls).isGreaterThan(10);
    }

    @Test
    void scan_onStableTable_returnsEachKeyExactlyOnce() {
        Database db = new Database(0);
        for (int i = 0; i < 5000; i++) {
            db.put(k("k" + i), k("v"), 0, NOW);
        }
        while (db.rehashStep(1000)) {
            // finish
        }
        List<String> seen = new ArrayList<>();
        long cursor = 0;
        do {
            cursor = db.scan(cursor, 10, key -> seen.add(s(key)));
        } while (cursor != 0);
        assertThat(seen).hasSize(5000).doesNotHaveDuplicates();
        assertThat(new Database(0).scan(0, 10, key -> { })).isZero();
    }

    @Test
    void activeExpireCycle_deletesOnlyExpiredKeys() {
        Database db = new Database(0);
        List<String> expired = new ArrayList<>();
        db.setObserver(expiryObserver((d, key, value) -> expired.add(s(key))));
        for (int i = 0; i < 1000; i++) {
            long when = i % 2 == 0 ? NOW - 1 : (i % 3 == 0 ? NOW + 100_000 : 0);
            db.put(k("k" + i), k("v"), when, NOW - 10);
        }
        while (db.rehashStep(1000)) {
            // settle so the whole keyspace is in one table
        }
        int deleted = 0;
        for (int round = 0; round < 100; round++) {
            deleted += db.activeExpireCycle(NOW, 20);
        }
        assertThat(deleted).isEqualTo(500);
        assertThat(expired).hasSize(500).allMatch(key -> Integer.parseInt(key.substring(1)) % 2 == 0);
        assertThat(db.size()).isEqualTo(500);
        for (int i = 1; i < 1000; i += 2) {
            assertThat(db.exists(k("k" + i), NOW)).isTrue();
        }
        assertThat(db.activeExpireCycle(NOW, 1000)).isZero();
    }

    @Test
    void randomKey_returnsLiveKeys() {
        Database db = new Database(0);
        assertThat(db.randomKey(NOW)).isNull();
        Set<String> live = new HashSet<>();
        for (int i = 0; i < 300; i++) {
            db.put(k("dead" + i), k("v"), NOW - 1, NOW - 10);
        }
        for (int i = 0; i < 20; i++) {
            live.add("live" + i);
            db.put(k("live" + i), k("v"), 0, NOW);
        }
        Set<String> got = new HashSet<>();
        for (int i = 0; i < 2000; i++) {
            byte[] key = db.randomKey(NOW);
            assertThat(key).isNotNull();
            got.add(s(key));
        }
        assertThat(live).containsAll(got);
        assertThat(got.size()).isGreaterThan(10);
        // Only expired keys: all get reclaimed and the answer is null.
        Database dead = new Database(0);
        for (int i = 0; i < 100; i++) {
            dead.put(k("d" + i), k("v"), NOW - 1, NOW - 10);
        }
        assertThat(dead.randomKey(NOW)).isNull();
        assertThat(dead.size()).isZero();
    }

    @Test
    void usedBytes_returnsToBaseline_afterDeletingEverything() {
        Database db = new Database(0);
        long baseline = db.usedBytes();
        for (int i = 0; i < 20_000; i++) {
            Object v = i % 2 == 0 ? k("value-" + i) : SharedIntegers.valueOf(i * 3L);
            db.put(k("key-" + i), v, i % 5 == 0 ? NOW + 100_000 : 0, NOW);
        }
        long full = db.usedBytes();
        assertThat(full).isGreaterThan(baseline + 20_000L * 24);
        db.put(k("key-0"), k("a much longer value than before, to change the estimate"), Database.KEEP_TTL, NOW);
        for (int i = 0; i < 20_000; i++) {
            db.remove(k("key-" + i));
        }
        assertThat(db.usedBytes()).isBetween(baseline, baseline + 16 + 8L * Database.MIN_CAPACITY);
        db.put(k("a"), k("b"), 0, NOW);
        db.clear();
        assertThat(db.usedBytes()).isEqualTo(baseline);
        assertThat(db.size()).isZero();
    }

    @Test
    void memoryCost_rules() {
        // An array header is 12 bytes with compact object headers, 16 without; the total is rounded up to 8.
        boolean compact = MemoryCost.ARRAY_HEADER == 12;
        assertThat(MemoryCost.of(new byte[0])).isEqualTo(16);
        assertThat(MemoryCost.of(new byte[1])).isEqualTo(compact ? 16 : 24);
        assertThat(MemoryCost.of(new byte[4])).isEqualTo(compact ? 16 : 24);
        assertThat(MemoryCost.of(new byte[5])).isEqualTo(24);
        assertThat(MemoryCost.of(new byte[8])).isEqualTo(24);
        assertThat(MemoryCost.of(new byte[9])).isEqualTo(compact ? 24 : 32);
        assertThat(MemoryCost.references(3)).isEqualTo(compact ? 24 : 32);
        assertThat(MemoryCost.of(SharedIntegers.valueOf(5))).isZero();
        assertThat(MemoryCost.of(SharedIntegers.valueOf(123_456))).isEqualTo(16);
        assertThat(MemoryCost.of((Sized) () -> 1234)).isEqualTo(1234);
        assertThat(SharedIntegers.valueOf(9999)).isSameAs(SharedIntegers.valueOf(9999));
        assertThat(SharedIntegers.isShared(SharedIntegers.valueOf(9999))).isTrue();
        assertThat(SharedIntegers.isShared(SharedIntegers.valueOf(10_000))).isFalse();
        assertThat(SharedIntegers.isShared(Long.valueOf(-1))).isFalse();
    }

    @Test
    void swapContents_exchangesEverythingButIds() {
        Database a = new Database(1);
        Database b = new Database(2);
        for (int i = 0; i < 100; i++) {
            a.put(k("a" + i), k("x"), i < 10 ? NOW + 1000 : 0, NOW);
        }
        b.put(k("b"), k("y"), 0, NOW);
        long aBytes = a.usedBytes();
        long bBytes = b.usedBytes();
        a.swapContents(b);
        assertThat(a.id()).isEqualTo(1);
        assertThat(b.id()).isEqualTo(2);
        assertThat(a.size()).isEqualTo(1);
        assertThat(b.size()).isEqualTo(100);
        assertThat(a.volatileCount()).isZero();
        assertThat(b.volatileCount()).isEqualTo(10);
        assertThat(a.usedBytes()).isEqualTo(bBytes);
        assertThat(b.usedBytes()).isEqualTo(aBytes);
        assertThat(a.exists(k("b"), NOW)).isTrue();
        assertThat(b.expireAt(k("a3"))).isEqualTo(NOW + 1000);
        for (int i = 0; i < 100; i++) {
            assertThat(b.exists(k("a" + i), NOW)).isTrue();
        }
    }

    @Test
    void forEach_whileRehashing_seesEveryEntryOnce() {
        Database db = new Database(0);
        int n = 0;
        while (!db.isRehashing()) {
            db.put(k("k" + n), k("v"), 0, NOW);
            n++;
        }
        db.rehashStep(3);
        List<String> seen = new ArrayList<>();
        db.forEach((key, value) -> seen.add(s(key)));
        assertThat(seen).hasSize(n).doesNotHaveDuplicates();
    }

    /**
     * A shrink that starts while the cursor carries bits above the new table's mask: the frozen larger
     * table's buckets expanding the cursor's bucket must be walked in reverse-binary order (a plain
     * increment of the high bits skipped some). Many key sets, since the hash seed is random per run.
     */
    @Test
    void scan_duringShrink_withHighCursorBits_missesNothing() {
        for (int r = 0; r < 80; r++) {
            Database db = new Database(0);
            Set<String> stable = new HashSet<>();
            String p = "s" + r + ":";
            for (int i = 0; i < 2000; i++) {
                stable.add(p + i);
                db.put(k(p + i), k("x"), 0, NOW);
            }
            Set<String> seen = new HashSet<>();
            int churnNext = 0;
            int churnDeleted = 0;
            int calls = 0;
            long cursor = 0;
            do {
                cursor = db.scan(cursor, 2, key -> seen.add(s(key)));
                if (++calls <= 300) {
                    for (int i = 0; i < 100; i++) {
                        db.put(k("churn:" + churnNext++), k("y"), 0, NOW);
                    }
                } else {
                    for (int i = 0; i < 100 && churnDeleted < churnNext; i++) {
                        db.remove(k("churn:" + churnDeleted++));
                    }
                }
            } while (cursor != 0);
            assertThat(seen).as("run %d", r).containsAll(stable);
        }
    }

    // ---------------------------------------------------------------- embedded strings

    /** Drains any rehash of an emptied database and lets it shrink back to the minimum capacity. */
    private static void settleEmpty(Database db) {
        while (db.rehashStep(1000)) {
            // drain
        }
        db.put(k("settle"), k("x"), 0, NOW);
        db.remove(k("settle"));
        while (db.rehashStep(1000)) {
            // drain
        }
        assertThat(db.capacity()).isEqualTo(Database.MIN_CAPACITY);
    }

    private static byte[] bytes(int len, int seed) {
        byte[] b = new byte[len];
        for (int i = 0; i < len; i++) {
            b[i] = (byte) (seed * 31 + i * 7);
        }
        return b;
    }

    @Test
    void put_embedsUpToTheInlineLimit_andIntegers_putRawNever_otherValuesNever() {
        Database db = new Database(0);
        byte[] atLimit = bytes(Database.INLINE_LIMIT, 1);
        byte[] overLimit = bytes(Database.INLINE_LIMIT + 1, 2);
        db.put(k("e"), atLimit, 0, NOW);
        db.put(k("r"), overLimit, 0, NOW);
        db.putRaw(k("raw"), bytes(3, 3), 0, NOW);
        db.put(k("empty"), new byte[0], 0, NOW);
        db.put(k("long"), SharedIntegers.valueOf(123_456), 0, NOW);
        assertThat(db.isEmbedded(k("e"))).isTrue();
        assertThat(db.isEmbedded(k("r"))).isFalse();
        assertThat(db.isEmbedded(k("raw"))).isFalse();
        assertThat(db.isEmbedded(k("empty"))).isTrue();
        assertThat(db.isEmbedded(k("long"))).isTrue();
        assertThat(db.isEmbedded(k("absent"))).isFalse();
        // Embedded reads are copies with the right content; raw reads are the stored reference.
        byte[] got = (byte[]) db.get(k("e"), NOW);
        assertThat(got).isEqualTo(atLimit).isNotSameAs(atLimit);
        got[0]++;
        assertThat((byte[]) db.peek(k("e"), NOW)).isEqualTo(atLimit);
        assertThat(db.get(k("r"), NOW)).isSameAs(overLimit);
        assertThat((byte[]) db.get(k("empty"), NOW)).isEmpty();
        assertThat(db.get(k("long"), NOW)).isEqualTo(123_456L);
        assertThat((byte[]) db.remove(k("e"))).isEqualTo(atLimit);
        assertThat(db.isEmbedded(k("e"))).isFalse();
        assertThat(db.size()).isEqualTo(4);
    }

    /**
     * Integers live in their entries as decimal text (decision 0029): every read gives the {@link Long} back, GET's
     * in-place read gives the text, INCR's read the number; an overwrite whose text keeps its length rewrites the entry
     * in place, and a string of the same length as an integer's text is not mistaken for one.
     */
    @Test
    void integers_embedAsText_readBackAsLongs_andRewriteInPlace() {
        Database db = new Database(0);
        long[] values = {0, 7, -7, 9_999, 10_000, 123_456_789, Long.MAX_VALUE, Long.MIN_VALUE, Long.MIN_VALUE + 1};
        for (long v : values) {
            byte[] key = k("n" + v);
            db.put(key, v, 0, NOW);
            assertThat(db.isEmbedded(key)).isTrue();
            assertThat(db.get(key, NOW)).isEqualTo(v);
            assertThat(db.getIntegerForWrite(key, NOW)).isSameAs(Database.INTEGER);
            assertThat(db.integerRead()).isEqualTo(v);
            assertThat(db.getInPlace(key, NOW, true)).isSameAs(Database.EMBEDDED);
            assertThat(new String(db.inPlaceArray(), db.inPlaceOffset(), db.inPlaceLength(), StandardCharsets.US_ASCII))
                    .isEqualTo(Long.toString(v));
        }
        // Small integers come back as the shared instances, as stored Longs did.
        assertThat(db.get(k("n7"), NOW)).isSameAs(SharedIntegers.valueOf(7));

        // Same length: rewritten in place (the slabs do not grow); longer text: a new entry; the key keeps its expiry.
        byte[] c = k("counter");
        db.putInteger(c, 100, NOW + 5000, NOW);
        long slabs = db.slabBytes();
        long used = db.usedBytes();
        for (long v = 101; v <= 999; v++) {
            db.putInteger(c, v, Database.KEEP_TTL, NOW);
        }
        assertThat(db.slabBytes()).isEqualTo(slabs);
        assertThat(db.usedBytes()).isEqualTo(used);
        assertThat(db.get(c, NOW)).isEqualTo(999L);
        db.putInteger(c, 1000, Database.KEEP_TTL, NOW);
        assertThat(db.get(c, NOW)).isEqualTo(1000L);
        assertThat(db.expireAt(c)).isEqualTo(NOW + 5000);

        // A string of the same length replaces the integer as a string, and back.
        db.put(c, k("abcd"), Database.KEEP_TTL, NOW);
        assertThat(s(db.get(c, NOW))).isEqualTo("abcd");
        assertThat(db.getIntegerForWrite(c, NOW)).isNotSameAs(Database.INTEGER);
        db.put(c, k("1234"), Database.KEEP_TTL, NOW); // text that looks like a number stays a string (INCRBYFLOAT's)
        assertThat(db.get(c, NOW)).isInstanceOf(byte[].class);
        db.putInteger(c, 4321, Database.KEEP_TTL, NOW);
        assertThat(db.get(c, NOW)).isEqualTo(4321L);

        // Losing and regaining the expiry field, and a raw value in between, keep the integer.
        assertThat(db.persist(c)).isTrue();
        assertThat(db.get(c, NOW)).isEqualTo(4321L);
        assertThat(db.setExpireAt(c, NOW + 9000)).isTrue();
        assertThat(db.get(c, NOW)).isEqualTo(4321L);
        db.putRaw(c, k("r"), Database.KEEP_TTL, NOW);
        db.putInteger(c, -5, Database.KEEP_TTL, NOW);
        assertThat(db.get(c, NOW)).isEqualTo(-5L);
        assertThat(db.expireAt(c)).isEqualTo(NOW + 9000);

        // Snapshot-free iteration sees Longs too.
        Map<String, Object> seen = new HashMap<>();
        db.forEach((key, value) -> seen.put(s(key), value));
        assertThat(seen.get("counter")).isEqualTo(-5L);
        assertThat(seen.get("n-7")).isEqualTo(-7L);
    }

    /** Random integers of every magnitude and sign: the text written, read back and rewritten agree with Java's. */
    @Test
    void integers_ofEveryMagnitude_roundTripThroughTheirText() {
        Database db = new Database(0);
        Random rnd = new Random(29);
        byte[] key = k("n");
        for (int i = 0; i < 20_000; i++) {
            long v = rnd.nextLong() >> rnd.nextInt(64);
            if (i % 2 == 0) db.put(key, v, 0, NOW);
            else db.putInteger(key, v, Database.KEEP_TTL, NOW);
            assertThat(db.getInPlace(key, NOW, false)).isSameAs(Database.EMBEDDED);
            assertThat(new String(db.inPlaceArray(), db.inPlaceOffset(), db.inPlaceLength(), StandardCharsets.US_ASCII))
                    .isEqualTo(Long.toString(v));
            assertThat(db.getIntegerForWrite(key, NOW)).isSameAs(Database.INTEGER);
            assertThat(db.integerRead()).isEqualTo(v);
            assertThat(db.peek(key, NOW)).isEqualTo(v);
        }
    }

    @Test
    void embeddedKeys_ofAnyLength_roundTrip() {
        Database db = new Database(0);
        // Key lengths around the varint's 1/2/3-byte boundaries.
        int[] lens = {0, 1, 127, 128, 129, 16_383, 16_384, 20_000};
        for (int len : lens) {
            db.put(bytes(len, len), bytes(len % 45, len), 0, NOW);
        }
        for (int len : lens) {
            assertThat(db.isEmbedded(bytes(len, len))).isTrue();
            assertThat((byte[]) db.get(bytes(len, len), NOW)).isEqualTo(bytes(len % 45, len));
            if (len > 0) {
                assertThat(db.get(bytes(len, len + 1), NOW)).isNull();
            }
        }
        Set<Integer> keyLens = new HashSet<>();
        db.forEach((key, value) -> {
            assertThat(key).isEqualTo(bytes(key.length, key.length));
            assertThat((byte[]) value).isEqualTo(bytes(key.length % 45, key.length));
            keyLens.add(key.length);
        });
        assertThat(keyLens).hasSize(lens.length);
    }

    @Test
    void overwrite_switchesBetweenEmbeddedRawAndLong_inPlaceAndDuringRehash() {
        Database db = new Database(0);
        int n = 0;
        while (!db.isRehashing()) {
            db.put(k("k" + n), k("v" + n), NOW + n + 1, NOW);
            n++;
        }
        long baseline = new Database(0).usedBytes();
        for (int round = 0; round < 4; round++) {
            for (int i = 0; i < n; i++) {
                byte[] key = k("k" + i);
                switch ((i + round) % 4) {
                    case 0 -> db.put(key, bytes(44, i), Database.KEEP_TTL, NOW);
                    case 1 -> db.putRaw(key, bytes(10, i), Database.KEEP_TTL, NOW);
                    case 2 -> db.put(key, SharedIntegers.valueOf(1_000_000L + i), Database.KEEP_TTL, NOW);
                    default -> db.put(key, bytes(Database.INLINE_LIMIT + 1, i), Database.KEEP_TTL, NOW);
                }
            }
            for (int i = 0; i < n; i++) {
                byte[] key = k("k" + i);
                Object v = db.peek(key, NOW);
                switch ((i + round) % 4) {
                    case 0 -> assertThat((byte[]) v).isEqualTo(bytes(44, i));
                    case 1 -> assertThat((byte[]) v).isEqualTo(bytes(10, i));
                    case 2 -> assertThat(v).isEqualTo(1_000_000L + i);
                    default -> assertThat((byte[]) v).isEqualTo(bytes(Database.INLINE_LIMIT + 1, i));
                }
                assertThat(db.isEmbedded(key)).isEqualTo((i + round) % 4 == 0 || (i + round) % 4 == 2);
                assertThat(db.expireAt(key)).isEqualTo(NOW + i + 1);
            }
            db.rehashStep(5);
        }
        assertThat(db.size()).isEqualTo(n);
        assertThat(db.volatileCount()).isEqualTo(n);
        for (int i = 0; i < n; i++) {
            assertThat(db.remove(k("k" + i))).isNotNull();
        }
        settleEmpty(db);
        assertThat(db.usedBytes()).isBetween(baseline, baseline + 16 + 8L * Database.MIN_CAPACITY);
    }

    @Test
    void embeddedSlots_expireLazilyAndActively_withKeyAndValueForTheListener() {
        Database db = new Database(0);
        List<String> expired = new ArrayList<>();
        db.setObserver(expiryObserver((d, key, value) -> expired.add(s(key) + "=" + s(value))));
        for (int i = 0; i < 200; i++) {
            db.put(k("e" + i), k("val" + i), i % 2 == 0 ? NOW + 10 : 0, NOW);
        }
        assertThat(db.isEmbedded(k("e0"))).isTrue();
        assertThat(db.get(k("e0"), NOW + 11)).isNull();
        assertThat(expired).containsExactly("e0=val0");
        while (db.rehashStep(1000)) {
            // settle
        }
        int deleted = 0;
        for (int round = 0; round < 50; round++) {
            deleted += db.activeExpireCycle(NOW + 11, 20);
        }
        assertThat(deleted).isEqualTo(99);
        assertThat(expired).hasSize(100).allMatch(e -> {
            String[] kv = e.split("=");
            return Integer.parseInt(kv[0].substring(1)) % 2 == 0 && kv[1].equals("val" + kv[0].substring(1));
        });
        assertThat(db.size()).isEqualTo(100);
        assertThat(db.volatileCount()).isZero();
    }

    @Test
    void scan_forEach_randomKey_returnKeyBytesOfEmbeddedSlots() {
        Database db = new Database(0);
        Map<String, String> ref = new HashMap<>();
        for (int i = 0; i < 3000; i++) {
            String v = "value" + i;
            if (i % 3 == 0) {
                db.putRaw(k("key" + i), k(v), 0, NOW);
            } else {
                db.put(k("key" + i), k(v), 0, NOW);
            }
            ref.put("key" + i, v);
        }
        db.rehashStep(10); // keep some keys in the frozen table, if one exists
        Set<String> scanned = new HashSet<>();
        long cursor = 0;
        do {
            cursor = db.scan(cursor, 50, key -> scanned.add(s(key)));
        } while (cursor != 0);
        assertThat(scanned).isEqualTo(ref.keySet());
        Map<String, String> all = new HashMap<>();
        db.forEach((key, value) -> assertThat(all.put(s(key), s(value))).isNull());
        assertThat(all).isEqualTo(ref);
        for (int i = 0; i < 500; i++) {
            byte[] key = db.randomKey(NOW);
            assertThat(ref).containsKey(s(key));
            assertThat(s(db.peek(key, NOW))).isEqualTo(ref.get(s(key)));
        }
    }

    @Test
    void randomOps_withValuesOfRandomLength_matchHashMap_andUsedBytesReturnsToBaseline() {
        Random rnd = new Random(7);
        Database db = new Database(0);
        long baseline = db.usedBytes();
        Map<String, byte[]> ref = new HashMap<>();
        for (int op = 0; op < 100_000; op++) {
            String key = randomKey(rnd, op < 50_000 ? 5000 : 500);
            int what = rnd.nextInt(10);
            if (what < 5) {
                byte[] v = bytes(rnd.nextInt(4) == 0 ? rnd.nextInt(Database.INLINE_LIMIT + 200) : rnd.nextInt(101), op);
                boolean raw = rnd.nextInt(4) == 0;
                if (raw) {
                    db.putRaw(k(key), v, 0, NOW);
                } else {
                    db.put(k(key), v, 0, NOW);
                }
                assertThat(db.isEmbedded(k(key))).isEqualTo(!raw && v.length <= Database.INLINE_LIMIT);
                ref.put(key, v);
            } else if (what < 8) {
                Object got = db.remove(k(key));
                byte[] want = ref.remove(key);
                assertThat((byte[]) got).isEqualTo(want);
            } else {
                Object got = db.get(k(key), NOW);
                assertThat((byte[]) got).isEqualTo(ref.get(key));
            }
            if (rnd.nextInt(100) == 0) {
                db.rehashStep(rnd.nextInt(50));
            }
            assertThat(db.size()).isEqualTo(ref.size());
        }
        Map<String, byte[]> all = new HashMap<>();
        db.forEach((key, value) -> assertThat(all.put(s(key), (byte[]) value)).isNull());
        assertThat(all.keySet()).isEqualTo(ref.keySet());
        all.forEach((key, value) -> assertThat(value).isEqualTo(ref.get(key)));
        for (String key : ref.keySet()) {
            db.remove(k(key));
        }
        settleEmpty(db);
        assertThat(db.size()).isZero();
        assertThat(db.usedBytes()).isBetween(baseline, baseline + 16 + 8L * Database.MIN_CAPACITY);
    }

    /**
     * Entries carry their expiry field only while they have one: random puts (embedded and raw, with an expiry, without,
     * keeping it), expiries set and removed, over keys whose length varint takes one or two bytes, agree with a
     * reference map in value and expiry; volatileCount follows, and the accounting returns to its baseline.
     */
    @Test
    void randomOps_withExpiriesAddedAndRemoved_matchReference_andAccountingReturnsToBaseline() {
        Random rnd = new Random(11);
        Database db = new Database(0);
        long baseline = db.usedBytes();
        Map<String, byte[]> values = new HashMap<>();
        Map<String, Long> expiries = new HashMap<>();
        long far = NOW + 1_000_000;
        for (int op = 0; op < 60_000; op++) {
            String key = randomKey(rnd, 3000) + (rnd.nextInt(3) == 0 ? "-".repeat(70) : "");
            byte[] kb = k(key);
            int what = rnd.nextInt(12);
            if (what < 5) {
                byte[] v = bytes(rnd.nextInt(60), op);
                int ttlMode = rnd.nextInt(3); // 0: none, 1: an expiry, 2: keep
                long when = ttlMode == 0 ? 0 : ttlMode == 1 ? far + rnd.nextInt(1000) : Database.KEEP_TTL;
                if (rnd.nextInt(4) == 0) {
                    db.putRaw(kb, v, when, NOW);
                } else {
                    db.put(kb, v, when, NOW);
                }
                values.put(key, v);
                if (ttlMode == 0 || (ttlMode == 2 && !expiries.containsKey(key))) expiries.remove(key);
                else if (ttlMode == 1) expiries.put(key, when);
            } else if (what < 7) {
                long when = far + rnd.nextInt(1000);
                assertThat(db.setExpireAt(kb, when)).isEqualTo(values.containsKey(key));
                if (values.containsKey(key)) expiries.put(key, when);
            } else if (what < 9) {
                assertThat(db.persist(kb)).isEqualTo(expiries.remove(key) != null);
            } else if (what < 10) {
                assertThat((byte[]) db.remove(kb)).isEqualTo(values.remove(key));
                expiries.remove(key);
            } else {
                assertThat((byte[]) db.get(kb, NOW)).isEqualTo(values.get(key));
                assertThat(db.expireAt(kb)).isEqualTo(expiries.getOrDefault(key, 0L));
            }
            if (rnd.nextInt(100) == 0) db.rehashStep(rnd.nextInt(50));
            assertThat(db.volatileCount()).isEqualTo(expiries.size());
        }
        db.forEach((key, value) -> {
            assertThat((byte[]) value).isEqualTo(values.get(s(key)));
            assertThat(db.expireAt(key)).isEqualTo(expiries.getOrDefault(s(key), 0L));
        });
        for (String key : values.keySet()) db.remove(k(key));
        settleEmpty(db);
        assertThat(db.volatileCount()).isZero();
        assertThat(db.usedBytes()).isBetween(baseline, baseline + 16 + 8L * Database.MIN_CAPACITY);
    }

    /**
     * A flushed, swapped-away or drained table is unreachable: the database keeps no scratch reference to it (a lookup's
     * last table once kept every value of a flushed database alive).
     */
    @Test
    void droppedTables_andTheirValues_areNotKeptReachable() throws InterruptedException {
        Database flushedDb = new Database(0);
        java.lang.ref.WeakReference<byte[]> flushed = putAndWatch(flushedDb, "a");
        flushedDb.get(k("a"), NOW); // the lookup's table is the one clear() drops
        flushedDb.clear();

        Database swappedDb = new Database(1);
        Database other = new Database(2);
        java.lang.ref.WeakReference<byte[]> swapped = putAndWatch(swappedDb, "b");
        swappedDb.get(k("b"), NOW);
        swappedDb.swapContents(other);
        other.get(k("b"), NOW);
        other.clear();

        Database resizedDb = new Database(3);
        for (int i = 0; i < 12; i++) resizedDb.put(k("grow" + i), bytes(1, i), 0, NOW);
        java.lang.ref.WeakReference<byte[]> resized = putAndWatch(resizedDb, "c"); // the 13th key: the table grows
        assertThat(resizedDb.isRehashing()).isTrue();
        resizedDb.remove(k("c"));
        while (resizedDb.rehashStep(1000)) { }

        for (int i = 0; i < 20 && (flushed.get() != null || swapped.get() != null || resized.get() != null); i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(flushed.get()).as("value of a flushed table").isNull();
        assertThat(swapped.get()).as("value of a table swapped away and flushed").isNull();
        assertThat(resized.get()).as("value removed while its table was being drained").isNull();
    }

    private static java.lang.ref.WeakReference<byte[]> putAndWatch(Database db, String key) {
        byte[] v = bytes(100, 3);
        db.putRaw(k(key), v, 0, NOW);
        return new java.lang.ref.WeakReference<>(v);
    }

    /**
     * Entries live in slabs (decision 0018): deleting most keys leaves sparse slabs, whose live entries the compaction
     * steps move until the emptied slabs are dropped; every remaining key keeps its value, expiry and access field, and
     * keys of every shape (embedded, raw, with an expiry, long keys with two-byte varints, entries in slabs of their
     * own) survive the moves.
     */
    @Test
    void sparseSlabs_areCompacted_andEveryMovedEntryKeepsItsKeyValueAndExpiry() {
        Random rnd = new Random(5);
        Database db = new Database(0);
        Map<String, byte[]> values = new HashMap<>();
        Map<String, Long> expiries = new HashMap<>();
        for (int i = 0; i < 100_000; i++) {
            String key = "key:" + i + (i % 7 == 0 ? "-".repeat(140) : "") + (i % 5000 == 0 ? "L".repeat(20_000) : "");
            byte[] v = bytes(i % 11 == 0 ? Database.INLINE_LIMIT : 32, i);
            long when = i % 3 == 0 ? NOW + 1_000_000 + i : 0;
            if (i % 13 == 0) db.putRaw(k(key), v, when, NOW); else db.put(k(key), v, when, NOW);
            values.put(key, v);
            if (when != 0) expiries.put(key, when);
        }
        while (db.rehashStep(1000)) { }
        long full = db.slabBytes();
        List<String> keys = new ArrayList<>(values.keySet());
        java.util.Collections.shuffle(keys, rnd);
        for (String key : keys.subList(0, keys.size() * 4 / 5)) {
            assertThat((byte[]) db.remove(k(key))).isEqualTo(values.remove(key));
            expiries.remove(key);
        }
        while (db.rehashStep(1000)) { }
        // Live entries are a fifth of what they were; the slabs hold at most twice that, plus the fill slab.
        assertThat(db.slabBytes()).isLessThan(full * 2 / 5 + Slabs.MAX_SLAB);
        assertThat(db.size()).isEqualTo(values.size());
        for (Map.Entry<String, byte[]> e : values.entrySet()) {
            byte[] key = k(e.getKey());
            assertThat((byte[]) db.peek(key, NOW)).isEqualTo(e.getValue());
            assertThat(db.expireAt(key)).isEqualTo(expiries.getOrDefault(e.getKey(), 0L));
            assertThat(db.idleMillis(key, NOW)).isBetween(0L, 999L);
        }
        Map<String, byte[]> seen = new HashMap<>();
        db.forEach((key, value) -> assertThat(seen.put(s(key), (byte[]) value)).isNull());
        assertThat(seen.keySet()).isEqualTo(values.keySet());
        for (String key : values.keySet()) db.remove(k(key));
        while (db.rehashStep(1000)) { }
        assertThat(db.slabBytes()).isLessThanOrEqualTo(Slabs.MAX_SLAB);
    }

    /**
     * Compaction in steps of one 64-byte entry each (the cron's budget of one slot), deletions by active expiry (which
     * runs no step of its own), and shrinking tables draining at the same time: every sparse slab is compacted and
     * dropped, the work ends, and every remaining key keeps its value.
     */
    @Test
    void compactionStepsEndingAtASlabsLastLiveEntry_leaveEveryKeyIntact() {
        Random rnd = new Random(3);
        Database db = new Database(0);
        Map<String, byte[]> values = new HashMap<>();
        long far = NOW + 1_000_000;
        for (int i = 0; i < 20_000; i++) {
            String key = String.format("key:%012d", i); // 16 bytes, with an expiry and a 35-byte value: 64 bytes
            byte[] v = bytes(35, i);
            db.put(k(key), v, far, NOW);
            values.put(key, v);
        }
        List<String> keys = new ArrayList<>(values.keySet());
        java.util.Collections.shuffle(keys, rnd);
        for (String key : keys.subList(0, keys.size() * 9 / 10)) {
            assertThat(db.setExpireAt(k(key), NOW + 1)).isTrue();
            values.remove(key);
        }
        while (db.volatileCount() > values.size()) {
            db.activeExpireCycle(NOW + 10, 1000); // walks the new table only: the frozen one drains with the steps
            db.rehashStep(1);
        }
        int steps = 0;
        while (db.rehashStep(1) && steps < 200_000) steps++;
        assertThat(steps).isLessThan(200_000); // the work ends (a step walking a dropped slab chased the fill slab)
        assertThat(db.slabBytes()).isLessThan(2L * Slabs.MAX_SLAB); // every sparse slab was compacted and dropped
        assertThat(db.size()).isEqualTo(values.size());
        values.forEach((key, v) -> assertThat((byte[]) db.peek(k(key), NOW)).isEqualTo(v));
    }

    @Test
    void overwriteOfEmbeddedValue_withSameSize_isInvisibleToEarlierReaders() {
        Database db = new Database(0);
        byte[] key = "same-size".getBytes();
        db.put(key, "aaaa".getBytes(), 0, 1000);
        byte[] before = (byte[]) db.get(key, 1000);
        long bytes = db.usedBytes();
        db.put(key, "bbbb".getBytes(), 0, 1000);
        assertThat(before).isEqualTo("aaaa".getBytes());
        assertThat((byte[]) db.get(key, 1000)).isEqualTo("bbbb".getBytes());
        assertThat(db.isEmbedded(key)).isTrue();
        assertThat(db.usedBytes()).isEqualTo(bytes);
        db.put(key, "cc".getBytes(), 0, 1000);
        assertThat((byte[]) db.get(key, 1000)).isEqualTo("cc".getBytes());
        assertThat(db.size()).isEqualTo(1);
    }

    @Test
    void avgTtl_isEstimatedByTheActiveCycle_andZeroWithoutExpiries() {
        Database db = new Database(0);
        long now = 1_000_000;
        for (int i = 0; i < 100; i++) db.put(("t" + i).getBytes(), "v".getBytes(), now + 100_000, now);
        for (int i = 0; i < 50; i++) db.put(("p" + i).getBytes(), "v".getBytes(), 0, now);
        assertThat(db.avgTtlMillis()).isZero();
        db.activeExpireCycle(now + 10_000, 1000);
        assertThat(db.avgTtlMillis()).isEqualTo(90_000);
        db.activeExpireCycle(now + 20_000, 1000);
        assertThat(db.avgTtlMillis()).isBetween(89_000L, 90_000L);
        for (int i = 0; i < 100; i++) db.persist(("t" + i).getBytes());
        assertThat(db.avgTtlMillis()).isZero();
    }

    @Test
    void touchAll_setsEveryKeysClock() {
        Database db = new Database(0);
        for (int i = 0; i < 100; i++) db.put(k("k" + i), k("v"), 0, NOW - 3_600_000);
        assertThat(db.idleMillis(k("k5"), NOW)).isGreaterThanOrEqualTo(3_599_000L);
        db.touchAll(NOW);
        for (int i = 0; i < 100; i++) assertThat(db.idleMillis(k("k" + i), NOW)).isLessThan(1000L);
    }

    @Test
    void expiryHeld_readsSeeExpiredKeysAbsent_nothingIsDeleted_andAWriteOverOneExpiresItFirst() {
        Database db = new Database(0);
        List<String> expired = new ArrayList<>();
        boolean[] held = {true};
        db.setObserver(new KeyspaceObserver() {
            @Override
            public void expired(Database d, byte[] key, Object value) {
                expired.add(s(key));
            }

            @Override
            public boolean expiryHeld() {
                return held[0];
            }
        });
        for (int i = 0; i < 50; i++) db.put(k("e" + i), k("5"), NOW + 10, NOW);
        long later = NOW + 1000;
        assertThat(db.get(k("e1"), later)).isNull();
        assertThat(db.getForWrite(k("e2"), later)).isNull();
        assertThat(db.peek(k("e3"), later)).isNull();
        assertThat(db.exists(k("e4"), later)).isFalse();
        assertThat(db.randomKey(later)).isNull();
        assertThat(db.activeExpireCycle(later, 1000)).isZero();
        assertThat(db.size()).isEqualTo(50);
        assertThat(db.volatileCount()).isEqualTo(50);
        assertThat(expired).isEmpty();

        // A write storing over a kept key (INCR's put keeps the TTL) replaces it: the old key expires first.
        db.put(k("e5"), k("1"), Database.KEEP_TTL, later);
        assertThat(expired).containsExactly("e5");
        assertThat(s(db.get(k("e5"), later))).isEqualTo("1");
        assertThat(db.expireAt(k("e5"))).isZero();
        assertThat(db.size()).isEqualTo(50);

        held[0] = false; // the pause ended: expiry goes on as usual
        assertThat(db.get(k("e1"), later)).isNull();
        assertThat(db.activeExpireCycle(later, 1000)).isPositive();
        for (int i = 0; i < 50; i++) db.get(k("e" + i), later); // whatever a resize left to the cycle's next runs
        assertThat(db.size()).isEqualTo(1);
        assertThat(expired).hasSize(50);
    }

    interface ExpiryCallback {
        void expired(Database db, byte[] key, Object value);
    }

    private static KeyspaceObserver expiryObserver(ExpiryCallback c) {
        return new KeyspaceObserver() {
            @Override
            public void expired(Database db, byte[] key, Object value) {
                c.expired(db, key, value);
            }
        };
    }

    /**
     * A queue that empties and fills again next to a large table of strings: the table's array of values held by
     * reference stays while the cron sees it in use, so each refill allocates nothing of the table's size (it did: an
     * array of the table's capacity per refill, 68 LPUSH/RPOP pairs a second next to 2M keys); it goes once it has held
     * nothing for a second, so a database of strings alone pays nothing for it.
     */
    @Test
    void valueArray_staysThroughEmptyAndRefill_andGoesOnceIdle() {
        Database db = new Database(0);
        for (int i = 0; i < 100_000; i++) db.put(k("key:" + i), k("value"), 0, NOW);
        while (db.rehashStep(100_000)) {
            // finish any incremental rehash: only the live table is left
        }
        long strings = db.usedBytes();
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 200; i++) {
            db.put(k("queue"), new ListValue(), 0, NOW);
            assertThat(db.remove(k("queue"))).isInstanceOf(ListValue.class);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // One array of the table's capacity is 4-8 bytes a slot; 200 of them would be 100+ MB.
        assertThat(allocated).as("bytes allocated by 200 refills").isLessThan(8L * db.capacity() + 1_000_000);
        long withArray = db.usedBytes();
        assertThat(withArray).isGreaterThan(strings);

        assertThat(db.releaseIdleValues(NOW)).isFalse(); // first seen idle
        assertThat(db.releaseIdleValues(NOW + Database.VALUES_IDLE_MS - 1)).isFalse();
        db.put(k("queue"), new ListValue(), 0, NOW); // used and emptied between two cron checks: the clock starts over
        db.remove(k("queue"));
        assertThat(db.releaseIdleValues(NOW + Database.VALUES_IDLE_MS)).isFalse();
        assertThat(db.releaseIdleValues(NOW + 2 * Database.VALUES_IDLE_MS - 1)).isFalse();
        db.put(k("queue"), new ListValue(), 0, NOW);
        assertThat(db.releaseIdleValues(NOW + 10 * Database.VALUES_IDLE_MS)).isFalse(); // held: never goes
        db.remove(k("queue"));
        assertThat(db.releaseIdleValues(NOW + 11 * Database.VALUES_IDLE_MS)).isFalse();
        assertThat(db.releaseIdleValues(NOW + 12 * Database.VALUES_IDLE_MS)).isTrue();
        assertThat(db.usedBytes()).isEqualTo(strings);
        db.put(k("queue"), new ListValue(), 0, NOW); // and comes back when needed
        assertThat(db.get(k("queue"), NOW)).isInstanceOf(ListValue.class);
        assertThat(db.usedBytes()).isGreaterThan(withArray - 1);
    }
}
