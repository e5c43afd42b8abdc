package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.VsRedis;
import java.io.IOException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.FunctionRestorePolicy;

/**
 * Sends the same FUNCTION and FCALL commands to redis-server 7.0.15 and to Tide (two shards) and asserts
 * byte-identical replies: FUNCTION LOAD's metadata, sandbox and register_function errors, FCALL's replies,
 * flags and error lines, FUNCTION LIST / STATS shapes in RESP2 and RESP3, and DUMP/RESTORE both ways.
 * Libraries are server-wide, so each test starts by flushing them on both servers.
 */
class FunctionCommandsVsRedisTest extends VsRedis {

    FunctionCommandsVsRedisTest() {
        super("fn");
    }

    @BeforeEach
    void flushLibraries() throws IOException {
        same("FUNCTION", "FLUSH");
    }

    private static String lib(String name, String body) {
        return "#!lua name=" + name + "\n" + body;
    }

    @Test
    void functionLoad_badMetadataAndCode_repliesRedisErrors() throws IOException {
        same("FUNCTION", "LOAD", "return 1");
        same("FUNCTION", "LOAD", "#!lua name=x");
        same("FUNCTION", "LOAD", "#!lua\nreturn 1");
        same("FUNCTION", "LOAD", "#!lua name=a foo=bar\n");
        same("FUNCTION", "LOAD", "#!lua name=a name=b\n");
        same("FUNCTION", "LOAD", "#!js name=a\n");
        same("FUNCTION", "LOAD", "#!lua name=a-b\n");
        same("FUNCTION", "LOAD", "#!lua name=\n");
        same("FUNCTION", "LOAD", lib("a", "local a = 1"));
        same("FUNCTION", "LOAD", lib("a", "local x = "));
        same("FUNCTION", "LOAD", "REPLACEX", lib("a", "local a = 1"));
        same("FUNCTION", "LOAD", "REPLACE");
        same("FUNCTION", "LOAD", "REPLACE", "REPLACE", "x");
    }

    @Test
    void functionLoad_sandbox_onlyRegisterFunctionAndLog() throws IOException {
        for (String body : new String[] {"redis.call('set','x','y')", "return string.format('%d', 1)",
            "return math.floor(1)", "redis.setresp(3)", "x = 1", "error('boom')", "return redis.pcall",
            "return redis.sha1hex", "return cjson", "return KEYS", "return _G", "return tostring", "redis.foo = 1",
            "redis.log = 1"}) {
            same("FUNCTION", "LOAD", lib("sb", body));
        }
        same("FUNCTION", "LOAD", lib("sb", "redis.log(redis.LOG_WARNING, 'loading')\n"
                + "local v = redis.REDIS_VERSION_NUM\n"
                + "redis.register_function('sbf', function() return type(v) end)"));
        same("FCALL", "sbf", "0");
    }

    @Test
    void functionLoad_registerFunctionArguments_repliesRedisErrors() throws IOException {
        String[] bodies = {
            "redis.register_function{function_name='g1', callback=function() return 2 end, flags={'bad'}}",
            "redis.register_function{function_name='g2', callback=function() return 2 end, flags='x'}",
            "redis.register_function{function_name='g2', callback=function() return 2 end, foo=1}",
            "redis.register_function{function_name='g2'}",
            "redis.register_function{callback=function() end}",
            "redis.register_function('a')",
            "redis.register_function(1, 2, 3)",
            "redis.register_function()",
            "redis.register_function('a', 2)",
            "redis.register_function(nil, function() end)",
            "redis.register_function({}, function() end)",
            "redis.register_function(5)",
            "redis.register_function{[1]=2}",
            "redis.register_function{function_name={}, callback=function() end}",
            "redis.register_function{function_name='z', callback=1}",
            "redis.register_function{function_name='z', callback=function() end, description=1}",
            "redis.register_function{function_name='z', callback=function() end, description={}}",
            "redis.register_function{function_name='z', callback=function() end, flags={1}}",
            "redis.register_function{function_name='z', callback=function() end, flags={{}}}",
            "redis.register_function('f-1', function() end)",
            "redis.register_function('', function() end)",
            "redis.register_function('d', function() end)\nredis.register_function('d', function() end)",
        };
        for (String body : bodies) same("FUNCTION", "LOAD", lib("ra", body));
        same("FUNCTION", "LOAD", lib("ra", "redis.register_function{function_name=1, callback=function() return 1 end}"));
        same("FCALL", "1", "0");
    }

    @Test
    void functionLoad_existingLibraryAndFunction_repliesRedisErrors() throws IOException {
        same("FUNCTION", "LOAD", lib("l1", "redis.register_function('f1', function() return 1 end)"));
        same("FUNCTION", "LOAD", lib("l1", "redis.register_function('f1', function() return 1 end)"));
        same("FUNCTION", "LOAD", lib("l2", "redis.register_function('f1', function() return 1 end)"));
        same("FUNCTION", "LOAD", lib("l2", "redis.register_function('F1', function() return 1 end)"));
        same("FUNCTION", "LOAD", "REPLACE", lib("l1", "redis.register_function('f1', function() return 'new' end)"));
        same("FCALL", "f1", "0");
        same("FCALL", "F1", "0");
        same("FUNCTION", "LOAD", "replace", lib("l1", "local x = "));
        same("FCALL", "f1", "0");
        same("FUNCTION", "LOAD", "replace", lib("l1", "redis.register_function('f9', function() return 9 end)"));
        same("FCALL", "f1", "0");
        same("FCALL", "f9", "0");
        same("FUNCTION", "DELETE", "l1");
        same("FUNCTION", "DELETE", "l1");
        same("FCALL", "f9", "0");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void fcall_repliesFlagsAndErrors_matchRedis(int proto) throws IOException {
        protocol(proto);
        same("FUNCTION", "LOAD", lib("fc", """
                local function helper() return 5 end
                redis.register_function('f1', function(keys, args) return {keys, args} end)
                redis.register_function('f2', function(keys, args) return KEYS end)
                redis.register_function('f3', function(keys, args) return redis.call('set', keys[1], args[1]) end)
                redis.register_function{function_name='ro', callback=function(keys, args) return redis.call('get', keys[1]) end, flags={'no-writes'}, description='read it'}
                redis.register_function{function_name='rw', callback=function(keys, args) return redis.call('set', keys[1], 'v') end, flags={'no-writes'}}
                redis.register_function('f4', function(keys, args) error('boom') end)
                redis.register_function('f5', function(keys, args) return redis.call('nosuch') end)
                redis.register_function('f6', function(keys, args) g = 1 end)
                redis.register_function('f7', function(keys, args) return redis.register_function('x', function() end) end)
                redis.register_function('f8', function(keys, args) return helper() end)
                redis.register_function('f9', function(keys, args) return {double=1.5, map={a=1}} end)
                redis.register_function('f10', function(keys, args) redis.setresp(3); return redis.call('hgetall', keys[1]) end)
                redis.register_function('f11', function(keys, args) return redis.error_reply('MY err') end)
                """));
        same("FCALL", "f1", "2", k("a"), k("b"), "c", "d");
        same("FCALL", "f2", "0");
        same("FCALL", "f3", "1", k("k"), "v");
        same("FCALL_RO", "f3", "1", k("k"), "v");
        same("FCALL_RO", "ro", "1", k("k"));
        same("FCALL", "RO", "1", k("k"));
        same("FCALL", "rw", "1", k("k"));
        same("FCALL", "f4", "0");
        same("FCALL", "f5", "0");
        same("FCALL", "f6", "0");
        same("FCALL", "f8", "0");
        same("FCALL", "f9", "0");
        same("HSET", k("h"), "f", "v");
        same("FCALL", "f10", "1", k("h"));
        same("FCALL", "f11", "0");
        same("EVAL", "return redis.error_reply('MY err')", "0");
        same("FCALL", "nope", "0");
        same("FCALL", "f1", "x");
        same("FCALL", "f1", "3", "a");
        same("FCALL", "f1", "-1");
        same("FCALL", "nope", "x");
        same("FCALL", "f1");
        same("FCALL_RO", "f1");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void functionList_shapesAndOptions_matchRedis(int proto) throws IOException {
        protocol(proto);
        same("FUNCTION", "LIST");
        same("FUNCTION", "LOAD", lib("alpha", "redis.register_function{function_name='a1', callback=function() end, "
                + "flags={'allow-cross-slot-keys', 'NO-WRITES', 'allow-oom', 'allow-stale', 'no-cluster'}, description='all flags'}"));
        same("FUNCTION", "LOAD", lib("beta", "redis.register_function('b1', function() end)"));
        same("FUNCTION", "LIST", "LIBRARYNAME", "al*");
        same("FUNCTION", "LIST", "libraryname", "BETA");
        same("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "beta");
        same("FUNCTION", "LIST", "LIBRARYNAME", "alpha", "withcode");
        same("FUNCTION", "LIST", "LIBRARYNAME", "nomatch*");
        same("FUNCTION", "LIST", "LIBRARYNAME");
        same("FUNCTION", "LIST", "foo");
        same("FUNCTION", "LIST", "withcode", "withcode");
        same("FUNCTION", "LIST", "LIBRARYNAME", "a", "LIBRARYNAME", "b");
        same("FUNCTION", "STATS");
        same("FUNCTION", "DELETE", "beta");
        same("FUNCTION", "LIST");
        same("FUNCTION", "STATS");
    }

    @Test
    void functionAdmin_errorsAndHelp_matchRedis() throws IOException {
        same("FUNCTION", "KILL");
        same("FUNCTION", "DELETE", "nope");
        same("FUNCTION", "FLUSH", "x");
        same("FUNCTION", "FLUSH", "async");
        same("FUNCTION", "FLUSH", "SYNC");
        same("FUNCTION", "FLUSH", "a", "b");
        same("FUNCTION", "HELP");
        same("FUNCTION", "STATS");
        same("FUNCTION", "DUMP");
        same("FUNCTION", "RESTORE", "x", "y", "z", "w");
        same("FUNCTION", "RESTORE", "x", "bad");
        same("FUNCTION", "RESTORE", "xxxxxxxxxxxxx");
        same("FUNCTION", "RESTORE", "short");
        same("FUNCTION", "NOPE");
        same("FUNCTION");
        same("FUNCTION", "DELETE");
        same("FUNCTION", "KILL", "x");
    }

    private static final String BIG_LIB = lib("bigl", """
            redis.register_function('bf1', function(keys, args) return 1 end)
            redis.register_function('bf2', function(keys, args) return 2 end)
            redis.register_function('bf3', function(keys, args) return 3 end)
            redis.register_function{function_name='bf4', callback=function(keys, args) return 4 end, flags={'no-writes'}}
            """);
    private static final String SMALL_LIB = lib("smalll", "redis.register_function('s', function() return 's' end)");

    @Test
    void functionDump_fromRedis_restoresIntoTideAndBack() throws IOException {
        try (Jedis redis = new Jedis("127.0.0.1", redis().port()); Jedis tide = new Jedis("127.0.0.1", tide().port())) {
            redis.functionLoad(BIG_LIB);
            redis.functionLoad(SMALL_LIB);
            byte[] fromRedis = redis.functionDump();
            assertThat(tide.functionRestore(fromRedis)).isEqualTo("OK");
            assertThat(tide.fcall("bf3", java.util.List.of(), java.util.List.of())).isEqualTo(3L);
            assertThat(tide.fcallReadonly("bf4", java.util.List.of(), java.util.List.of())).isEqualTo(4L);
            same("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "smalll");
            same("FUNCTION", "STATS");
            // Restoring again collides; REPLACE and FLUSH accept it.
            same("FUNCTION", "RESTORE", "x");
            assertThatRestoreFails(tide, fromRedis, FunctionRestorePolicy.APPEND, "ERR Library ");
            assertThatRestoreFails(redis, fromRedis, FunctionRestorePolicy.APPEND, "ERR Library ");
            assertThat(tide.functionRestore(fromRedis, FunctionRestorePolicy.REPLACE)).isEqualTo("OK");
            assertThat(tide.functionRestore(fromRedis, FunctionRestorePolicy.FLUSH)).isEqualTo("OK");

            byte[] fromTide = tide.functionDump();
            assertThat(redis.functionRestore(fromTide, FunctionRestorePolicy.FLUSH)).isEqualTo("OK");
            assertThat(redis.fcall("bf1", java.util.List.of(), java.util.List.of())).isEqualTo(1L);
            assertThat(redis.fcallReadonly("bf4", java.util.List.of(), java.util.List.of())).isEqualTo(4L);
            same("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "smalll");
            same("FUNCTION", "STATS");
        }
    }

    @Test
    void functionDump_empty_isRedisBytes() throws IOException {
        try (Jedis redis = new Jedis("127.0.0.1", redis().port()); Jedis tide = new Jedis("127.0.0.1", tide().port())) {
            assertThat(tide.functionDump()).isEqualTo(redis.functionDump());
            byte[] corrupt = redis.functionDump();
            corrupt[corrupt.length - 1] ^= 1;
            assertThatRestoreFails(tide, corrupt, FunctionRestorePolicy.APPEND, "ERR DUMP payload version or checksum are wrong");
        }
    }

    private static void assertThatRestoreFails(Jedis j, byte[] payload, FunctionRestorePolicy policy, String prefix) {
        try {
            j.functionRestore(payload, policy);
            throw new AssertionError("restore succeeded");
        } catch (redis.clients.jedis.exceptions.JedisDataException e) {
            assertThat("ERR " + e.getMessage().replaceFirst("^ERR ", "")).startsWith(prefix);
        }
    }
}
