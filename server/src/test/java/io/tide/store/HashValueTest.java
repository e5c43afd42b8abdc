package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The hash value's encodings, conversions, field expiry, memory accounting and copies. */
class HashValueTest {

    private static final EncodingLimits LIMITS = EncodingLimits.DEFAULTS;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    private static Map<String, String> contents(HashValue h) {
        Map<String, String> m = new LinkedHashMap<>();
        h.forEach((f, v) -> m.put(s(f), s(v)));
        return m;
    }

    private static List<String> fieldOrder(HashValue h) {
        return new ArrayList<>(contents(h).keySet());
    }

    private static HashValue hashOf(int n, String prefix) {
        HashValue h = new HashValue();
        for (int i = 0; i < n; i++) h.put(b(prefix + "f" + i), b(prefix + "v" + i), false, LIMITS);
        return h;
    }

    @Test
    void put_keepsInsertionOrderInListpack_andOverwriteKeepsPlace() {
        HashValue h = new HashValue();
        assertThat(h.put(b("a"), b("1"), false, LIMITS)).isTrue();
        assertThat(h.put(b("b"), b("2"), false, LIMITS)).isTrue();
        assertThat(h.put(b("c"), b("3"), false, LIMITS)).isTrue();
        assertThat(h.put(b("a"), b("longer value"), false, LIMITS)).isFalse();
        assertThat(h.encodingName()).isEqualTo("listpack");
        assertThat(contents(h)).containsExactly(Map.entry("a", "longer value"), Map.entry("b", "2"), Map.entry("c", "3"));
        assertThat(h.remove(b("b"))).isTrue();
        assertThat(h.remove(b("b"))).isFalse();
        assertThat(h.size()).isEqualTo(2);
        assertThat(s(h.get(b("c")))).isEqualTo("3");
        assertThat(h.valueLength(b("a"))).isEqualTo(12);
        assertThat(h.valueLength(b("zz"))).isEqualTo(-1);
    }

    @Test
    void put_beyondEntryThreshold_convertsToHashtable_andNeverBack() {
        HashValue h = hashOf(512, "");
        assertThat(h.encodingName()).isEqualTo("listpack");
        h.put(b("one-more"), b("x"), false, LIMITS);
        assertThat(h.encodingName()).isEqualTo("hashtable");
        for (int i = 0; i < 512; i++) h.remove(b("f" + i));
        assertThat(h.size()).isEqualTo(1);
        assertThat(h.encodingName()).isEqualTo("hashtable");
        assertThat(s(h.get(b("one-more")))).isEqualTo("x");
    }

    @Test
    void put_longValueOrField_convertsToHashtable() {
        HashValue a = new HashValue();
        a.put(b("f"), b("x".repeat(64)), false, LIMITS);
        assertThat(a.encodingName()).isEqualTo("listpack");
        a.put(b("g"), b("x".repeat(65)), false, LIMITS);
        assertThat(a.encodingName()).isEqualTo("hashtable");
        HashValue f = new HashValue();
        f.put(b("y".repeat(65)), b("v"), false, LIMITS);
        assertThat(f.encodingName()).isEqualTo("hashtable");
    }

    @Test
    void prepareWrite_convertsOnArgumentLengthOrCount_asRedisTryConversion() {
        EncodingLimits limits = new EncodingLimits(-2, 2, 64, 512, 128, 64, 128, 64, 4096, 100, 3000);
        HashValue h = new HashValue();
        byte[][] argv = {b("hset"), b("k"), b("a"), b("1"), b("a"), b("2"), b("a"), b("3")};
        h.prepareWrite(argv, 2, 7, limits); // three pairs announced: more than 2, even though one field
        assertThat(h.encodingName()).isEqualTo("hashtable");
        HashValue g = hashOf(1, "");
        byte[][] longArg = {b("hset"), b("k"), b("f0"), b("z".repeat(65))};
        g.prepareWrite(longArg, 2, 3, LIMITS);
        assertThat(g.encodingName()).isEqualTo("hashtable");
        assertThat(s(g.get(b("f0")))).isEqualTo("v0");
    }

    @Test
    void enableFieldTtl_makesListpackex_evenWithoutTtls() {
        HashValue h = hashOf(3, "");
        h.enableFieldTtl();
        assertThat(h.encodingName()).isEqualTo("listpackex");
        assertThat(contents(h)).containsExactly(Map.entry("f0", "v0"), Map.entry("f1", "v1"), Map.entry("f2", "v2"));
        assertThat(h.fieldExpireAt(b("f1"))).isZero();
        assertThat(h.fieldExpireAt(b("nope"))).isEqualTo(HashValue.NO_FIELD);
        assertThat(h.nextExpireAt()).isZero();
    }

    @Test
    void listpackex_ordersFieldsByExpiry_thenFieldsWithoutTtl_asRedis() {
        long now = 1_000_000;
        HashValue h = hashOf(5, "");
        h.enableFieldTtl();
        assertThat(h.setExpire(b("f3"), now + 500, 0, now)).isEqualTo(HashValue.EXPIRE_SET);
        assertThat(h.setExpire(b("f1"), now + 100, 0, now)).isEqualTo(HashValue.EXPIRE_SET);
        assertThat(h.setExpire(b("f4"), now + 500, 0, now)).isEqualTo(HashValue.EXPIRE_SET);
        // Same expiry as f3: placed before it. Fields without a TTL keep their relative order at the end.
        assertThat(fieldOrder(h)).containsExactly("f1", "f4", "f3", "f0", "f2");
        assertThat(h.nextExpireAt()).isEqualTo(now + 100);
        // HPERSIST and HSET move a field to the end; HINCRBY-style writes (keepTtl) keep its place.
        assertThat(h.persist(b("f4"))).isEqualTo(HashValue.PERSIST_DONE);
        assertThat(fieldOrder(h)).containsExactly("f1", "f3", "f0", "f2", "f4");
        h.put(b("f1"), b("kept"), true, LIMITS);
        assertThat(fieldOrder(h)).containsExactly("f1", "f3", "f0", "f2", "f4");
        assertThat(h.fieldExpireAt(b("f1"))).isEqualTo(now + 100);
        h.put(b("f1"), b("plain"), false, LIMITS);
        assertThat(fieldOrder(h)).containsExactly("f3", "f0", "f2", "f4", "f1");
        assertThat(h.fieldExpireAt(b("f1"))).isZero();
        assertThat(h.persist(b("f0"))).isEqualTo(HashValue.PERSIST_NO_TTL);
        assertThat(h.persist(b("zz"))).isEqualTo(HashValue.EXPIRE_NO_FIELD);
    }

    @Test
    void setExpire_conditions_asRedis() {
        long now = 1_000_000;
        for (boolean large : new boolean[] {false, true}) {
            HashValue h = hashOf(large ? 600 : 3, "");
            assertThat(h.encodingName()).isEqualTo(large ? "hashtable" : "listpack");
            byte[] f = b("f1");
            // No TTL yet: XX and GT fail, NX and LT succeed (no TTL counts as infinite).
            assertThat(h.setExpire(f, now + 100, HashValue.XX, now)).isEqualTo(HashValue.EXPIRE_NOT_MET);
            assertThat(h.setExpire(f, now + 100, HashValue.GT, now)).isEqualTo(HashValue.EXPIRE_NOT_MET);
            assertThat(h.setExpire(f, now + 100, HashValue.LT, now)).isEqualTo(HashValue.EXPIRE_SET);
            assertThat(h.persist(f)).isEqualTo(HashValue.PERSIST_DONE);
            assertThat(h.setExpire(f, now + 100, HashValue.NX, now)).isEqualTo(HashValue.EXPIRE_SET);
            // With a TTL: NX fails, XX succeeds, GT/LT compare strictly.
            assertThat(h.setExpire(f, now + 200, HashValue.NX, now)).isEqualTo(HashValue.EXPIRE_NOT_MET);
            assertThat(h.setExpire(f, now + 100, HashValue.GT, now)).isEqualTo(HashValue.EXPIRE_NOT_MET);
            assertThat(h.setExpire(f, now + 101, HashValue.GT, now)).isEqualTo(HashValue.EXPIRE_SET);
            assertThat(h.setExpire(f, now + 101, HashValue.LT, now)).isEqualTo(HashValue.EXPIRE_NOT_MET);
            assertThat(h.setExpire(f, now + 50, HashValue.LT, now)).isEqualTo(HashValue.EXPIRE_SET);
            assertThat(h.setExpire(f, now + 70, HashValue.XX, now)).isEqualTo(HashValue.EXPIRE_SET);
            assertThat(h.fieldExpireAt(f)).isEqualTo(now + 70);
            assertThat(h.setExpire(b("missing"), now + 70, 0, now)).isEqualTo(HashValue.EXPIRE_NO_FIELD);
            // Not in the future: the field goes.
            int before = h.size();
            assertThat(h.setExpire(f, now, 0, now)).isEqualTo(HashValue.EXPIRE_DELETED);
            assertThat(h.size()).isEqualTo(before - 1);
            assertThat(h.get(f)).isNull();
            assertThat(h.encodingName()).isEqualTo(large ? "hashtable" : "listpackex");
        }
    }

    @Test
    void expireFields_removesOnlyExpired_earliestFirst_withinBudget() {
        for (int n : new int[] {10, 1000}) {
            long now = 5_000;
            HashValue h = hashOf(n, "");
            for (int i = 0; i < n; i += 2) h.setExpire(b("f" + i), now + 1 + i, 0, now); // even fields expire
            assertThat(h.expireFields(now + 1, Integer.MAX_VALUE)).isZero(); // expiring at now+1 is not expired yet
            assertThat(h.expireFields(now + 2, Integer.MAX_VALUE)).isEqualTo(1); // f0
            assertThat(h.expireFields(now + 2, Integer.MAX_VALUE)).isZero();
            assertThat(h.get(b("f0"))).isNull();
            assertThat(h.expireFields(now + n, 2)).isEqualTo(2);
            assertThat(h.get(b("f2"))).isNull();
            assertThat(h.get(b("f4"))).isNull();
            assertThat(h.get(b("f6"))).isNotNull();
            int removed = h.expireFields(Long.MAX_VALUE, Integer.MAX_VALUE);
            assertThat(removed).isEqualTo(n / 2 - 3);
            assertThat(h.size()).isEqualTo(n / 2);
            assertThat(h.nextExpireAt()).isZero();
            for (int i = 1; i < n; i += 2) assertThat(s(h.get(b("f" + i)))).isEqualTo("v" + i);
        }
    }

    @Test
    void conversion_keepsFieldTtls() {
        long now = 1_000;
        HashValue h = hashOf(3, "");
        h.setExpire(b("f1"), now + 10, 0, now);
        assertThat(h.encodingName()).isEqualTo("listpackex");
        h.put(b("big"), b("v".repeat(100)), false, LIMITS);
        assertThat(h.encodingName()).isEqualTo("hashtable");
        assertThat(h.fieldExpireAt(b("f1"))).isEqualTo(now + 10);
        assertThat(h.nextExpireAt()).isEqualTo(now + 10);
        assertThat(h.expireFields(now + 11, 10)).isEqualTo(1);
        assertThat(h.size()).isEqualTo(3);
    }

    /** Random operations on both encodings against a model; memory must return to its empty figure. */
    @Test
    void randomOperations_matchModel_andMemoryIsConsistent() {
        Random rnd = new Random(11);
        for (int round = 0; round < 2; round++) {
            boolean large = round == 1;
            HashValue h = new HashValue();
            long empty = h.memoryBytes();
            if (large) {
                h.prepareWrite(new byte[][] {b("x".repeat(100))}, 0, 0, LIMITS);
                assertThat(h.encodingName()).isEqualTo("hashtable");
                empty = h.memoryBytes();
            }
            Map<String, String> model = new HashMap<>();
            Map<String, Long> ttls = new HashMap<>();
            long now = 10_000;
            int keys = large ? 3000 : 200;
            for (int op = 0; op < 40_000; op++) {
                String f = "f" + rnd.nextInt(keys);
                switch (rnd.nextInt(6)) {
                    case 0, 1 -> {
                        String v = "v" + rnd.nextInt(1000);
                        boolean keep = rnd.nextBoolean();
                        assertThat(h.put(b(f), b(v), keep, LIMITS)).isEqualTo(!model.containsKey(f));
                        if (!keep) ttls.remove(f);
                        model.put(f, v);
                    }
                    case 2 -> {
                        assertThat(h.remove(b(f))).isEqualTo(model.remove(f) != null);
                        ttls.remove(f);
                    }
                    case 3 -> {
                        long at = now + 1 + rnd.nextInt(1000);
                        int code = h.setExpire(b(f), at, 0, now);
                        if (model.containsKey(f)) {
                            assertThat(code).isEqualTo(HashValue.EXPIRE_SET);
                            ttls.put(f, at);
                        } else {
                            assertThat(code).isEqualTo(HashValue.EXPIRE_NO_FIELD);
                        }
                    }
                    case 4 -> {
                        int code = h.persist(b(f));
                        assertThat(code).isEqualTo(!model.containsKey(f) ? HashValue.EXPIRE_NO_FIELD
                                : ttls.remove(f) != null ? HashValue.PERSIST_DONE : HashValue.PERSIST_NO_TTL);
                    }
                    default -> {
                        now += rnd.nextInt(20);
                        long t = now;
                        int expected = (int) ttls.values().stream().filter(at -> at < t).count();
                        assertThat(h.expireFields(now, Integer.MAX_VALUE)).isEqualTo(expected);
                        ttls.entrySet().removeIf(e -> {
                            if (e.getValue() < t) {
                                model.remove(e.getKey());
                                return true;
                            }
                            return false;
                        });
                    }
                }
                if (op % 4000 == 0) {
                    assertThat(contents(h)).isEqualTo(model);
                    for (String k : model.keySet()) {
                        assertThat(h.fieldExpireAt(b(k))).isEqualTo(ttls.getOrDefault(k, 0L));
                    }
                    long min = ttls.values().stream().mapToLong(Long::longValue).min().orElse(0);
                    assertThat(h.nextExpireAt()).isEqualTo(min);
                }
            }
            assertThat(h.encodingName()).isEqualTo(large ? "hashtable" : "listpackex");
            for (String k : new ArrayList<>(model.keySet())) h.remove(b(k));
            assertThat(h.isEmpty()).isTrue();
            if (large) {
                // The expiry index stays allocated once created; everything else is back to empty.
                assertThat(h.memoryBytes()).isLessThanOrEqualTo(empty + 64);
            } else {
                assertThat(h.memoryBytes()).isEqualTo(empty);
            }
        }
    }

    @Test
    void copy_isIndependent_inEveryEncoding() {
        long now = 100;
        for (int n : new int[] {5, 700}) {
            HashValue h = hashOf(n, "");
            h.setExpire(b("f1"), now + 50, 0, now);
            HashValue c = (HashValue) h.copy();
            assertThat(c.encodingName()).isEqualTo(h.encodingName());
            assertThat(contents(c)).isEqualTo(contents(h));
            assertThat(c.memoryBytes()).isEqualTo(h.memoryBytes());
            h.put(b("f0"), b("changed"), false, LIMITS);
            h.setExpire(b("f1"), now + 500, 0, now);
            h.remove(b("f2"));
            assertThat(s(c.get(b("f0")))).isEqualTo("v0");
            assertThat(c.fieldExpireAt(b("f1"))).isEqualTo(now + 50);
            assertThat(c.get(b("f2"))).isNotNull();
            assertThat(c.expireFields(now + 51, 10)).isEqualTo(1);
            assertThat(h.get(b("f1"))).isNotNull();
        }
    }

    @Test
    void scan_listpackReturnsAll_hashtableKeepsGuaranteeAcrossResizes() {
        HashValue small = hashOf(20, "");
        List<String> got = new ArrayList<>();
        assertThat(small.scan(0, 1, (f, v) -> got.add(s(f)))).isZero();
        assertThat(got).hasSize(20);

        HashValue h = hashOf(2000, "");
        Set<String> seen = new HashSet<>();
        long cursor = 0;
        int step = 0;
        do {
            cursor = h.scan(cursor, 50, (f, v) -> seen.add(s(f)));
            // Grow and shrink between calls: the fields present throughout must all be returned.
            if (step == 3) for (int i = 0; i < 3000; i++) h.put(b("extra" + i), b("x"), false, LIMITS);
            if (step == 10) for (int i = 0; i < 3000; i++) h.remove(b("extra" + i));
            step++;
        } while (cursor != 0);
        for (int i = 0; i < 2000; i++) assertThat(seen).contains("f" + i);
    }

    /** The compact encoding costs far fewer bytes per field than the hashtable; the figures go to the report. */
    @Test
    void bytesPerElement_listpackIsSmallerThanHashtable() {
        int n = 100;
        HashValue small = hashOf(n, "");
        HashValue large = new HashValue();
        large.prepareWrite(new byte[][] {b("x".repeat(100))}, 0, 0, LIMITS);
        for (int i = 0; i < n; i++) large.put(b("f" + i), b("v" + i), false, LIMITS);
        assertThat(small.encodingName()).isEqualTo("listpack");
        assertThat(large.encodingName()).isEqualTo("hashtable");
        double perSmall = small.memoryBytes() / (double) n;
        double perLarge = large.memoryBytes() / (double) n;
        HashValue smallTtl = hashOf(n, "");
        HashValue largeTtl = hashOf(n, "");
        largeTtl.prepareWrite(new byte[][] {b("x".repeat(100))}, 0, 0, LIMITS);
        for (int i = 0; i < n; i++) {
            smallTtl.setExpire(b("f" + i), 1_800_000_000_000L + i, 0, 0);
            largeTtl.setExpire(b("f" + i), 1_800_000_000_000L + i, 0, 0);
        }
        double perSmallTtl = smallTtl.memoryBytes() / (double) n;
        double perLargeTtl = largeTtl.memoryBytes() / (double) n;
        System.out.printf("hash bytes/field (%d fields 'fN'->'vN'): listpack %.1f, hashtable %.1f; "
                + "with field TTLs: listpackex %.1f, hashtable %.1f%n", n, perSmall, perLarge, perSmallTtl, perLargeTtl);
        assertThat(perSmall).isLessThan(perLarge);
        assertThat(perSmallTtl).isLessThan(perLargeTtl);
    }
}
