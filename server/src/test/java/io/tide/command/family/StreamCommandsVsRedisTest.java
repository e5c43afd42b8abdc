package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sends the same raw stream commands to redis-server 7.0 and to Tide (two shards) and asserts byte-identical
 * replies in RESP2 and RESP3: ID parsing and its errors, option errors, reply shapes, node layout (XINFO's
 * radix tree counts, approximate trimming), tombstone bookkeeping, entries-read and lag. Replies that carry
 * clock readings (idle times, delivery times) are compared with their integers masked. XREAD's {@code +} ID
 * is Redis 7.4's and is not compared here.
 */
class StreamCommandsVsRedisTest extends VsRedis {

    @BeforeEach
    void flush() throws IOException {
        r().call("FLUSHALL");
        t().call("FLUSHALL");
    }

    /** Node sizes back to their defaults for the next test. */
    @AfterEach
    void resetNodeSizes() throws IOException {
        r().call("CONFIG", "SET", "stream-node-max-bytes", "4096");
        t().call("CONFIG", "SET", "stream-node-max-bytes", "4096");
        r().call("CONFIG", "SET", "stream-node-max-entries", "100");
        t().call("CONFIG", "SET", "stream-node-max-entries", "100");
    }

    /** Like {@link #same} with every integer reply masked: for replies holding idle or delivery times. */
    private void sameMaskingIntegers(String... args) throws IOException {
        String expected = r().call(args).replaceAll(":-?\\d+\r\n", ":N\r\n");
        String actual = t().call(args).replaceAll(":-?\\d+\r\n", ":N\r\n");
        assertThat(actual).as(String.join(" ", args)).isEqualTo(expected);
    }

    /** Like {@link #same} with auto-generated stream ids masked: for XADD with {@code *} (clock-dependent). */
    private void sameMaskingIds(String... args) throws IOException {
        String expected = r().call(args).replaceAll("\\$\\d+\r\n\\d+-\\d+\r\n", "ID\r\n");
        String actual = t().call(args).replaceAll("\\$\\d+\r\n\\d+-\\d+\r\n", "ID\r\n");
        assertThat(actual).as(String.join(" ", args)).isEqualTo(expected);
    }

    /** Runs a script: one command per line, arguments separated by single spaces; {@code ~} lines mask integers. */
    private void script(String text) throws IOException {
        for (String line : text.strip().split("\n")) {
            line = line.strip();
            if (line.isEmpty()) continue;
            if (line.startsWith("~ ")) sameMaskingIntegers(line.substring(2).split(" "));
            else same(line.split(" "));
        }
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void xadd_idsOptionsAndErrors(int proto) throws IOException {
        protocol(proto);
        script("""
                XADD s 1-1 a 1
                XADD s 1-1 a 1
                XADD s 0-0 a 1
                XADD s2 0-0 a 1
                EXISTS s2
                XADD s2 0-* a 1
                XADD s 1-* b 2
                XADD s 5-* c 3 d 4
                XADD s abc a 1
                XADD s 1 a
                XADD s
                XADD s *
                XADD s MAXLEN -1 * a 1
                XADD s MAXLEN = 1 LIMIT 5 * a 1
                XADD s LIMIT 5 * a 1
                XADD s LIMIT 0 * a 1
                XADD s MAXLEN 1 MINID 1 * a 1
                XADD s MAXLEN ~ 10 LIMIT -1 * a 1
                XADD s MAXLEN ~ abc * a 1
                XADD s MINID + * a 1
                XADD s minid ~ 1-1 limit 5 nomkstream 6-0 e 5
                XADD nos NOMKSTREAM * a 1
                EXISTS nos
                XADD s 00001-1 a b
                XADD s 9-01 a b
                XADD s 10-+5 a b
                XADD s 11-18446744073709551616 a b
                XADD s 18446744073709551616 a 1
                XADD s -1 a 1
                XADD s + a 1
                XADD s - a 1
                XADD s 12-18446744073709551615 a b
                XADD s 12-* a b
                XADD s 18446744073709551615-18446744073709551615 a 1
                XADD s * a 1
                XINFO STREAM s
                XRANGE s - +
                SET str x
                XADD str * a 1
                XADD s MAXLEN 2 18446744073709551615-0 a b
                XLEN s
                XLEN str
                XLEN nokey
                """);
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void ranges_deletesAndTrims(int proto) throws IOException {
        protocol(proto);
        script("""
                XADD s 1-0 f v1
                XADD s 2-0 f v2 g x
                XADD s 3-0 h v3
                XADD s 4-0 f v4
                XADD s 5-0 f v5
                XRANGE s - +
                XREVRANGE s + -
                XRANGE s - + COUNT 0
                XRANGE s - + COUNT -1
                XRANGE s - + COUNT 2
                XREVRANGE s + - COUNT 2
                XRANGE s ( +
                XRANGE s (- +
                XRANGE s (18446744073709551615-18446744073709551615 +
                XRANGE s - (0-0
                XRANGE s - + COUNT
                XRANGE s - + FOO 1
                XRANGE nokey - + COUNT 0
                XRANGE s 2 2
                XRANGE s (1 5
                XREVRANGE s (5-0 (1-0
                XRANGE s 3 2
                XRANGE s x +
                SET str x
                XRANGE str - +
                XRANGE str - + COUNT x
                XDEL s 2-0 9-9 x
                XDEL s 2-0 9-9
                XDEL s 1
                XDEL nokey 1-0
                XDEL str 1-0
                XRANGE s - +
                XINFO STREAM s
                XTRIM s
                XTRIM s foo
                XTRIM s MAXLEN
                XTRIM s MAXLEN 1 FOO
                XTRIM s MAXLEN = 0 LIMIT 1
                XTRIM s MINID ~ 1 LIMIT 5
                XTRIM s NOMKSTREAM MAXLEN 1
                XTRIM s MINID 4
                XINFO STREAM s
                XTRIM s MAXLEN 0
                XINFO STREAM s
                XTRIM nokey MAXLEN 0
                XTRIM str MAXLEN 0
                EXISTS s
                XADD s 6-0 a 1
                XINFO STREAM s
                XDEL s 5-0
                """);
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void groupsReadsClaimsAndInfo(int proto) throws IOException {
        protocol(proto);
        script("""
                XADD s 1-0 f v1
                XADD s 2-0 f v2
                XADD s 3-0 f v3 g x
                XADD s 4-0 f v4
                XADD s 5-0 f v5
                XGROUP CREATE s g 0
                XGROUP CREATE s
                XGROUP CREATE s g2 0 foo
                XGROUP foo s g 0
                XGROUP CREATE s g 0
                XGROUP CREATE nokey g 0
                XGROUP SETID s nog 0
                XGROUP CREATECONSUMER s nog c
                XGROUP DELCONSUMER s nog c
                XGROUP CREATE s g3 0 ENTRIESREAD -5
                XGROUP CREATE s g3 0 ENTRIESREAD x
                XGROUP SETID s g 0 MKSTREAM
                XGROUP DESTROY s g extra
                XGROUP CREATECONSUMER s g
                XGROUP CREATE s g4 +
                XGROUP CREATE s g5 -
                XGROUP CREATE s g6 $
                XGROUP CREATE s g7 3 ENTRIESREAD 3
                XGROUP CREATE s g8 3-0 MKSTREAM ENTRIESREAD 3
                XGROUP CREATE s g9 3-0 MKSTREAM MKSTREAM ENTRIESREAD 3
                XGROUP CREATE mk g 0 MKSTREAM
                XINFO STREAM mk
                XINFO STREAM mk FULL
                SET str x
                XGROUP CREATE str g 0
                XGROUP HELP
                XINFO HELP
                XINFO GROUPS s
                XGROUP SETID s g6 +
                XGROUP SETID s g6 2 ENTRIESREAD 2
                XINFO GROUPS s
                XGROUP DESTROY s g4
                XGROUP DESTROY s g4
                XGROUP CREATECONSUMER s g alice
                XGROUP CREATECONSUMER s g alice
                XGROUP DELCONSUMER s g bob
                XGROUP
                XINFO
                XINFO foo
                XINFO STREAM
                XINFO STREAM nokey
                XINFO STREAM s foo
                XINFO STREAM s FULL COUNT x
                XINFO STREAM s FULL foo 1
                XINFO GROUPS s x
                XINFO CONSUMERS s nog
                XINFO GROUPS str
                XREADGROUP GROUP g alice COUNT 2 STREAMS s >
                XREADGROUP GROUP g bob STREAMS s >
                XREADGROUP GROUP g bob STREAMS s >
                XINFO GROUPS s
                ~ XINFO CONSUMERS s g
                XPENDING s g
                XPENDING s nog
                XPENDING nokey g
                ~ XPENDING s g - + 10
                ~ XPENDING s g - + 10 alice extra
                XPENDING s g - + 10 bob2
                XPENDING s g foo 1 - + 10
                XPENDING s g IDLE 1 - + 10 alice x
                XPENDING s g ( + 10
                XPENDING s g - + -1
                XPENDING s g - + x
                XPENDING s g IDLE x - + 10
                XPENDING s g - +
                XPENDING str g
                XACK s g 1-0 x
                XACK s g 1-0 3-0
                XACK nokey g x
                XACK s nog x
                XACK str g x
                XPENDING s g
                XREADGROUP GROUP g alice STREAMS s 0
                XREADGROUP GROUP g bob STREAMS s 0
                XREADGROUP GROUP g bob COUNT 1 STREAMS s 0
                XREADGROUP GROUP g bob STREAMS s 4
                XDEL s 4-0
                XREADGROUP GROUP g bob STREAMS s 0
                XREADGROUP GROUP g newbie STREAMS s 0
                ~ XINFO CONSUMERS s g
                XCLAIM s g bob 0 2-0 JUSTID
                XCLAIM s g bob x 2-0
                XCLAIM s g bob 0 2-0 IDLE x
                XCLAIM s g bob 0 2-0 TIME x
                XCLAIM s g bob 0 2-0 RETRYCOUNT x
                XCLAIM s g bob 0 2-0 foo
                XCLAIM s g bob 0 2-0 LASTID x
                XCLAIM s g bob 0 x
                XCLAIM s nog bob 0 1-0
                XCLAIM nokey g bob 0 1-0
                XCLAIM s g bob 0 3-0 FORCE JUSTID
                XCLAIM s g bob 0 9-0 FORCE JUSTID
                XCLAIM s g bob 0 2-0 JUSTID RETRYCOUNT 5
                XCLAIM s g bob 0 2-0 IDLE
                XCLAIM s g bob 0 2-0 3-0 foo 4-0
                XCLAIM s g bob 0 4-0 JUSTID
                XCLAIM s g bob 0 2-0 3-0 LASTID 9-0
                XCLAIM s g nobody 3600000 2-0
                ~ XINFO CONSUMERS s g
                XAUTOCLAIM s g carol 0 0 COUNT 0
                XAUTOCLAIM s g carol 0 0 COUNT x
                XAUTOCLAIM s g carol x 0
                XAUTOCLAIM s g carol 0 x
                XAUTOCLAIM s g carol 0 0 JUSTID foo
                XAUTOCLAIM s g carol 0 (
                XAUTOCLAIM s nog carol 0 0
                XAUTOCLAIM nokey g carol 0 0
                XAUTOCLAIM s g carol 3600000 0
                XAUTOCLAIM s g carol 0 0 COUNT 1 JUSTID
                XAUTOCLAIM s g carol 0 (2-0 COUNT 1
                XINFO GROUPS s
                ~ XINFO STREAM s FULL
                ~ XINFO STREAM s FULL COUNT 1
                ~ XINFO STREAM s FULL COUNT 0
                XGROUP DELCONSUMER s g carol
                XPENDING s g
                """);
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void xreadAndXreadgroup_shapesAndErrors(int proto) throws IOException {
        protocol(proto);
        script("""
                XADD s 1-0 f v1
                XADD s 2-0 f v2
                XADD t 1-5 a b
                XGROUP CREATE s g 0
                XREAD STREAMS s
                XREAD STREAMS s 0 1
                XREAD COUNT 1 STREAMS
                XREAD GROUP g c STREAMS s 0
                XREAD NOACK STREAMS s 0
                XREAD STREAMS s >
                XREAD FOO STREAMS s 0
                XREAD STREAMS s $
                XREAD STREAMS s t 0 0
                XREAD COUNT 1 STREAMS s t 0 0
                XREAD STREAMS s t 1-0 $
                XREAD STREAMS nokey 0
                XREAD STREAMS s nokey 0 0
                XREAD BLOCK -1 STREAMS s 0
                XREAD BLOCK x STREAMS s 0
                XREAD BLOCK 10 STREAMS s 0
                XREAD COUNT x STREAMS s 0
                XREAD COUNT -5 STREAMS s 1-0
                SET str x
                XREAD STREAMS str 0
                XREAD STREAMS s str 9 0
                XREADGROUP STREAMS s 0
                XREADGROUP GROUP g c STREAMS s $
                XREADGROUP GROUP nog c STREAMS s 0
                XREADGROUP GROUP g c STREAMS s nokey > >
                XREADGROUP GROUP g c STREAMS s t > >
                XREADGROUP GROUP g c STREAMS s t >
                XREADGROUP GROUP g c STREAMS s >
                XREADGROUP GROUP g c STREAMS s 1
                XREADGROUP GROUP g c NOACK COUNT 1 STREAMS s 0
                XREADGROUP GROUP g c BLOCK 10 STREAMS s >
                XADD s 3-0 f v3
                XREADGROUP GROUP g c NOACK STREAMS s >
                XPENDING s g
                XINFO GROUPS s
                XREADGROUP GROUP g c STREAMS s 18446744073709551615-18446744073709551615
                """);
    }

    @Test
    void nodeLayout_trimsAndRadixTreeCounts_matchRedis() throws IOException {
        List<String> cmds = new ArrayList<>();
        for (int i = 1; i <= 1000; i++) cmds.add("XADD a " + i + "-" + (i % 7) + " f " + i + " g val" + i);
        cmds.add("XINFO STREAM a");
        cmds.add("XTRIM a MAXLEN ~ 550");
        cmds.add("XINFO STREAM a");
        cmds.add("XTRIM a MINID ~ 700");
        cmds.add("XINFO STREAM a");
        cmds.add("XTRIM a MINID 705");
        cmds.add("XTRIM a MAXLEN 123");
        cmds.add("XINFO STREAM a");
        for (int i = 870; i < 990; i += 3) cmds.add("XDEL a " + i + "-" + (i % 7));
        cmds.add("XINFO STREAM a");
        for (int i = 900; i <= 1000; i++) cmds.add("XDEL a " + i + "-" + (i % 7));
        cmds.add("XINFO STREAM a");
        cmds.add("XADD a MAXLEN ~ 10 2000-0 f x");
        cmds.add("XLEN a");
        Random rnd = new Random(5);
        int[] sizes = {1, 5, 50, 70, 200, 1000, 5000};
        for (int i = 1; i < 400; i++) {
            String v = "x".repeat(sizes[rnd.nextInt(sizes.length)]);
            long num = rnd.nextLong() % 1_000_000_000_000L;
            cmds.add("XADD b " + i * 1000 + "-" + rnd.nextInt(4) + " field" + rnd.nextInt(3) + " " + v + " n " + num);
        }
        cmds.add("XINFO STREAM b");
        cmds.add("XADD b MAXLEN ~ 100 999999-0 a 1");
        cmds.add("XLEN b");
        for (int i = 1; i < 300; i++) {
            long ms = (Math.floorMod(rnd.nextLong(), Long.MAX_VALUE) / 300) * i;
            cmds.add("XADD c " + ms + "-" + i + " a b");
        }
        cmds.add("XINFO STREAM c");
        cmds.add("CONFIG SET stream-node-max-entries 7");
        for (int i = 1; i < 100; i++) cmds.add("XADD d " + i + "-0 a " + i);
        cmds.add("XINFO STREAM d");
        cmds.add("CONFIG SET stream-node-max-bytes 200");
        for (int i = 100; i < 200; i++) cmds.add("XADD d " + i + "-0 a " + i + " bb " + "y".repeat(1 + i % 30));
        cmds.add("XINFO STREAM d");
        cmds.add("XTRIM d MAXLEN ~ 50 LIMIT 20");
        cmds.add("XINFO STREAM d");
        cmds.add("XTRIM d MAXLEN ~ 50 LIMIT 0");
        cmds.add("XINFO STREAM d");
        cmds.add("CONFIG SET stream-node-max-bytes 0");
        cmds.add("CONFIG SET stream-node-max-entries 0");
        for (int i = 1; i < 300; i++) cmds.add("XADD e " + i + "-0 a " + i);
        cmds.add("XINFO STREAM e");
        cmds.add("XTRIM e MAXLEN ~ 0");
        cmds.add("XINFO STREAM e");
        for (String c : cmds) same(c.split(" "));
    }

    /**
     * XINFO STREAM between appends, trims and deletes, with IDs that part from the last one at every byte: the radix
     * tree count Tide keeps once asked for (and updates on each new node) must stay Redis's.
     */
    @Test
    void radixTreeCount_askedBetweenWrites_matchesRedis() throws IOException {
        r().call("CONFIG", "SET", "stream-node-max-entries", "3");
        t().call("CONFIG", "SET", "stream-node-max-entries", "3");
        Random rnd = new Random(11);
        long[] steps = {1, 3, 255, 256, 65_536, 1L << 20, 1L << 33, 1L << 41};
        for (int stream = 0; stream < 4; stream++) {
            String key = "s" + stream;
            long ms = stream == 0 ? 1 : Math.floorMod(rnd.nextLong(), 1L << 44);
            long seq = 0;
            for (int i = 0; i < 600; i++) {
                if (rnd.nextInt(3) == 0) seq += 1 + rnd.nextInt(300);
                else { ms += steps[rnd.nextInt(steps.length)]; seq = rnd.nextInt(3) == 0 ? 0 : rnd.nextInt(70_000); }
                same("XADD", key, ms + "-" + seq, "f", "v");
                if (rnd.nextInt(6) == 0) same("XINFO", "STREAM", key);
                if (rnd.nextInt(90) == 0) same("XTRIM", key, "MAXLEN", Integer.toString(rnd.nextInt(400)));
            }
            same("XINFO", "STREAM", key);
        }
    }

    @Test
    void entriesReadAndLag_followRedis_underRandomGroupOperations() throws IOException {
        Random rnd = new Random(9);
        for (int round = 0; round < 40; round++) {
            String k = "k" + round;
            int n = 1 + rnd.nextInt(12);
            for (int i = 1; i <= n; i++) same("XADD", k, i + "-1", "f", "v");
            String[] starts = {"0", "$", "2", "3-1"};
            String[] reads = {"", " ENTRIESREAD 1", " ENTRIESREAD 0", ""};
            same(("XGROUP CREATE " + k + " g " + starts[rnd.nextInt(4)] + reads[rnd.nextInt(4)]).split(" "));
            same("XGROUP", "CREATE", k, "h", "0");
            for (int step = 0; step < 12; step++) {
                String cmd = switch (rnd.nextInt(10)) {
                    case 0, 1 -> "XREADGROUP GROUP " + (rnd.nextBoolean() ? "g" : "h") + " c" + (1 + rnd.nextInt(2))
                            + " COUNT " + (1 + rnd.nextInt(3)) + " STREAMS " + k + " >";
                    case 2 -> "XDEL " + k + " " + (1 + rnd.nextInt(n + 3)) + "-1";
                    case 3 -> "XADD " + k + " " + (++n) + "-1 f v";
                    case 4 -> "XTRIM " + k + " MAXLEN " + rnd.nextInt(n + 1);
                    case 5 -> "XGROUP SETID " + k + " g " + rnd.nextInt(n + 1) + "-1" + (rnd.nextBoolean() ? " ENTRIESREAD 2" : "");
                    case 6 -> "XACK " + k + " g " + (1 + rnd.nextInt(n)) + "-1";
                    case 7 -> "XCLAIM " + k + " g c3 0 " + (1 + rnd.nextInt(n)) + "-1 " + (1 + rnd.nextInt(n)) + "-1 JUSTID";
                    case 8 -> "XAUTOCLAIM " + k + " h c4 0 0 COUNT " + (1 + rnd.nextInt(3)) + " JUSTID";
                    default -> "XSETID " + k + " " + (n + rnd.nextInt(3)) + "-1";
                };
                same(cmd.split(" "));
                same("XINFO", "GROUPS", k);
            }
            same("XINFO", "STREAM", k);
            same("XPENDING", k, "g");
            sameMaskingIntegers("XPENDING", k, "h", "-", "+", "100");
        }
    }

    @Test
    void argumentsAsCStrings_andStrtoullForms_matchRedis() throws IOException {
        same("XADD", "s", " 4-1", "a", "b");
        same("XADD", "s", "5-1\u0000junk", "a", "b");
        same("XADD", "s", "+6-1", "a", "b");
        same("XADD", "s", "7-\t8", "a", "b");
        same("XADD", "s", "8--1", "a", "b");
        same("XADD", "s", "9-1 ", "a", "b");
        sameMaskingIds("XADD", "s", "*\u0000", "a", "b");
        sameMaskingIds("XADD", "s", "MAXLEN\u0000x", "~\u0000", "100", "*", "a", "b");
        sameMaskingIds("XRANGE", "s", "-", "+");
        same("XGROUP", "CREATE", "s", "g\u0000x", "0");
        sameMaskingIds("XINFO", "GROUPS", "s");
        same("XREADGROUP", "GROUP", "nog\u0000x", "c", "STREAMS", "s", ">");
    }
}
