package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.util.List;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Scripts run by Lettuce, whose connections speak RESP3 unless told otherwise: a command a script calls answers in
 * RESP2's shapes until the script calls {@code redis.setresp(3)}, as Redis's script client does, whatever the
 * connection speaks. On one and two shards.
 */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class ScriptRepliesLettuceTest extends ServerPerShardCount {

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void scriptsSeeTheirOwnProtocol_notTheConnections(int proto) {
        RedisClient client = TestServers.lettuce(server.port(), proto);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            RedisCommands<String, String> cmd = c.sync();
            cmd.del("lz", "lh");
            cmd.zadd("lz", 1.5, "a");
            cmd.zadd("lz", 2, "b");
            cmd.hset("lh", "f", "v");
            // the flat runs a script iterates two by two
            List<Object> flat = cmd.eval("return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')",
                    ScriptOutputType.MULTI, "lz");
            assertThat(flat).containsExactly("a", "1.5", "b", "2");
            assertThat((Long) cmd.eval("local r = redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES'); "
                    + "local n = 0; for i = 2, #r, 2 do n = n + tonumber(r[i]) * 2 end; return n",
                    ScriptOutputType.INTEGER, "lz")).isEqualTo(7L);
            assertThat((String) cmd.eval("return type(redis.call('HRANDFIELD', KEYS[1], 1, 'WITHVALUES')[1])",
                    ScriptOutputType.VALUE, "lh")).isEqualTo("string");
            // after setresp(3) the pairs are tables
            assertThat((String) cmd.eval("redis.setresp(3); "
                    + "return type(redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')[1])",
                    ScriptOutputType.VALUE, "lz")).isEqualTo("table");
        } finally {
            client.shutdown();
        }
    }
}
