package io.tide.command.family;

import static io.tide.testing.TestServers.onShard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.BitFieldArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.shard.Shard;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.BitCountOption;
import redis.clients.jedis.args.BitOP;
import redis.clients.jedis.params.BitPosParams;

/** Bitmap commands through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class BitCommandsTest extends ServerPerShardCount {

    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    private static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    private static final String SYNTAX = "ERR syntax error";
    private static final String BAD_OFFSET = "ERR bit offset is not an integer or out of range";

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Stores a value of a non-string type under {@code key}. */
    private static void putNonString(String key) throws Exception {
        Shard s = server.context().shards().shardOf(bytes(key));
        onShard(server, key, () -> {
            s.db(0).put(bytes(key), new Object(), 0);
            return null;
        });
    }

    private static Object raw(Jedis j, String... args) {
        return j.sendCommand(Protocol.Command.valueOf(args[0]), Arrays.copyOfRange(args, 1, args.length));
    }

    // ------------------------------------------------------------------ SETBIT / GETBIT

    @Test
    void setbit_getbit_roundTrip_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "sb" + proto;
                assertThat(j.setbit(k, 7, true)).isFalse();
                assertThat(j.setbit(k, 7, true)).isTrue();
                assertThat(j.getbit(k, 7)).isTrue();
                assertThat(j.getbit(k, 6)).isFalse();
                assertThat(j.get(k)).isEqualTo("\u0001");
                assertThat(j.setbit(k, 17, true)).isFalse();
                assertThat(j.strlen(k)).isEqualTo(3);
                assertThat(j.get(bytes(k))).containsExactly(1, 0, 0x40);
                assertThat(j.setbit(k, 7, false)).isTrue();
                assertThat(j.getbit(k, 1_000_000)).isFalse();
                assertThat(j.getbit("sb-missing" + proto, 0)).isFalse();
                assertThat(j.objectEncoding(k)).isEqualTo("raw");
            }
        }
    }

    @Test
    void setbit_onWrongType_repliesWrongType() throws Exception {
        putNonString("wt-bits");
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.setbit("wt-bits", 1, true)).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.getbit("wt-bits", 1)).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.bitcount("wt-bits")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.bitcount("wt-bits", 0, 1)).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.bitpos("wt-bits", true)).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.bitop(BitOP.OR, "{wt}d", "wt-bits")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.bitfield("wt-bits", "GET", "u8", "0")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.bitfield("wt-bits", "SET", "u8", "0", "1")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.bitfieldReadonly("wt-bits", "GET", "u8", "0")).hasMessage(WRONGTYPE);
            // BITFIELD with no operation still checks the type.
            assertThatThrownBy(() -> raw(j, "BITFIELD", "wt-bits")).hasMessage(WRONGTYPE);
        }
    }

    @Test
    void setbit_offsetLimit_followsProtoMaxBulkLen() {
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.setbit("lim", 4294967296L, true)).hasMessage(BAD_OFFSET);
            assertThatThrownBy(() -> j.setbit("lim", -1, true)).hasMessage(BAD_OFFSET);
            assertThat(j.configSet("proto-max-bulk-len", "1mb")).isEqualTo("OK");
            try {
                assertThatThrownBy(() -> j.setbit("lim", 8L * 1024 * 1024, true)).hasMessage(BAD_OFFSET);
                assertThatThrownBy(() -> j.getbit("lim", 8L * 1024 * 1024)).hasMessage(BAD_OFFSET);
                assertThat(j.setbit("lim", 8L * 1024 * 1024 - 1, true)).isFalse();
                assertThat(j.strlen("lim")).isEqualTo(1024 * 1024);
                assertThat(j.bitcount("lim")).isEqualTo(1);
            } finally {
                j.configSet("proto-max-bulk-len", "512mb");
            }
            assertThatThrownBy(() -> raw(j, "SETBIT", "lim", "1", "2"))
                    .hasMessage("ERR bit is not an integer or out of range");
        }
    }

    @Test
    void setbit_keepsTtl_andIntegerValueBecomesRaw() {
        try (Jedis j = jedis(2)) {
            j.setex("ttlbit", 1000, "x");
            j.setbit("ttlbit", 100, true);
            assertThat(j.ttl("ttlbit")).isBetween(990L, 1000L);
            j.set("intbit", "12");
            assertThat(j.objectEncoding("intbit")).isEqualTo("int");
            assertThat(j.setbit("intbit", 2, true)).isTrue(); // '1' is 0x31: bit 2 is already set
            assertThat(j.objectEncoding("intbit")).isEqualTo("raw");
            assertThat(j.get("intbit")).isEqualTo("12");
        }
    }

    // ------------------------------------------------------------------ BITCOUNT / BITPOS

    @Test
    void bitcount_rangesAndBitMode() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "bc" + proto;
                j.set(k, "foobar");
                assertThat(j.bitcount(k)).isEqualTo(26);
                assertThat(j.bitcount(k, 0, 0)).isEqualTo(4);
                assertThat(j.bitcount(k, 1, 1)).isEqualTo(6);
                assertThat(j.bitcount(k, 1, 1, BitCountOption.BYTE)).isEqualTo(6);
                assertThat(j.bitcount(k, 5, 30, BitCountOption.BIT)).isEqualTo(17);
                assertThat(j.bitcount(k, -2, -1)).isEqualTo(7);
                assertThat(j.bitcount(k, -1, -2)).isEqualTo(0);
                assertThat(j.bitcount(k, 100, 200)).isEqualTo(0);
                assertThat(j.bitcount("bc-missing" + proto)).isEqualTo(0);
            }
        }
    }

    /** Redis 7.2+ parses BITCOUNT's and BITPOS's arguments before looking the key up. */
    @Test
    void bitcountAndBitpos_badArgumentsOnMissingKey_replyErrors() throws Exception {
        putNonString("wt-args");
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> raw(j, "BITCOUNT", "none", "a", "1")).hasMessage(NOT_INTEGER);
            assertThatThrownBy(() -> raw(j, "BITCOUNT", "none", "0")).hasMessage(SYNTAX);
            assertThatThrownBy(() -> raw(j, "BITCOUNT", "none", "0", "1", "bits")).hasMessage(SYNTAX);
            assertThatThrownBy(() -> raw(j, "BITCOUNT", "wt-args", "0", "x")).hasMessage(NOT_INTEGER);
            assertThatThrownBy(() -> raw(j, "BITPOS", "none", "1", "x")).hasMessage(NOT_INTEGER);
            assertThatThrownBy(() -> raw(j, "BITPOS", "none", "1", "0", "1", "bits")).hasMessage(SYNTAX);
            assertThatThrownBy(() -> raw(j, "BITPOS", "none", "1", "0", "1", "bit", "x")).hasMessage(SYNTAX);
            assertThatThrownBy(() -> raw(j, "BITPOS", "wt-args", "1", "x")).hasMessage(NOT_INTEGER);
            assertThatThrownBy(() -> raw(j, "BITPOS", "none", "2"))
                    .hasMessage("ERR The bit argument must be 1 or 0.");
        }
    }

    @Test
    void bitpos_findsBitsWithRedisNotFoundRules() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "bp" + proto;
                j.set(bytes(k), new byte[] {(byte) 0xff, (byte) 0xf0, 0});
                assertThat(j.bitpos(k, false)).isEqualTo(12);
                assertThat(j.bitpos(k, true)).isEqualTo(0);
                assertThat(j.bitpos(k, true, new BitPosParams(2))).isEqualTo(-1);
                assertThat(j.bitpos(k, true, new BitPosParams(1, -1))).isEqualTo(8);
                assertThat(j.bitpos(k, true, new BitPosParams(9, -1).modifier(BitCountOption.BIT))).isEqualTo(9);
                assertThat(j.bitpos(k, false, new BitPosParams(0, 0))).isEqualTo(-1);
                j.set(bytes(k + "ones"), new byte[] {(byte) 0xff, (byte) 0xff});
                // No explicit end: the string is taken as zero-padded, so the first 0 is just past it.
                assertThat(j.bitpos(k + "ones", false)).isEqualTo(16);
                assertThat(j.bitpos(k + "ones", false, new BitPosParams(1))).isEqualTo(16);
                // An explicit end: no 0 inside the range.
                assertThat(j.bitpos(k + "ones", false, new BitPosParams(0, -1))).isEqualTo(-1);
                assertThat(j.bitpos("bp-missing", true)).isEqualTo(-1);
                assertThat(j.bitpos("bp-missing", false)).isEqualTo(0);
            }
        }
    }

    // ------------------------------------------------------------------ BITOP

    @Test
    void bitop_acrossShards_computesAndStoresRaw() {
        try (Jedis j = jedis(3)) {
            // Different hash tags: the keys live on different shards when there are two.
            j.set(bytes("{x}a"), new byte[] {(byte) 0xf0, 0x0f, 1});
            j.set(bytes("{y}b"), new byte[] {(byte) 0x3c});
            assertThat(j.bitop(BitOP.AND, "{z}d", "{x}a", "{y}b")).isEqualTo(3);
            assertThat(j.get(bytes("{z}d"))).containsExactly(0x30, 0, 0);
            assertThat(j.bitop(BitOP.OR, "{z}d", "{x}a", "{y}b")).isEqualTo(3);
            assertThat(j.get(bytes("{z}d"))).containsExactly(0xfc, 0x0f, 1);
            assertThat(j.bitop(BitOP.XOR, "{z}d", "{x}a", "{y}b", "{w}missing")).isEqualTo(3);
            assertThat(j.get(bytes("{z}d"))).containsExactly(0xcc, 0x0f, 1);
            assertThat(j.bitop(BitOP.NOT, "{z}d", "{y}b")).isEqualTo(1);
            assertThat(j.get(bytes("{z}d"))).containsExactly(0xc3);
            assertThat(j.objectEncoding("{z}d")).isEqualTo("raw");
            // Nothing to compute: the destination is deleted.
            assertThat(j.bitop(BitOP.OR, "{z}d", "{w}missing", "{v}missing")).isZero();
            assertThat(j.exists("{z}d")).isFalse();
            assertThatThrownBy(() -> j.bitop(BitOP.NOT, "{z}d", "{x}a", "{y}b"))
                    .hasMessage("ERR BITOP NOT must be called with a single source key.");
            assertThatThrownBy(() -> raw(j, "BITOP", "NAND", "{z}d", "{x}a")).hasMessage(SYNTAX);
        }
    }

    /** Clients watching BITOP's destination never see a half-written result while sources change on other shards. */
    @Test
    void bitop_isAtomicAcrossShards() throws Exception {
        try (Jedis setup = jedis(2)) {
            setup.set("{p}src1", "aaaa");
            setup.set("{q}src2", "aaaa");
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch writerStarted = new CountDownLatch(1);
        Thread writer = new Thread(() -> {
            try (Jedis j = jedis(2)) {
                writerStarted.countDown();
                for (int i = 0; !stop.get(); i++) {
                    String v = i % 2 == 0 ? "bbbb" : "aaaa";
                    j.mset("{p}src1", v, "{q}src2", v);
                }
            } catch (Throwable t) {
                failure.set(t);
            }
        });
        writer.start();
        writerStarted.await();
        try (Jedis j = jedis(2)) {
            for (int i = 0; i < 300; i++) {
                j.bitop(BitOP.XOR, "{r}dst", "{p}src1", "{q}src2");
                assertThat(j.get(bytes("{r}dst"))).containsExactly(0, 0, 0, 0);
            }
        } finally {
            stop.set(true);
            writer.join();
        }
        assertThat(failure.get()).isNull();
    }

    // ------------------------------------------------------------------ BITFIELD

    @Test
    void bitfield_getSetIncrbyAndOverflow_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "bf" + proto;
                assertThat(j.bitfield(k, "SET", "i8", "0", "100", "GET", "i8", "0")).containsExactly(0L, 100L);
                assertThat(j.bitfield(k, "INCRBY", "i8", "0", "100")).containsExactly(-56L);
                assertThat(j.bitfield(k, "OVERFLOW", "SAT", "INCRBY", "i8", "0", "-1000")).containsExactly(-128L);
                List<Long> fail = j.bitfield(k, "OVERFLOW", "FAIL", "INCRBY", "i8", "0", "-1", "GET", "u4", "#1");
                assertThat(fail).hasSize(2);
                assertThat(fail.get(0)).isNull();
                assertThat(fail.get(1)).isEqualTo(0L);
                assertThat(j.bitfield(k, "SET", "u63", "#1", "9223372036854775807")).containsExactly(0L);
                // Bits 63..125 are all ones now: i64 at 8 holds 55 zeros then 9 ones.
                assertThat(j.bitfield(k, "GET", "u63", "#1", "GET", "i64", "8", "GET", "i64", "63"))
                        .containsExactly(Long.MAX_VALUE, 511L, -2L);
                assertThat(j.bitfieldReadonly(k, "GET", "i8", "0")).containsExactly(-128L);
                assertThatThrownBy(() -> j.bitfieldReadonly(k, "SET", "i8", "0", "1"))
                        .hasMessage("ERR BITFIELD_RO only supports the GET subcommand");
                assertThatThrownBy(() -> j.bitfield(k, "GET", "u64", "0")).hasMessage(
                        "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported "
                                + "but i64 is.");
                assertThatThrownBy(() -> j.bitfield(k, "OVERFLOW", "ALL")).hasMessage(
                        "ERR Invalid OVERFLOW type specified");
                assertThatThrownBy(() -> j.bitfield(k, "GET", "u8")).hasMessage(SYNTAX);
                assertThatThrownBy(() -> j.bitfield(k, "GET", "u8", "#x")).hasMessage(BAD_OFFSET);
            }
        }
    }

    @Test
    void bitfield_readOnlyOnMissingKey_createsNothing_writeCreatesRaw() {
        try (Jedis j = jedis(2)) {
            assertThat(j.bitfield("bfm", "GET", "u8", "0")).containsExactly(0L);
            assertThat(j.exists("bfm")).isFalse();
            List<Long> r = j.bitfield("bfm", "OVERFLOW", "FAIL", "SET", "u4", "20", "16");
            assertThat(r).hasSize(1);
            assertThat(r.get(0)).isNull();
            assertThat(j.get(bytes("bfm"))).containsExactly(0, 0, 0);
            assertThat(j.objectEncoding("bfm")).isEqualTo("raw");
        }
    }

    // ------------------------------------------------------------------ Lettuce

    @Test
    void lettuce_bitCommands_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> r = c.sync();
                String p = "{lt" + proto + "}";
                assertThat(r.setbit(p + "a", 3, 1)).isZero();
                assertThat(r.getbit(p + "a", 3)).isOne();
                assertThat(r.bitcount(p + "a")).isOne();
                assertThat(r.bitpos(p + "a", true)).isEqualTo(3);
                assertThat(r.bitpos(p + "a", false, 0, 0)).isZero();
                r.set(p + "b", "abc");
                assertThat(r.bitopOr(p + "d", p + "a", p + "b")).isEqualTo(3);
                assertThat(r.bitopNot(p + "n", p + "b")).isEqualTo(3);
                assertThat(r.bitcount(p + "n", 0, -1)).isEqualTo(24 - r.bitcount(p + "b"));
                BitFieldArgs args = BitFieldArgs.Builder.set(BitFieldArgs.unsigned(8), 0, 200)
                        .incrBy(BitFieldArgs.unsigned(8), 0, 100)
                        .overflow(BitFieldArgs.OverflowType.FAIL)
                        .incrBy(BitFieldArgs.unsigned(8), 0, 100)
                        .get(BitFieldArgs.signed(8), 0);
                List<Long> out = r.bitfield(p + "f", args);
                assertThat(new ArrayList<>(out)).containsExactly(0L, 44L, 144L, -112L);
                assertThatThrownBy(() -> r.setbit(p + "a", -1, 1))
                        .isInstanceOf(RedisCommandExecutionException.class).hasMessage(BAD_OFFSET);
            } finally {
                client.shutdown();
            }
        }
    }
}
