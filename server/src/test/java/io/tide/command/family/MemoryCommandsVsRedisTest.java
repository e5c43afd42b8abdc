package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.store.Database;
import io.tide.store.MemoryCost;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * MEMORY's subcommands on redis-server 7.0.15 and Tide: HELP, errors (arity, unknown subcommand, SAMPLES syntax), nil
 * for a missing key, DOCTOR's text for a small instance and PURGE's OK are byte-identical; STATS has Redis's fields in
 * Redis's order with the same reply types (the figures differ: two memory models); MALLOC-STATS is the JVM's text;
 * MEMORY USAGE is the entry's accounted bytes plus its share of the table.
 */
class MemoryCommandsVsRedisTest extends VsRedis {

    MemoryCommandsVsRedisTest() {
        super("mem");
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void helpErrorsAndMissingKeys_asRedis(int proto) throws IOException {
        protocol(proto);
        same("MEMORY", "HELP");
        same("MEMORY", "help");
        same("MEMORY");
        same("MEMORY", "USAGE");
        same("MEMORY", "STATS", "x");
        same("MEMORY", "DOCTOR", "x");
        same("MEMORY", "PURGE", "x");
        same("MEMORY", "MALLOC-STATS", "x");
        same("MEMORY", "HELP", "x");
        same("MEMORY", "nosuch");
        same("MEMORY", "nosuch", "a", "b");
        same("SET", k("s"), "v");
        same("MEMORY", "USAGE", k("missing"));
        same("MEMORY", "USAGE", k("missing"), "SAMPLES", "5");
        for (String key : new String[] {k("s"), k("missing")}) {
            same("MEMORY", "USAGE", key, "SAMPLES");
            same("MEMORY", "USAGE", key, "SAMPLES", "-1");
            same("MEMORY", "USAGE", key, "SAMPLES", "x");
            same("MEMORY", "USAGE", key, "SAMPLES", "1", "SAMPLES", "-2");
            same("MEMORY", "USAGE", key, "samples", "0", "extra");
            same("MEMORY", "USAGE", key, "FOO");
        }
        same("MEMORY", "PURGE");
        same("MEMORY", "DOCTOR");
    }

    /** The reply with every number replaced by its kind, so that the field names, order and types can be compared. */
    private static String shape(String raw) {
        List<String> out = new ArrayList<>();
        String[] lines = raw.split("\r\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String l = lines[i];
            if (l.startsWith(":")) {
                out.add(":N");
            } else if (l.startsWith(",")) {
                out.add(",D");
            } else if (l.startsWith("$") && i + 1 < lines.length && lines[i + 1].matches("-?[0-9.e+-]+")) {
                out.add("$D");
                i++;
            } else {
                out.add(l);
            }
        }
        return String.join("|", out);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void stats_hasRedisFieldsInRedisOrder_withTheSameTypes(int proto) throws IOException {
        protocol(proto);
        same("FLUSHALL");
        same("SET", k("a"), "1");
        same("SET", k("b"), "x".repeat(100), "EX", "100");
        same("SELECT", "3");
        same("HSET", k("h"), "f", "v");
        same("SELECT", "0");
        String redis = r().call("MEMORY", "STATS");
        String tide = t().call("MEMORY", "STATS");
        assertThat(shape(tide)).isEqualTo(shape(redis));
        assertThat(tide).contains("db.0").contains("db.3").doesNotContain("db.1\r");
        same("FLUSHALL");
    }

    /** MEMORY STATS's figures: total as INFO's used_memory; keys; dataset plus overhead is the total. */
    @Test
    void stats_figuresAddUp() throws IOException {
        same("FLUSHALL");
        for (int i = 0; i < 100; i++) t().call("SET", k("key" + i), "v".repeat(50));
        List<String> f = List.of(t().call("MEMORY", "STATS").split("\r\n"));
        assertThat(field(f, "keys.count")).isEqualTo(100);
        long total = field(f, "total.allocated");
        assertThat(field(f, "dataset.bytes") + field(f, "overhead.total")).isEqualTo(total);
        long dataset = 0;
        for (int i = 0; i < 100; i++) {
            // An embedded value: one entry in a slab, [two varints][3-byte access field][key][value] padded to 4.
            dataset += entry(k("key" + i).getBytes(StandardCharsets.UTF_8).length + 50);
        }
        assertThat(field(f, "dataset.bytes")).isEqualTo(dataset);
        assertThat(field(f, "peak.allocated")).isGreaterThanOrEqualTo(total);
        assertThat(field(f, "startup.allocated")).isPositive().isLessThan(total);
        assertThat(field(f, "keys.bytes-per-key")).isEqualTo((total - field(f, "startup.allocated")) / 100);
        assertThat(field(f, "allocator.allocated")).isPositive();
        same("FLUSHALL");
    }

    /**
     * A list that empties and comes back next to many strings: the table's array of values held by reference stays
     * while it is in use (overhead.hashtable.main keeps it) and the shard's cron drops it once it has held nothing for
     * a second (Database.VALUES_IDLE_MS), so the figure returns to that of the strings alone.
     */
    @Test
    void tableOverhead_keepsTheValueArrayWhileUsed_andTheCronDropsItOnceIdle() throws Exception {
        same("FLUSHALL");
        List<String> set = new ArrayList<>(List.of("MSET"));
        for (int i = 0; i < 5000; i++) {
            set.add(k("s" + i));
            set.add("v");
        }
        t().call(set.toArray(String[]::new));
        long strings = mainOverhead();
        String q = k("queue");
        for (int i = 0; i < 100; i++) {
            assertThat(t().call("LPUSH", q, "job")).isEqualTo(":1\r\n");
            assertThat(t().call("RPOP", q)).isEqualTo("$3\r\njob\r\n");
        }
        long withArray = mainOverhead();
        assertThat(withArray).as("the array of values held by reference").isGreaterThan(strings);
        long deadline = System.nanoTime() + 10_000_000_000L;
        long now = withArray;
        while (now != strings && System.nanoTime() < deadline) {
            Thread.sleep(100);
            now = mainOverhead();
        }
        assertThat(now).as("overhead.hashtable.main once the cron has dropped the idle array").isEqualTo(strings);
        same("FLUSHALL");
    }

    /** MEMORY STATS's overhead.hashtable.main of db 0. */
    private long mainOverhead() throws IOException {
        List<String> f = List.of(t().call("MEMORY", "STATS").split("\r\n"));
        return field(f, "overhead.hashtable.main");
    }

    /** Bytes of a slab entry with short lengths and no expiry, holding {@code payload} bytes of key and value. */
    private static long entry(int payload) {
        return (2 + 3 + payload + 3) & ~3;
    }

    private static long field(List<String> lines, String name) {
        int i = lines.indexOf(name);
        assertThat(i).as(name).isNotNegative();
        return Long.parseLong(lines.get(i + 1).substring(1));
    }

    @Test
    void usage_isTheEntryPlusItsShareOfTheTable_andSamplesDoNotChangeIt() throws IOException {
        String key = k("str");
        t().call("SET", key, "x".repeat(32));
        byte[] kb = key.getBytes(StandardCharsets.UTF_8);
        Database db = tide().context().shards().shardOf(kb).db(0);
        long share = Math.ceilDiv(db.tableBytes(false), db.size());
        // Embedded: [varint key length][varint value length][3-byte access field][key][value], padded to 4.
        long embedded = entry(kb.length + 32);
        assertThat(t().call("MEMORY", "USAGE", key)).isEqualTo(":" + (embedded + share) + "\r\n");

        String list = k("list");
        List<String> push = new ArrayList<>(List.of("RPUSH", list));
        for (int i = 0; i < 1000; i++) push.add("element-" + i);
        t().call(push.toArray(String[]::new));
        byte[] lb = list.getBytes(StandardCharsets.UTF_8);
        Database ldb = tide().context().shards().shardOf(lb).db(0);
        long expected = entry(lb.length) + MemoryCost.of(ldb.peek(lb, System.currentTimeMillis()))
                + Math.ceilDiv(ldb.tableBytes(false), ldb.size());
        assertThat(t().call("MEMORY", "USAGE", list)).isEqualTo(":" + expected + "\r\n");
        assertThat(t().call("MEMORY", "USAGE", list, "SAMPLES", "0")).isEqualTo(":" + expected + "\r\n");
        assertThat(t().call("MEMORY", "USAGE", list, "SAMPLES", "1")).isEqualTo(":" + expected + "\r\n");
    }

    /**
     * A string changed in place (store.RawString: past 1 KB, grown by APPEND, SETRANGE, SETBIT, BITFIELD) is counted at
     * its array's size as it grows, and deleting it gives back exactly what it added to the dataset.
     */
    @Test
    void aStringChangedInPlace_isCountedAsItGrows_andItsDeleteGivesAllBack() throws IOException {
        String key = k("grown");
        byte[] kb = key.getBytes(StandardCharsets.UTF_8);
        Database db = tide().context().shards().shardOf(kb).db(0);
        t().call("SET", k("other"), "v");
        long before = field(List.of(t().call("MEMORY", "STATS").split("\r\n")), "dataset.bytes");
        t().call("SETRANGE", key, "2000", "x");
        for (int i = 0; i < 40; i++) t().call("APPEND", key, "a".repeat(500));
        t().call("SETBIT", key, "300000", "1");
        t().call("BITFIELD", key, "SET", "u8", "#60000", "1");
        t().call("SETRANGE", key, "70000", "y");
        Object value = db.peek(kb, System.currentTimeMillis());
        assertThat(value).isInstanceOf(io.tide.store.RawString.class);
        long expected = entry(kb.length) + MemoryCost.of(value) + Math.ceilDiv(db.tableBytes(false), db.size());
        assertThat(t().call("MEMORY", "USAGE", key)).isEqualTo(":" + expected + "\r\n");
        assertThat(MemoryCost.of(value)).isGreaterThan(70_000);
        t().call("DEL", key);
        assertThat(field(List.of(t().call("MEMORY", "STATS").split("\r\n")), "dataset.bytes")).isEqualTo(before);
    }

    @Test
    void mallocStats_isTheJvmText_verbatimInResp3() throws IOException {
        assertThat(t().call("MEMORY", "MALLOC-STATS")).startsWith("$").contains("___ Begin JVM memory statistics ___\n")
                .contains("Heap: used ").contains("Collectors:\n").endsWith("___ End JVM memory statistics ___\n\r\n");
        protocol(3);
        assertThat(t().call("MEMORY", "MALLOC-STATS")).startsWith("=").contains("\r\ntxt:___ Begin JVM");
    }
}
