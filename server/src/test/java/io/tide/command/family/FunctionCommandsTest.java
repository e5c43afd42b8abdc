package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.FunctionRestoreMode;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.Server;
import io.tide.testing.TestServers;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.resps.FunctionStats;
import redis.clients.jedis.resps.LibraryInfo;

/**
 * Functions through Jedis's and Lettuce's function APIs, in RESP2 and RESP3, with one shard and with four
 * (where a function's keys live on several shards and it must still be atomic): load, call, list, stats,
 * dump/restore, delete and flush. Libraries are server-wide, so each test uses library and function names of
 * its own.
 */
@ParameterizedClass
@ValueSource(ints = {1, 4})
class FunctionCommandsTest {

    @Parameter
    int shards;

    private static final Map<Integer, Server> SERVERS = new ConcurrentHashMap<>();
    private static final AtomicInteger ROUND = new AtomicInteger();

    @AfterAll
    static void stop() {
        SERVERS.values().forEach(Server::close);
        SERVERS.clear();
    }

    private Server server() {
        return SERVERS.computeIfAbsent(shards, TestServers::start);
    }

    /** A library named {@code lib} whose functions are {@code transfer} (moves ARGV[1] from KEYS[1] to KEYS[2])
     * and {@code total} (no-writes: the sum of KEYS). */
    private static String transferLibrary(String lib, String suffix) {
        return "#!lua name=" + lib + "\n"
                + "redis.register_function('transfer" + suffix + "', function(keys, args)\n"
                + "  redis.call('decrby', keys[1], args[1])\n"
                + "  return redis.call('incrby', keys[2], args[1])\n"
                + "end)\n"
                + "redis.register_function{function_name='total" + suffix + "', flags={'no-writes'}, description='sum',\n"
                + "  callback=function(keys, args)\n"
                + "    local s = 0\n"
                + "    for _, k in ipairs(keys) do s = s + tonumber(redis.call('get', k) or '0') end\n"
                + "    return s\n"
                + "  end}\n";
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void fcall_transferAcrossShards_withJedis(int proto) {
        int n = ROUND.incrementAndGet();
        String lib = "jlib" + n;
        String s = "_j" + n;
        try (Jedis j = TestServers.jedis(server().port(), proto)) {
            assertThat(j.functionLoad(transferLibrary(lib, s))).isEqualTo(lib);
            assertThatThrownBy(() -> j.functionLoad(transferLibrary(lib, s)))
                    .isInstanceOf(JedisDataException.class).hasMessage("ERR Library '" + lib + "' already exists");
            String[] keys = TestServers.keysOnDifferentShards(server(), "fj" + n + ":");
            j.set(keys[0], "100");
            j.set(keys[1], "0");
            assertThat(j.fcall("transfer" + s, List.of(keys[0], keys[1]), List.of("30"))).isEqualTo(30L);
            assertThat(j.fcallReadonly("total" + s, List.of(keys[0], keys[1]), List.of())).isEqualTo(100L);
            assertThat(j.get(keys[0])).isEqualTo("70");
            assertThatThrownBy(() -> j.fcallReadonly("transfer" + s, List.of(keys[0], keys[1]), List.of("1")))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR Can not execute a script with write flag using *_ro command.");
            List<LibraryInfo> libs = j.functionList(lib);
            assertThat(libs).hasSize(1);
            assertThat(libs.get(0).getLibraryName()).isEqualTo(lib);
            assertThat(libs.get(0).getEngine()).isEqualTo("LUA");
            assertThat(libs.get(0).getFunctions()).hasSize(2);
            Map<String, Object> total = libs.get(0).getFunctions().get(1);
            assertThat(total.get("name")).isEqualTo("total" + s);
            assertThat(total.get("description")).isEqualTo("sum");
            assertThat(j.functionListWithCode(lib).get(0).getLibraryCode()).isEqualTo(transferLibrary(lib, s));
            FunctionStats stats = j.functionStats();
            assertThat(stats.getRunningScript()).isNull();
            assertThat(stats.getEngines()).containsKey("LUA");
            assertThat(j.functionDelete(lib)).isEqualTo("OK");
            assertThatThrownBy(() -> j.fcall("transfer" + s, List.of(keys[0], keys[1]), List.of("1")))
                    .isInstanceOf(JedisDataException.class).hasMessage("ERR Function not found");
        }
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void fcall_dumpRestoreAndErrors_withLettuce(int proto) {
        int n = ROUND.incrementAndGet();
        String lib = "llib" + n;
        String s = "_l" + n;
        RedisClient client = TestServers.lettuce(server().port(), proto);
        try (StatefulRedisConnection<String, String> c = TestServers.connect(client)) {
            RedisCommands<String, String> r = c.sync();
            assertThat(r.functionLoad(transferLibrary(lib, s))).isEqualTo(lib);
            String[] keys = TestServers.keysOnDifferentShards(server(), "fl" + n + ":");
            r.set(keys[0], "10");
            Long moved = r.fcall("transfer" + s, ScriptOutputType.INTEGER, new String[] {keys[0], keys[1]}, "4");
            assertThat(moved).isEqualTo(4L);
            Long total = r.fcallReadOnly("total" + s, ScriptOutputType.INTEGER, new String[] {keys[0], keys[1]});
            assertThat(total).isEqualTo(10L);
            byte[] dump = r.functionDump();
            assertThat(r.functionFlush(io.lettuce.core.FlushMode.SYNC)).isEqualTo("OK");
            assertThat(r.functionList(lib)).isEmpty();
            assertThat(r.functionRestore(dump)).isEqualTo("OK");
            assertThatThrownBy(() -> r.functionRestore(dump, FunctionRestoreMode.APPEND))
                    .isInstanceOf(RedisCommandExecutionException.class).hasMessageStartingWith("ERR Library ");
            assertThat(r.functionRestore(dump, FunctionRestoreMode.REPLACE)).isEqualTo("OK");
            Long after = r.fcall("transfer" + s, ScriptOutputType.INTEGER, new String[] {keys[0], keys[1]}, "1");
            assertThat(after).isEqualTo(5L);
            List<?> listed = r.functionList(lib); // Lettuce gives RESP2 maps as flat lists
            assertThat(listed).hasSize(1);
            Object entry = listed.get(0);
            assertThat(String.valueOf(entry)).contains("library_name", lib, "transfer" + s, "total" + s, "sum");
            assertThatThrownBy(() -> r.fcall("nope" + s, ScriptOutputType.INTEGER, new String[0]))
                    .isInstanceOf(RedisCommandExecutionException.class).hasMessage("ERR Function not found");
            assertThatThrownBy(() -> r.functionKill())
                    .isInstanceOf(RedisCommandExecutionException.class)
                    .hasMessage("NOTBUSY No scripts in execution right now.");
        } finally {
            client.shutdown();
        }
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void fcall_concurrentTransfers_keepTheSumForReaders(int proto) throws Exception {
        int n = ROUND.incrementAndGet();
        String lib = "clib" + n;
        String s = "_c" + n;
        String[] keys = TestServers.keysOnDifferentShards(server(), "fc" + n + ":");
        try (Jedis j = TestServers.jedis(server().port(), proto)) {
            j.functionLoad(transferLibrary(lib, s));
            j.set(keys[0], "1000");
            j.set(keys[1], "0");
        }
        Thread writer = Thread.ofPlatform().start(() -> {
            try (Jedis w = TestServers.jedis(server().port(), proto)) {
                for (int i = 0; i < 200; i++) w.fcall("transfer" + s, List.of(keys[0], keys[1]), List.of("1"));
            }
        });
        try (Jedis reader = TestServers.jedis(server().port(), proto)) {
            while (writer.isAlive()) {
                List<String> both = reader.mget(keys[0], keys[1]);
                assertThat(Long.parseLong(both.get(0)) + Long.parseLong(both.get(1))).isEqualTo(1000L);
            }
            writer.join();
            assertThat(reader.get(keys[1])).isEqualTo("200");
            reader.functionDelete(lib);
        }
    }
}
