package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ByteMapTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    @Test
    void randomOperations_matchHashMap() {
        Random rnd = new Random(7);
        ByteMap m = new ByteMap();
        Map<String, String> ref = new HashMap<>();
        for (int op = 0; op < 200_000; op++) {
            String k = "k" + rnd.nextInt(5000);
            switch (rnd.nextInt(3)) {
                case 0, 1 -> {
                    String v = "v" + op;
                    assertThat(m.put(b(k), b(v))).isEqualTo(!ref.containsKey(k));
                    ref.put(k, v);
                }
                default -> assertThat(m.remove(b(k))).isEqualTo(ref.remove(k) != null);
            }
            if (op % 10_000 == 0) {
                for (Map.Entry<String, String> e : ref.entrySet()) {
                    assertThat(s((byte[]) m.get(b(e.getKey())))).isEqualTo(e.getValue());
                }
            }
        }
        assertThat(m.size()).isEqualTo(ref.size());
        Map<String, String> seen = new HashMap<>();
        m.forEach((k, v) -> seen.put(s(k), s((byte[]) v)));
        assertThat(seen).isEqualTo(ref);
    }

    @Test
    void removeAll_shrinksAndAccountsMemoryBackToEmpty() {
        ByteMap m = new ByteMap();
        long empty = m.memoryBytes();
        for (int i = 0; i < 10_000; i++) m.put(b("member:" + i), null);
        assertThat(m.capacity()).isGreaterThanOrEqualTo(10_000 * 4 / 3);
        for (int i = 0; i < 10_000; i++) assertThat(m.remove(b("member:" + i))).isTrue();
        assertThat(m.size()).isZero();
        assertThat(m.capacity()).isEqualTo(8);
        assertThat(m.memoryBytes()).isEqualTo(empty);
    }

    @Test
    void scan_returnsEveryStableEntry_whileTheTableGrowsAndShrinks() {
        Random rnd = new Random(11);
        for (int round = 0; round < 20; round++) {
            ByteMap m = new ByteMap();
            Set<String> stable = new HashSet<>();
            for (int i = 0; i < 300; i++) {
                m.put(b("s" + i), null);
                stable.add("s" + i);
            }
            Set<String> seen = new HashSet<>();
            long cursor = 0;
            int churn = 0;
            do {
                cursor = m.scan(cursor, 10, (k, v) -> seen.add(s(k)));
                // Grow and shrink between calls with entries that come and go.
                if (rnd.nextBoolean()) {
                    for (int i = 0; i < 400; i++) m.put(b("t" + churn + ":" + i), null);
                } else {
                    for (int c = 0; c <= churn; c++) {
                        for (int i = 0; i < 400; i++) m.remove(b("t" + c + ":" + i));
                    }
                }
                churn++;
            } while (cursor != 0);
            assertThat(seen).containsAll(stable);
        }
    }

    @Test
    void copy_isIndependent() {
        ByteMap m = new ByteMap();
        m.put(b("a"), b("1"));
        ByteMap c = m.copy(v -> ((byte[]) v).clone());
        c.put(b("b"), b("2"));
        ((byte[]) c.get(b("a")))[0] = '9';
        assertThat(m.size()).isEqualTo(1);
        assertThat(s((byte[]) m.get(b("a")))).isEqualTo("1");
        assertThat(c.memoryBytes()).isGreaterThan(m.memoryBytes());
    }

    private static String keyOf(byte[] entry) {
        int at = ByteMap.keyOffset(entry);
        return new String(entry, at, ByteMap.keyLength(entry), StandardCharsets.UTF_8);
    }

    private static String tailOf(byte[] entry) {
        int at = ByteMap.tailOffset(entry);
        return new String(entry, at, entry.length - at, StandardCharsets.UTF_8);
    }

    @Test
    void packedEntries_roundTripKeysOfEveryVarintLength() {
        for (int len : new int[] {0, 1, 127, 128, 300, 16_383, 16_384, 70_000}) {
            String key = "k".repeat(len);
            byte[] e = ByteMap.entry(b(key), b("xxvaluexx"), 2, 5);
            assertThat(keyOf(e)).isEqualTo(key);
            assertThat(tailOf(e)).isEqualTo("value");
            ByteMap m = ByteMap.packed(0);
            assertThat(m.putEntry(e, null)).isTrue();
            assertThat(m.indexOf(b(key))).isGreaterThanOrEqualTo(0);
            assertThat(m.indexOf(b(key + "k"))).isEqualTo(-1);
        }
    }

    @Test
    void packedMap_randomOperations_matchHashMap_byKeyAlone() {
        Random rnd = new Random(5);
        ByteMap m = ByteMap.packed(0);
        Map<String, String> ref = new HashMap<>();
        for (int op = 0; op < 200_000; op++) {
            String k = "f" + rnd.nextInt(3000);
            switch (rnd.nextInt(4)) {
                case 0 -> { // insert or replace through putEntry
                    String v = "v" + op;
                    assertThat(m.putEntry(ByteMap.entry(b(k), b(v), 0, v.length()), null)).isEqualTo(!ref.containsKey(k));
                    ref.put(k, v);
                }
                case 1 -> { // replace in place
                    int i = m.indexOf(b(k));
                    assertThat(i >= 0).isEqualTo(ref.containsKey(k));
                    if (i >= 0) {
                        String v = "w" + op;
                        m.setEntryAt(i, ByteMap.entry(b(k), b(v), 0, v.length()));
                        ref.put(k, v);
                    }
                }
                default -> assertThat(m.remove(b(k))).isEqualTo(ref.remove(k) != null);
            }
        }
        Map<String, String> seen = new HashMap<>();
        m.forEach((e, v) -> {
            assertThat(v).isNull();
            seen.put(keyOf(e), tailOf(e));
        });
        assertThat(seen).isEqualTo(ref);
        long bytes = ByteMap.packed(0).memoryBytes();
        for (String k : ref.keySet()) m.remove(b(k));
        assertThat(m.memoryBytes()).isEqualTo(bytes);
    }

    @Test
    void valuesArray_existsOnlyWhileSomeValueIsNotNull() {
        ByteMap set = new ByteMap();
        ByteMap map = new ByteMap();
        for (int i = 0; i < 1000; i++) {
            set.put(b("m" + i), null);
            map.put(b("m" + i), b("v"));
        }
        // The same keys and slots; the map adds a reference per slot and the values.
        long refs = 16 + 4L * map.capacity();
        assertThat(map.memoryBytes() - set.memoryBytes()).isEqualTo(refs + 1000 * MemoryCost.of(b("v")));
        for (int i = 0; i < 1000; i++) map.remove(b("m" + i));
        assertThat(map.memoryBytes()).isEqualTo(new ByteMap().memoryBytes());
        map.put(b("a"), b("1"));
        map.put(b("b"), null);
        assertThat(s((byte[]) map.get(b("a")))).isEqualTo("1");
        assertThat(map.get(b("b"))).isNull();
        assertThat(map.containsKey(b("b"))).isTrue();
    }
}
