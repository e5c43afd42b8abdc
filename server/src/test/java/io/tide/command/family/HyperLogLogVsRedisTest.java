package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.TestServers;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * HyperLogLog against a real redis-server, byte for byte: the same PFADDs produce the same value bytes
 * (sparse and dense, across the sparse-to-dense promotion), values written by one server count the same in
 * the other, and replies and errors are identical in RESP2 and RESP3. Tide runs two shards, so PFCOUNT and
 * PFMERGE over several keys run coordinated.
 */
class HyperLogLogVsRedisTest extends VsRedis {

    /** Jedis has no PFDEBUG in its command enum. */
    private static final ProtocolCommand PFDEBUG = () -> "PFDEBUG".getBytes(StandardCharsets.US_ASCII);

    private Jedis rj;
    private Jedis tj;

    HyperLogLogVsRedisTest() {
        super("h");
    }

    @BeforeEach
    void connectJedis() {
        rj = TestServers.jedis(redis().port(), 2);
        tj = TestServers.jedis(tide().port(), 2);
    }

    @AfterEach
    void disconnectJedis() {
        for (Jedis j : new Jedis[] {rj, tj}) {
            j.configSet("hll-sparse-max-bytes", "3000");
            j.close();
        }
    }

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Runs a command on both servers with binary arguments; asserts equal replies (or equal errors). */
    private Object both(ProtocolCommand cmd, byte[]... args) {
        Object expected = call(rj, cmd, args);
        Object actual = call(tj, cmd, args);
        assertThat(normalize(actual)).as(new String(cmd.getRaw(), StandardCharsets.UTF_8) + " " + new String(args[0], StandardCharsets.UTF_8))
                .isEqualTo(normalize(expected));
        return expected;
    }

    private static Object call(Jedis j, ProtocolCommand cmd, byte[]... args) {
        try {
            return j.sendCommand(cmd, args);
        } catch (JedisDataException e) {
            return "ERROR " + e.getMessage();
        }
    }

    /** byte[] replies compared by content. */
    private static Object normalize(Object o) {
        if (o instanceof byte[] bytes) return Arrays.toString(bytes);
        if (o instanceof List<?> l) {
            List<Object> out = new ArrayList<>();
            for (Object x : l) out.add(normalize(x));
            return out;
        }
        return o;
    }

    /** The value bytes of {@code key} on both servers must be identical. */
    private byte[] sameBytes(String key) {
        byte[] expected = rj.get(b(key));
        byte[] actual = tj.get(b(key));
        assertThat(actual).as("GET " + key).isEqualTo(expected);
        return expected;
    }

    private static byte[][] elements(String prefix, int from, int to) {
        byte[][] out = new byte[to - from][];
        for (int i = from; i < to; i++) out[i - from] = b(prefix + i);
        return out;
    }

    private void pfadd(String key, byte[][] elements) {
        byte[][] args = new byte[elements.length + 1][];
        args[0] = b(key);
        System.arraycopy(elements, 0, args, 1, elements.length);
        both(Protocol.Command.PFADD, args);
    }

    private void pfcount(String... keys) {
        byte[][] args = new byte[keys.length][];
        for (int i = 0; i < keys.length; i++) args[i] = b(keys[i]);
        both(Protocol.Command.PFCOUNT, args);
    }

    private void setBoth(String key, byte[] value) {
        rj.set(b(key), value);
        tj.set(b(key), value);
    }

    @Test
    void pfadd_sameElements_sameBytesThroughPromotion() {
        String key = k("grow");
        pfadd(key, new byte[0][]);
        sameBytes(key);
        int added = 0;
        int[] steps = {1, 2, 5, 10, 30, 60, 100, 200, 400, 800, 1500, 3000, 6000, 20000, 60000};
        for (int n : steps) {
            pfadd(key, elements("e", added, n));
            added = n;
            sameBytes(key);
            pfcount(key);
            sameBytes(key); // the cached cardinality written by PFCOUNT
            pfadd(key, elements("e", 0, Math.min(n, 50))); // nothing new: 0, bytes unchanged
            sameBytes(key);
            both(PFDEBUG, b("ENCODING"), b(key));
        }
    }

    @Test
    void pfadd_oneAtATime_sameBytesAndReplies() {
        String key = k("one");
        Random rnd = new Random(42);
        for (int i = 0; i < 2500; i++) {
            byte[] e = new byte[rnd.nextInt(20)];
            rnd.nextBytes(e);
            both(Protocol.Command.PFADD, b(key), e);
            if (i % 100 == 0) {
                sameBytes(key);
                pfcount(key);
            }
        }
        sameBytes(key);
        pfcount(key);
    }

    /**
     * A dense value changes where it lies (store.RawString): the same bytes and counts as Redis's, one element at a
     * time with PFCOUNT between, and the reads that could see a later change if they shared the array (GET in a
     * transaction or a script before a PFADD, a COPY that PFADD then changes) keep what they read.
     */
    @Test
    void denseValue_changedInPlace_sameBytes_andEarlierReadsKeepTheirValue() {
        String key = k("inplace");
        pfadd(key, elements("d", 0, 5000));
        both(PFDEBUG, b("ENCODING"), b(key));
        Random rnd = new Random(7);
        for (int i = 0; i < 600; i++) {
            byte[] e = b("x" + rnd.nextInt(100_000));
            switch (i % 6) {
                case 0, 1 -> both(Protocol.Command.PFADD, b(key), e);
                case 2 -> {
                    pfcount(key);
                    sameBytes(key);
                }
                case 3 -> {
                    List<Object> got = new ArrayList<>();
                    for (Jedis j : new Jedis[] {rj, tj}) {
                        redis.clients.jedis.Transaction t = j.multi();
                        redis.clients.jedis.Response<byte[]> before = t.get(b(key));
                        t.pfadd(b(key), e, b("y" + i));
                        t.pfcount(b(key));
                        redis.clients.jedis.Response<byte[]> after = t.get(b(key));
                        t.exec();
                        got.add(List.of(Arrays.toString(before.get()), Arrays.toString(after.get())));
                    }
                    assertThat(got.get(1)).isEqualTo(got.get(0));
                }
                case 4 -> both(Protocol.Command.EVAL, b("local v = redis.call('GET', KEYS[1]); "
                        + "redis.call('PFADD', KEYS[1], ARGV[1]); redis.call('PFCOUNT', KEYS[1]); return v"),
                        b("1"), b(key), e);
                default -> {
                    both(Protocol.Command.COPY, b(key), b(key + ":copy"), b("REPLACE"));
                    both(Protocol.Command.PFADD, b(key + ":copy"), e, b("z" + i));
                    both(Protocol.Command.PFADD, b(key), b("w" + i));
                    sameBytes(key);
                    sameBytes(key + ":copy");
                }
            }
        }
        sameBytes(key);
        pfcount(key);
        // Written to by other commands, it stays a string like Redis's: its bytes, then not a HyperLogLog any more.
        both(Protocol.Command.SETRANGE, b(key), b("8"), b("\0\0\0\0"));
        pfcount(key);
        both(Protocol.Command.APPEND, b(key), b("tail"));
        both(Protocol.Command.PFADD, b(key), b("after"));
        pfcount(key);
        sameBytes(key);
    }

    @ParameterizedTest(name = "hll-sparse-max-bytes={0}")
    @ValueSource(ints = {0, 20, 100, 700, 20000})
    void pfadd_sparseLimit_promotesAtTheSameByte(int limit) {
        rj.configSet("hll-sparse-max-bytes", Integer.toString(limit));
        tj.configSet("hll-sparse-max-bytes", Integer.toString(limit));
        String key = k("lim" + limit);
        for (int i = 0; i < 3000; i += 7) {
            pfadd(key, elements("x", i, i + 7));
            sameBytes(key);
        }
        pfcount(key);
        sameBytes(key);
    }

    @Test
    void valuesWrittenByRedis_countTheSameInTide_andBack() {
        Random rnd = new Random(9);
        for (int n : new int[] {0, 1, 3, 90, 1000, 5000, 100000}) {
            String key = k("r" + n);
            for (int i = 0; i < n; i += 1000) {
                rj.pfadd(key, Arrays.stream(elements("v" + rnd.nextInt(3), i, Math.min(n, i + 1000)))
                        .map(x -> new String(x, StandardCharsets.UTF_8)).toArray(String[]::new));
            }
            if (n == 0) rj.pfadd(key);
            byte[] fromRedis = rj.get(b(key));
            tj.set(b(key), fromRedis);
            pfcount(key);
            sameBytes(key);
            pfadd(key, elements("more", 0, 200));
            sameBytes(key);
            pfcount(key);
            // And back: Tide's bytes, counted by Redis.
            byte[] fromTide = tj.get(b(key));
            rj.set(b(key + "back"), fromTide);
            tj.set(b(key + "back"), fromTide);
            pfcount(key + "back");
        }
    }

    @Test
    void pfmerge_andMultiKeyPfcount_matchRedis() {
        // {tags} put the keys on both of Tide's shards.
        String s1 = "{a}" + k("s1");
        String s2 = "{b}" + k("s2");
        String d1 = "{c}" + k("d1");
        String d2 = "{d}" + k("d2");
        String dest = "{e}" + k("dest");
        pfadd(s1, elements("a", 0, 100));
        pfadd(s2, elements("b", 50, 400));
        pfadd(d1, elements("c", 0, 5000));
        pfadd(d2, elements("a", 0, 20000));
        pfcount(s1, s2);
        pfcount(s1, s2, d1, d2, k("missing"));
        pfcount(k("missing"), k("missing2"));
        for (String k : new String[] {s1, s2, d1, d2}) sameBytes(k);

        both(Protocol.Command.PFMERGE, b(dest), b(s1), b(s2));
        sameBytes(dest);
        pfcount(dest);
        both(Protocol.Command.PFMERGE, b(dest), b(s1));
        sameBytes(dest);
        both(Protocol.Command.PFMERGE, b(dest), b(d1));
        sameBytes(dest);
        pfcount(dest);
        both(Protocol.Command.PFMERGE, b(dest + "2"), b(d1), b(s1), b(d2));
        sameBytes(dest + "2");
        both(Protocol.Command.PFMERGE, b(dest + "3"));
        sameBytes(dest + "3");
        both(Protocol.Command.PFMERGE, b(s1), b(s2));
        sameBytes(s1);
        both(Protocol.Command.PFMERGE, b(dest + "4"), b(k("nothing")));
        sameBytes(dest + "4");
        // Merging into a sparse destination that overflows hll-sparse-max-bytes promotes it.
        rj.configSet("hll-sparse-max-bytes", "200");
        tj.configSet("hll-sparse-max-bytes", "200");
        both(Protocol.Command.PFMERGE, b(dest + "5"), b(s2));
        sameBytes(dest + "5");
        both(PFDEBUG, b("ENCODING"), b(dest + "5"));
    }

    @Test
    void pfmerge_randomSparseAndDenseMixes_sameBytes() {
        Random rnd = new Random(23);
        String[] keys = new String[8];
        for (int i = 0; i < keys.length; i++) keys[i] = "{" + i + "}" + k("mix" + i);
        for (int round = 0; round < 40; round++) {
            String limit = Integer.toString(new int[] {30, 200, 3000, 100000}[rnd.nextInt(4)]);
            rj.configSet("hll-sparse-max-bytes", limit);
            tj.configSet("hll-sparse-max-bytes", limit);
            String target = keys[rnd.nextInt(keys.length)];
            switch (rnd.nextInt(3)) {
                case 0 -> {
                    int n = rnd.nextInt(rnd.nextBoolean() ? 20 : 600);
                    pfadd(target, elements("r" + round + "-", 0, n));
                }
                case 1 -> {
                    int sources = 1 + rnd.nextInt(3);
                    byte[][] args = new byte[sources + 1][];
                    args[0] = b(target);
                    for (int i = 1; i <= sources; i++) args[i] = b(keys[rnd.nextInt(keys.length)]);
                    both(Protocol.Command.PFMERGE, args);
                }
                default -> {
                    if (rnd.nextBoolean()) both(Protocol.Command.DEL, b(target));
                    else pfcount(target, keys[rnd.nextInt(keys.length)]);
                }
            }
            sameBytes(target);
        }
        for (String key : keys) {
            sameBytes(key);
            pfcount(key);
        }
    }

    @Test
    void errors_wrongTypeAndCorruptValues() {
        setBoth(k("str"), b("hello world, this is not an HLL at all"));
        setBoth(k("int"), b("12345"));
        setBoth(k("short"), b("HYLL"));
        for (String key : new String[] {k("str"), k("int"), k("short")}) {
            both(Protocol.Command.PFADD, b(key), b("a"));
            both(Protocol.Command.PFCOUNT, b(key));
            both(Protocol.Command.PFCOUNT, b(key), b(k("missing")));
            both(Protocol.Command.PFMERGE, b(k("dst")), b(key));
            both(PFDEBUG, b("ENCODING"), b(key));
        }
        both(Protocol.Command.EXISTS, b(k("dst")));
        // A valid HLL with a bad encoding byte, or a dense one of the wrong length.
        rj.pfadd(k("src"), "a", "b", "c");
        byte[] good = rj.get(b(k("src")));
        byte[] badEncoding = good.clone();
        badEncoding[4] = 2;
        setBoth(k("badenc"), badEncoding);
        both(Protocol.Command.PFCOUNT, b(k("badenc")));
        rj.configSet("hll-sparse-max-bytes", "0");
        rj.pfadd(k("dense"), "x");
        rj.configSet("hll-sparse-max-bytes", "3000");
        byte[] dense = rj.get(b(k("dense")));
        setBoth(k("shortdense"), Arrays.copyOf(dense, dense.length - 1));
        both(Protocol.Command.PFCOUNT, b(k("shortdense")));
        both(Protocol.Command.PFADD, b(k("shortdense")), b("y"));

        // Sparse bodies that do not add up to 16384 registers: INVALIDOBJ.
        byte[] truncated = Arrays.copyOf(good, good.length - 1);
        byte[] overlong = Arrays.copyOf(good, good.length + 1);
        overlong[overlong.length - 1] = (byte) 0x3f; // ZERO:64 past the end
        byte[] empty = Arrays.copyOf(good, 16);
        int n = 0;
        for (byte[] bad : new byte[][] {truncated, overlong, empty}) {
            String key = k("corrupt" + n++);
            setBoth(key, bad);
            both(Protocol.Command.PFCOUNT, b(key));
            both(Protocol.Command.PFCOUNT, b(key), b(k("src")));
            both(Protocol.Command.PFMERGE, b(k("dst2")), b(key));
            both(Protocol.Command.PFADD, b(key), b("zzz"), b("a"), b("b"));
            sameBytes(key);
            both(PFDEBUG, b("GETREG"), b(key));
            both(PFDEBUG, b("TODENSE"), b(key));
            both(PFDEBUG, b("DECODE"), b(key));
        }
        // A cached cardinality is trusted as long as its stale bit is clear.
        byte[] cached = good.clone();
        cached[8] = 99;
        cached[15] = 0;
        setBoth(k("cached"), cached);
        pfcount(k("cached"));
        cached[15] = (byte) 0x80;
        setBoth(k("stale"), cached);
        pfcount(k("stale"));
        sameBytes(k("stale"));
    }

    /** A short HLL set by a client is embstr; any HLL command that touches it leaves it raw, as Redis does. */
    @Test
    void shortValues_becomeRawWhenTouched() {
        rj.pfadd(k("src"), "only");
        byte[] small = rj.get(b(k("src")));
        assertThat(small.length).isLessThanOrEqualTo(44);
        String[][] touches = {
            {"PFADD", "only"}, {"PFADD", "another"}, {"PFADD"}, {"PFCOUNT"}, {"PFDEBUG", "ENCODING"},
        };
        int n = 0;
        for (String[] touch : touches) {
            String key = k("small" + n++);
            setBoth(key, small);
            both(Protocol.Command.OBJECT, b("ENCODING"), b(key));
            if (touch[0].equals("PFDEBUG")) {
                both(PFDEBUG, b(touch[1]), b(key));
            } else {
                byte[][] args = new byte[touch.length][];
                args[0] = b(key);
                for (int i = 1; i < touch.length; i++) args[i] = b(touch[i]);
                both(Protocol.Command.valueOf(touch[0]), args);
            }
            both(Protocol.Command.OBJECT, b("ENCODING"), b(key));
            sameBytes(key);
        }
        // Multi-key PFCOUNT reads only.
        String key = k("smallmulti");
        setBoth(key, small);
        both(Protocol.Command.PFCOUNT, b(key), b(k("src")));
        both(Protocol.Command.OBJECT, b("ENCODING"), b(key));
    }

    @Test
    void pfdebug_subcommandsMatchRedis() {
        String key = k("dbg");
        pfadd(key, elements("d", 0, 300));
        both(PFDEBUG, b("ENCODING"), b(key));
        both(PFDEBUG, b("DECODE"), b(key));
        both(PFDEBUG, b("decode"), b(key));
        both(PFDEBUG, b("FOO"), b(key));
        both(PFDEBUG, b("ENCODING"), b(k("missing")));
        both(PFDEBUG, b("GETREG"), b(key));
        sameBytes(key);
        both(PFDEBUG, b("ENCODING"), b(key));
        both(PFDEBUG, b("DECODE"), b(key));
        both(PFDEBUG, b("TODENSE"), b(key));
        String key2 = k("dbg2");
        pfadd(key2, elements("d", 0, 30));
        both(PFDEBUG, b("TODENSE"), b(key2));
        sameBytes(key2);
        both(PFDEBUG, b("TODENSE"), b(key2));
        both(PFDEBUG, b("ENCODING"));
    }

    /** Raw replies for the shapes and errors, in both protocols. */
    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void rawReplies_bothProtocols(int proto) throws IOException {
        protocol(proto);
        String key = k("raw" + proto);
        String[][] cmds = {
            {"PFADD", key, "a", "b", "c"}, {"PFADD", key, "a"}, {"PFADD", key}, {"PFCOUNT", key},
            {"PFCOUNT", key, key}, {"PFMERGE", key + "m", key}, {"PFCOUNT", key + "m"},
            {"OBJECT", "ENCODING", key}, {"TYPE", key}, {"PFADD"}, {"PFCOUNT"}, {"PFMERGE"},
            {"SET", key + "s", "x"}, {"PFADD", key + "s", "a"}, {"PFCOUNT", key + "s"},
            {"PFMERGE", key + "m", key + "s"}, {"PFDEBUG", "ENCODING", key}, {"PFDEBUG", "DECODE", key},
            {"PFDEBUG", "x", key + "none"}, {"PFDEBUG", "GETREG"},
            {"SET", key + "t", "v", "EX", "100"}, {"DEL", key + "t"}, {"PFADD", key + "t", "a"},
            {"EXPIRE", key + "t", "100"}, {"PFADD", key + "t", "b"}, {"TTL", key + "t"},
        };
        for (String[] c : cmds) same(c);
    }
}
