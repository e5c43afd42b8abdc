package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** StreamValue on its own: IDs, packed nodes, deletion and trimming bookkeeping, groups, memory accounting. */
class StreamValueTest {

    private static final long NOW = 1_700_000_000_000L;
    private static final long MAX_BYTES = 4096;
    private static final long MAX_ENTRIES = 100;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[][] fv(String... pairs) {
        byte[][] out = new byte[pairs.length][];
        for (int i = 0; i < pairs.length; i++) out[i] = b(pairs[i]);
        return out;
    }

    private static StreamId id(long ms, long seq) {
        return new StreamId(ms, seq);
    }

    private static StreamId add(StreamValue s, StreamId id, String... pairs) {
        return s.add(id, true, NOW, fv(pairs), 0, pairs.length / 2, MAX_BYTES, MAX_ENTRIES);
    }

    private static List<String> ids(List<StreamValue.Entry> entries) {
        List<String> out = new ArrayList<>();
        for (StreamValue.Entry e : entries) out.add(e.id().toString());
        return out;
    }

    private static List<String> strings(byte[][] arrays) {
        List<String> out = new ArrayList<>();
        for (byte[] a : arrays) out.add(new String(a, StandardCharsets.UTF_8));
        return out;
    }

    private static void assertMemoryConsistent(StreamValue s) {
        assertThat(s.memoryBytes()).isEqualTo(s.recomputedMemoryBytes());
    }

    @Test
    void streamId_ordersUnsigned_andStepsAcrossTheSequenceLimit() {
        assertThat(StreamId.MAX.compareTo(id(1, 0))).isPositive();
        assertThat(id(Long.MIN_VALUE, 0).compareTo(id(Long.MAX_VALUE, 0))).isPositive();
        assertThat(StreamId.MAX.toString()).isEqualTo("18446744073709551615-18446744073709551615");
        assertThat(id(5, -1L).next()).isEqualTo(id(6, 0));
        assertThat(id(6, 0).prev()).isEqualTo(id(5, -1L));
        assertThat(StreamId.MAX.next()).isNull();
        assertThat(StreamId.ZERO.prev()).isNull();
    }

    @Test
    void add_generatesIds_likeRedis() {
        StreamValue s = new StreamValue();
        assertThat(s.add(null, true, NOW, fv("a", "1"), 0, 1, MAX_BYTES, MAX_ENTRIES)).isEqualTo(id(NOW, 0));
        assertThat(s.add(null, true, NOW, fv("a", "1"), 0, 1, MAX_BYTES, MAX_ENTRIES)).isEqualTo(id(NOW, 1));
        assertThat(s.add(null, true, NOW - 5, fv("a", "1"), 0, 1, MAX_BYTES, MAX_ENTRIES)).isEqualTo(id(NOW, 2));
        // <ms>-*: next sequence of the same millisecond, 0 for a later one, refused for an earlier one.
        assertThat(s.add(id(NOW, 0), false, NOW, fv("a", "1"), 0, 1, MAX_BYTES, MAX_ENTRIES)).isEqualTo(id(NOW, 3));
        assertThat(s.add(id(NOW + 9, 0), false, NOW, fv("a", "1"), 0, 1, MAX_BYTES, MAX_ENTRIES))
                .isEqualTo(id(NOW + 9, 0));
        assertThat(s.add(id(NOW, 0), false, NOW, fv("a", "1"), 0, 1, MAX_BYTES, MAX_ENTRIES)).isNull();
        assertThat(add(s, id(NOW + 9, 0), "a", "1")).isNull();
        assertThat(s.length()).isEqualTo(5);
        assertThat(s.entriesAdded()).isEqualTo(5);
        assertThat(s.firstId()).isEqualTo(id(NOW, 0));
        assertThat(s.lastId()).isEqualTo(id(NOW + 9, 0));
    }

    @Test
    void entries_keepTheirFieldsAndValues_withAndWithoutTheMasterFields() {
        StreamValue s = new StreamValue();
        add(s, id(1, 0), "temp", "21", "unit", "C");
        add(s, id(2, 0), "temp", "22", "unit", "C");
        add(s, id(3, 0), "other", "", "x", "-17");
        add(s, id(4, 0), "temp", "23");
        List<StreamValue.Entry> all = s.range(StreamId.ZERO, StreamId.MAX, 0, false);
        assertThat(ids(all)).containsExactly("1-0", "2-0", "3-0", "4-0");
        assertThat(strings(all.get(1).fieldsAndValues())).containsExactly("temp", "22", "unit", "C");
        assertThat(strings(all.get(2).fieldsAndValues())).containsExactly("other", "", "x", "-17");
        assertThat(strings(all.get(3).fieldsAndValues())).containsExactly("temp", "23");
        assertThat(ids(s.range(id(2, 0), id(3, 0), 0, true))).containsExactly("3-0", "2-0");
        assertThat(ids(s.range(StreamId.ZERO, StreamId.MAX, 2, true))).containsExactly("4-0", "3-0");
        assertThat(s.get(id(3, 0)).fieldsAndValues()[1]).isEmpty();
        assertThat(s.get(id(3, 1))).isNull();
    }

    @Test
    void nodes_splitAtTheEntryLimit_andTheByteLimit_asRedisListpacksDo() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 250; i++) add(s, id(i, 0), "f", "v");
        assertThat(s.nodeCount()).isEqualTo(3); // 100 + 100 + 50, as redis-server reports
        assertThat(s.radixTreeNodes()).isEqualTo(8);

        StreamValue big = new StreamValue();
        String value = "x".repeat(1000);
        for (int i = 1; i <= 10; i++) add(big, id(i, 0), "f", value);
        // A 4096-byte listpack takes a fourth such entry, not a fifth (redis-server says 3 nodes too).
        assertThat(big.nodeCount()).isEqualTo(3);
        assertThat(ids(big.range(StreamId.ZERO, StreamId.MAX, 0, false))).hasSize(10);
        assertMemoryConsistent(big);
    }

    @Test
    void radixTreeNodes_ofEmptyAndSingleNodeStreams() {
        StreamValue s = new StreamValue();
        assertThat(s.radixTreeNodes()).isEqualTo(1);
        add(s, id(7, 7), "a", "b");
        assertThat(s.radixTreeNodes()).isEqualTo(2);
    }

    @Test
    void delete_leavesTombstones_movesTheFirstId_andRemovesEmptyNodes() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 150; i++) add(s, id(i, 0), "f", "v" + i);
        assertThat(s.delete(new StreamId[] {id(1, 0), id(50, 0), id(50, 0), id(999, 0)})).isEqualTo(2);
        assertThat(s.firstId()).isEqualTo(id(2, 0));
        assertThat(s.maxDeletedId()).isEqualTo(id(50, 0));
        assertThat(s.length()).isEqualTo(148);
        StreamId[] secondNode = new StreamId[50];
        for (int i = 0; i < 50; i++) secondNode[i] = id(101 + i, 0);
        assertThat(s.delete(secondNode)).isEqualTo(50);
        assertThat(s.nodeCount()).isEqualTo(1);
        assertThat(s.lastValidId()).isEqualTo(id(100, 0));
        assertThat(s.lastId()).isEqualTo(id(150, 0));
        assertMemoryConsistent(s);
    }

    @Test
    void trim_exactAndApproximate_byLengthAndMinId() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 250; i++) add(s, id(i, 0), "f", "v");
        assertThat(s.trim(StreamValue.TRIM_MAXLEN, 180, null, true, 0)).isEqualTo(0); // no whole node fits
        assertThat(s.trim(StreamValue.TRIM_MAXLEN, 150, null, true, 0)).isEqualTo(100);
        assertThat(s.firstId()).isEqualTo(id(101, 0));
        assertThat(s.trim(StreamValue.TRIM_MAXLEN, 120, null, false, 0)).isEqualTo(30);
        assertThat(s.length()).isEqualTo(120);
        assertThat(s.firstId()).isEqualTo(id(131, 0));
        assertThat(s.trim(StreamValue.TRIM_MINID, 0, id(140, 0), false, 0)).isEqualTo(9);
        assertThat(s.trim(StreamValue.TRIM_MAXLEN, 0, null, true, 10)).isEqualTo(0); // over the limit
        assertThat(s.trim(StreamValue.TRIM_MINID, 0, id(260, 0), true, 0)).isEqualTo(111); // both nodes
        assertThat(s.length()).isZero();
        assertThat(s.firstId()).isEqualTo(StreamId.ZERO);
        assertThat(s.lastId()).isEqualTo(id(250, 0));
        assertThat(s.nodeCount()).isZero();
        assertMemoryConsistent(s);
    }

    @Test
    void groups_deliverAckClaimAndCount_entriesReadAndLag() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 5; i++) add(s, id(i, 0), "f", "v" + i);
        StreamGroup g = s.createGroup(b("g"), StreamId.ZERO, StreamGroup.INVALID_ENTRIES_READ);
        assertThat(s.createGroup(b("g"), StreamId.ZERO, 0)).isNull();
        assertThat(s.lag(g)).isEqualTo(5);
        StreamGroup.Consumer alice = s.consumerSeen(g, b("alice"), NOW);
        assertThat(ids(s.readGroup(g, alice, g.lastId(), 2, false, NOW))).containsExactly("1-0", "2-0");
        assertThat(g.entriesRead()).isEqualTo(2);
        assertThat(s.lag(g)).isEqualTo(3);
        assertThat(g.pendingCount()).isEqualTo(2);
        assertThat(alice.pendingCount()).isEqualTo(2);
        assertThat(s.ack(g, id(1, 0))).isTrue();
        assertThat(s.ack(g, id(1, 0))).isFalse();

        List<StreamValue.Entry> claimed = s.claim(g, b("bob"), new StreamId[] {id(2, 0), id(9, 0)},
                new StreamValue.ClaimOptions(0, -1, -1, false, false, null), NOW + 10);
        assertThat(ids(claimed)).containsExactly("2-0");
        assertThat(g.pending().get(id(2, 0)).consumer().name()).isEqualTo(b("bob"));
        assertThat(g.pending().get(id(2, 0)).deliveryCount()).isEqualTo(2);
        assertThat(alice.pendingCount()).isZero();

        s.delete(new StreamId[] {id(2, 0)});
        StreamValue.AutoClaim r = s.autoClaim(g, b("carol"), 0, StreamId.ZERO, 10, true, NOW + 20);
        assertThat(r.claimed()).isEmpty();
        assertThat(r.deleted()).containsExactly(id(2, 0));
        assertThat(r.next()).isEqualTo(StreamId.ZERO);
        assertThat(g.consumer(b("carol"))).isNull(); // created only when something is claimed

        // A tombstone after the group's position makes the counter unknown, as in Redis.
        s.delete(new StreamId[] {id(4, 0)});
        assertThat(s.lag(g)).isNull();
        assertThat(s.deleteConsumer(g, b("bob"))).isZero();
        assertThat(s.destroyGroup(b("g"))).isTrue();
        assertThat(s.groupCount()).isZero();
        assertMemoryConsistent(s);
    }

    @Test
    void copy_isDeep_andSharesPendingEntriesBetweenGroupAndConsumer() {
        StreamValue s = new StreamValue();
        for (int i = 1; i <= 3; i++) add(s, id(i, 0), "f", "v" + i);
        StreamGroup g = s.createGroup(b("g"), StreamId.ZERO, 0);
        StreamGroup.Consumer c = s.consumerSeen(g, b("c"), NOW);
        s.readGroup(g, c, StreamId.ZERO, 0, false, NOW);
        StreamValue copy = s.copy();
        assertMemoryConsistent(copy);
        add(copy, id(4, 0), "f", "v4");
        StreamGroup cg = copy.group(b("g"));
        copy.ack(cg, id(1, 0));
        assertThat(s.length()).isEqualTo(3);
        assertThat(g.pendingCount()).isEqualTo(3);
        assertThat(cg.pendingCount()).isEqualTo(2);
        assertThat(cg.consumer(b("c")).pendingCount()).isEqualTo(2);
        assertThat(cg.pending().get(id(2, 0)).consumer()).isSameAs(cg.consumer(b("c")));
    }

    @Test
    void memory_staysConsistent_underRandomOperations() {
        Random rnd = new Random(3);
        StreamValue s = new StreamValue();
        StreamGroup g = s.createGroup(b("g"), StreamId.ZERO, 0);
        long next = 1;
        for (int i = 0; i < 5000; i++) {
            switch (rnd.nextInt(6)) {
                case 0, 1, 2 -> add(s, id(next++, 0), "f" + rnd.nextInt(3), "x".repeat(rnd.nextInt(300)));
                case 3 -> s.delete(new StreamId[] {id(1 + rnd.nextInt((int) next), 0)});
                case 4 -> s.readGroup(g, s.consumerSeen(g, b("c" + rnd.nextInt(4)), NOW), g.lastId(), 3, false, NOW);
                default -> {
                    if (rnd.nextInt(20) == 0) s.trim(StreamValue.TRIM_MAXLEN, rnd.nextInt(200), null, rnd.nextBoolean(), 0);
                    else s.ack(g, id(1 + rnd.nextInt((int) next), 0));
                }
            }
            if (i % 250 == 0) assertMemoryConsistent(s);
        }
        assertMemoryConsistent(s);
        assertThat(ids(s.range(StreamId.ZERO, StreamId.MAX, 0, false))).hasSize((int) s.length());
    }

    /**
     * Bytes per entry of the packed nodes against one object per entry (an entry object, its ID, an array of
     * field and value arrays): 100 entries of two fields, as a sensor feed writes them.
     */
    @Test
    void bytesPerEntry_packedNodesVersusObjectPerEntry() {
        int n = 100;
        StreamValue s = new StreamValue();
        long objects = 0;
        for (int i = 1; i <= n; i++) {
            String[] pairs = {"temperature", Integer.toString(200 + i % 50), "sensor", "s-" + (i % 7)};
            add(s, id(NOW + i, 0), pairs);
            objects += 24 + 32 + MemoryCost.bytes(0) + 4L * pairs.length; // entry, ID, array of arrays
            for (String p : pairs) objects += MemoryCost.bytes(b(p).length);
        }
        double packed = (double) s.memoryBytes() / n;
        double perObject = (double) objects / n;
        System.out.printf("stream bytes/entry: packed nodes %.1f, object per entry %.1f%n", packed, perObject);
        assertThat(packed).isLessThan(perObject);
    }
}
