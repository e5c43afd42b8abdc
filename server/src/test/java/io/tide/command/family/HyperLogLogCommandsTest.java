package io.tide.command.family;

import static io.tide.testing.TestServers.onShard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.shard.Shard;
import io.tide.store.HyperLogLog;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.commands.ProtocolCommand;

/** HyperLogLog commands through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class HyperLogLogCommandsTest extends ServerPerShardCount {

    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    private static final String HLL_WRONGTYPE = "WRONGTYPE Key is not a valid HyperLogLog string value.";
    private static final String CORRUPT = "INVALIDOBJ Corrupted HLL object detected";
    private static final ProtocolCommand PFDEBUG = () -> "PFDEBUG".getBytes(StandardCharsets.US_ASCII);

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static void putNonString(String key) throws Exception {
        Shard s = server.context().shards().shardOf(bytes(key));
        onShard(server, key, () -> {
            s.db(0).put(bytes(key), new Object(), 0);
            return null;
        });
    }

    private static String[] members(String prefix, int n) {
        String[] out = new String[n];
        for (int i = 0; i < n; i++) out[i] = prefix + i;
        return out;
    }

    private static String encoding(Jedis j, String key) {
        return new String((byte[]) j.sendCommand(PFDEBUG, bytes("ENCODING"), bytes(key)), StandardCharsets.UTF_8);
    }

    @Test
    void pfaddPfcount_roundTrip_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "hll" + proto;
                assertThat(j.pfadd(k, "a", "b", "c")).isOne();
                assertThat(j.pfadd(k, "a", "b")).isZero();
                assertThat(j.pfadd(k)).isZero();
                assertThat(j.pfcount(k)).isEqualTo(3);
                assertThat(j.pfadd("hll-empty" + proto)).isOne(); // creating the key counts as a change
                assertThat(j.pfcount("hll-empty" + proto)).isZero();
                assertThat(j.pfcount("hll-missing" + proto)).isZero();
                assertThat(j.type(k)).isEqualTo("string");
                assertThat(j.objectEncoding(k)).isEqualTo("raw");
                assertThat(j.get(bytes(k))).startsWith('H', 'Y', 'L', 'L');
            }
        }
    }

    @Test
    void pfadd_onWrongType_repliesWrongType() throws Exception {
        putNonString("wt-hll");
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.pfadd("wt-hll", "a")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.pfcount("wt-hll")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.pfcount("wt-hll", "other")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.pfmerge("wt-hll", "other")).hasMessage(WRONGTYPE);
            j.set("not-hll", "hello");
            j.set("int-hll", "42");
            for (String k : new String[] {"not-hll", "int-hll"}) {
                assertThatThrownBy(() -> j.pfadd(k, "a")).hasMessage(HLL_WRONGTYPE);
                assertThatThrownBy(() -> j.pfcount(k)).hasMessage(HLL_WRONGTYPE);
                assertThatThrownBy(() -> j.pfmerge("dst-hll", k)).hasMessage(HLL_WRONGTYPE);
            }
            assertThat(j.exists("dst-hll")).isFalse();
        }
    }

    @Test
    void pfcount_singleKey_storesTheCachedCardinality() {
        try (Jedis j = jedis(2)) {
            j.pfadd("cache", members("m", 500));
            byte[] before = j.get(bytes("cache"));
            assertThat(HyperLogLog.cacheValid(before)).isFalse();
            long count = j.pfcount("cache");
            byte[] after = j.get(bytes("cache"));
            assertThat(HyperLogLog.cacheValid(after)).isTrue();
            assertThat(HyperLogLog.cachedCardinality(after)).isEqualTo(count);
            assertThat(Arrays.copyOfRange(after, 16, after.length))
                    .isEqualTo(Arrays.copyOfRange(before, 16, before.length));
            // A trusted cache answers without recounting, as in Redis.
            byte[] forged = after.clone();
            HyperLogLog.setCachedCardinality(forged, 123456);
            j.set(bytes("forged"), forged);
            assertThat(j.pfcount("forged")).isEqualTo(123456);
            assertThat(j.objectEncoding("forged")).isEqualTo("raw");
            // Adding invalidates it again.
            j.pfadd("forged", "new-member");
            assertThat(HyperLogLog.cacheValid(j.get(bytes("forged")))).isFalse();
            assertThat(j.pfcount("forged")).isEqualTo(count + 1);
        }
    }

    @Test
    void pfcount_manyKeys_isTheUnion_andModifiesNothing() {
        try (Jedis j = jedis(3)) {
            // Tags put the keys on different shards when there are two.
            j.pfadd("{a}u1", members("x", 1000));
            j.pfadd("{b}u2", members("x", 1500));
            j.pfadd("{c}u3", members("y", 500));
            byte[] b1 = j.get(bytes("{a}u1"));
            long union = j.pfcount("{a}u1", "{b}u2", "{c}u3", "{d}none");
            assertThat(union).isBetween(1900L, 2100L);
            assertThat(j.get(bytes("{a}u1"))).isEqualTo(b1);
            assertThat(j.exists("{d}none")).isFalse();
        }
    }

    @Test
    void pfmerge_acrossShards_unionIntoDestination() {
        try (Jedis j = jedis(2)) {
            j.pfadd("{a}m1", members("p", 300));
            j.pfadd("{b}m2", members("q", 300));
            assertThat(j.pfmerge("{c}md", "{a}m1", "{b}m2", "{e}none")).isEqualTo("OK");
            assertThat(j.pfcount("{c}md")).isBetween(580L, 620L);
            assertThat(j.pfcount("{c}md")).isEqualTo(j.pfcount("{a}m1", "{b}m2"));
            // The destination's own registers take part.
            j.pfadd("{c}md", members("r", 100));
            long withR = j.pfcount("{c}md");
            assertThat(j.pfmerge("{c}md", "{a}m1")).isEqualTo("OK");
            assertThat(j.pfcount("{c}md")).isEqualTo(withR);
            assertThat(j.pfmerge("{f}fresh")).isEqualTo("OK");
            assertThat(j.pfcount("{f}fresh")).isZero();
        }
    }

    @Test
    void pfadd_promotesToDense_atHllSparseMaxBytes() {
        try (Jedis j = jedis(2)) {
            j.pfadd("promo", members("z", 10));
            assertThat(encoding(j, "promo")).isEqualTo("sparse");
            j.configSet("hll-sparse-max-bytes", "40");
            try {
                j.pfadd("promo", members("w", 20));
                assertThat(encoding(j, "promo")).isEqualTo("dense");
                assertThat(j.strlen("promo")).isEqualTo(HyperLogLog.DENSE_SIZE);
                assertThat(j.pfcount("promo")).isBetween(28L, 32L);
            } finally {
                j.configSet("hll-sparse-max-bytes", "3000");
            }
            j.pfadd("big", members("b", 5000));
            assertThat(encoding(j, "big")).isEqualTo("dense");
            assertThat(j.pfcount("big")).isBetween(4800L, 5200L);
        }
    }

    @Test
    void pfadd_keepsTheTtl() {
        try (Jedis j = jedis(2)) {
            j.pfadd("ttl-hll", "a");
            j.expire("ttl-hll", 1000);
            j.pfadd("ttl-hll", "b", "c");
            j.pfcount("ttl-hll");
            j.pfmerge("ttl-hll", "ttl-hll");
            assertThat(j.ttl("ttl-hll")).isBetween(990L, 1000L);
        }
    }

    @Test
    void corruptValue_repliesInvalidObj() {
        try (Jedis j = jedis(2)) {
            byte[] header = Arrays.copyOf(HyperLogLog.empty().toBytes(), 16); // no registers at all
            header[15] = (byte) 0x80;
            j.set(bytes("corrupt"), header);
            assertThatThrownBy(() -> j.pfcount("corrupt")).hasMessage(CORRUPT);
            assertThatThrownBy(() -> j.pfcount("corrupt", "other")).hasMessage(CORRUPT);
            assertThatThrownBy(() -> j.pfadd("corrupt", "a")).hasMessage(CORRUPT);
            assertThatThrownBy(() -> j.pfmerge("dst", "corrupt")).hasMessage(CORRUPT);
            assertThatThrownBy(() -> j.sendCommand(PFDEBUG, bytes("GETREG"), bytes("corrupt"))).hasMessage(CORRUPT);
        }
    }

    @Test
    void pfdebug_decodeAndGetreg() {
        try (Jedis j = jedis(3)) {
            j.pfadd("dbg", "a");
            String decoded = new String((byte[]) j.sendCommand(PFDEBUG, bytes("DECODE"), bytes("dbg")),
                    StandardCharsets.UTF_8);
            assertThat(decoded).matches("(Z:\\d+ |z:\\d+ )?v:\\d+,1( Z:\\d+| z:\\d+)?");
            Object regs = j.sendCommand(PFDEBUG, bytes("GETREG"), bytes("dbg"));
            assertThat((java.util.List<?>) regs).hasSize(HyperLogLog.REGISTERS);
            assertThat(encoding(j, "dbg")).isEqualTo("dense"); // GETREG converts, as in Redis
            assertThatThrownBy(() -> j.sendCommand(PFDEBUG, bytes("DECODE"), bytes("dbg")))
                    .hasMessage("ERR HLL encoding is not sparse");
            assertThatThrownBy(() -> j.sendCommand(PFDEBUG, bytes("ENCODING"), bytes("nokey")))
                    .hasMessage("ERR The specified key does not exist");
            assertThatThrownBy(() -> j.sendCommand(PFDEBUG, bytes("what"), bytes("dbg")))
                    .hasMessage("ERR Unknown PFDEBUG subcommand 'what'");
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.PFADD))
                    .hasMessage("ERR wrong number of arguments for 'pfadd' command");
        }
    }

    @Test
    void lettuce_hllCommands_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> r = c.sync();
                String p = "lt" + proto + ":";
                assertThat(r.pfadd("{a}" + p + "1", members("a", 200))).isOne();
                assertThat(r.pfadd("{a}" + p + "1", "a0")).isZero();
                assertThat(r.pfadd("{b}" + p + "2", members("b", 200))).isOne();
                assertThat(r.pfcount("{a}" + p + "1")).isBetween(195L, 205L);
                assertThat(r.pfcount("{a}" + p + "1", "{b}" + p + "2")).isBetween(390L, 410L);
                assertThat(r.pfmerge("{c}" + p + "3", "{a}" + p + "1", "{b}" + p + "2")).isEqualTo("OK");
                assertThat(r.pfcount("{c}" + p + "3")).isEqualTo(r.pfcount("{a}" + p + "1", "{b}" + p + "2"));
                r.set(p + "s", "plain");
                assertThatThrownBy(() -> r.pfadd(p + "s", "x"))
                        .isInstanceOf(RedisCommandExecutionException.class).hasMessage(HLL_WRONGTYPE);
            } finally {
                client.shutdown();
            }
        }
    }
}
