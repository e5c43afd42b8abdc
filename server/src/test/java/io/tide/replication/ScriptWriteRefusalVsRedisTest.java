package io.tide.replication;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Scripts and functions that may write, on a read-only replica and under min-replicas-to-write: one with declared
 * flags (a shebang, any function) is refused before it runs, with the plain error; one without a shebang is refused
 * by the write it calls, with the "script:" suffix; no-writes ones run. Compared with redis-server answer by answer.
 */
class ScriptWriteRefusalVsRedisTest {

    private static final String SHEBANG_WRITE = "#!lua\nreturn redis.call('set','k','v')";
    private static final String SHEBANG_READ = "#!lua flags=no-writes\nreturn redis.call('get','k')";
    private static final String LEGACY_WRITE = "return redis.call('set','k','v')";
    private static final String LIBRARY = "#!lua name=lib\n"
            + "redis.register_function('w', function() return redis.call('set','k','v') end)\n"
            + "redis.register_function{function_name='r', callback=function() return redis.call('get','k') end, "
            + "flags={'no-writes'}}";

    private static String answer(Jedis j, Function<Jedis, Object> call) {
        try {
            return String.valueOf(call.apply(j));
        } catch (JedisDataException e) {
            return "error: " + e.getMessage();
        }
    }

    private static List<String> answers(Jedis j) {
        List<String> out = new ArrayList<>();
        out.add(answer(j, x -> x.eval(SHEBANG_WRITE, 0)));
        out.add(answer(j, x -> x.eval(SHEBANG_READ, 0)));
        out.add(answer(j, x -> x.eval(LEGACY_WRITE, 0)));
        out.add(answer(j, x -> x.evalsha(x.scriptLoad(SHEBANG_WRITE), 0)));
        out.add(answer(j, x -> x.fcall("w", List.of(), List.of())));
        out.add(answer(j, x -> x.fcall("r", List.of(), List.of())));
        return out;
    }

    @Test
    void onAReadOnlyReplica() throws Exception {
        int nobody = RealRedis.freePort();
        try (RealRedis redis = RealRedis.start(); Server tide = TestServers.start(2);
             Jedis r = TestServers.jedis(redis.port(), 2); Jedis t = TestServers.jedis(tide.port(), 2)) {
            for (Jedis j : List.of(r, t)) {
                j.functionLoad(LIBRARY);
                j.replicaof("127.0.0.1", nobody); // never syncs: the functions stay, the server is a replica
            }
            List<String> want = answers(r);
            assertEquals("error: READONLY You can't write against a read only replica.", want.get(0));
            assertEquals(want, answers(t));
        }
    }

    @Test
    void underMinReplicasToWrite() throws Exception {
        try (RealRedis redis = RealRedis.start(); Server tide = TestServers.start(2);
             Jedis r = TestServers.jedis(redis.port(), 2); Jedis t = TestServers.jedis(tide.port(), 2)) {
            for (Jedis j : List.of(r, t)) {
                j.functionLoad(LIBRARY);
                j.configSet("min-replicas-to-write", "1");
            }
            List<String> want = answers(r);
            assertEquals("error: NOREPLICAS Not enough good replicas to write.", want.get(0));
            assertEquals(want, answers(t));
        }
    }
}
