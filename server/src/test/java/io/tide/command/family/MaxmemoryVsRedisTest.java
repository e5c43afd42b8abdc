package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.VsRedis;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * With {@code maxmemory 1} under noeviction both servers are always over the limit with nothing to evict, so what
 * is refused with -OOM, and what keeps working, can be compared reply by reply: denyoom commands, MULTI/EXEC, scripts
 * with and without shebang flags, functions, and OBJECT FREQ/IDLETIME under LRU and LFU policies.
 */
class MaxmemoryVsRedisTest extends VsRedis {

    MaxmemoryVsRedisTest() {
        super("mm");
    }

    @BeforeEach
    void full() throws IOException {
        same("FLUSHALL");
        same("SET", k("present"), "v");
        same("CONFIG", "SET", "maxmemory-policy", "noeviction");
        same("CONFIG", "SET", "maxmemory", "1");
    }

    @AfterEach
    void unlimited() throws IOException {
        same("CONFIG", "SET", "maxmemory", "0");
        same("CONFIG", "SET", "maxmemory-policy", "noeviction");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void denyoomCommandsAreRefusedReadsAndDeletesWork(int proto) throws IOException {
        protocol(proto);
        assertThat(same("SET", k("a"), "b")).startsWith("-OOM command not allowed when used memory > 'maxmemory'.");
        same("SETNX", k("a"), "b");
        same("INCR", k("n"));
        same("APPEND", k("present"), "x");
        same("LPUSH", k("l"), "x");
        same("HSET", k("h"), "f", "v");
        same("SADD", k("s"), "m");
        same("ZADD", k("z"), "1", "m");
        same("XADD", k("x"), "*", "f", "v");
        same("GET", k("present"));
        same("EXISTS", k("present"));
        same("EXPIRE", k("present"), "100");
        same("PERSIST", k("present"));
        same("PUBLISH", "ch", "m");
        same("DEL", k("present"));
        same("DEL", k("present"));
    }

    @Test
    void transactionsAreRefusedWhileQueued() throws IOException {
        same("MULTI");
        same("GET", k("present"));
        same("SET", k("a"), "b");
        same("EXEC");
        same("MULTI");
        same("DISCARD");
        // A transaction queued before the limit was hit: EXEC of its denyoom commands is refused.
        same("CONFIG", "SET", "maxmemory", "0");
        same("MULTI");
        same("SET", k("a"), "b");
        same("GET", k("a"));
        r().call("CONFIG", "SET", "maxmemory", "1"); // from inside MULTI on each: both are queued, so use others
        try (var rAdmin = new io.tide.testing.RawClient(redis().port());
             var tAdmin = new io.tide.testing.RawClient(tide().port())) {
            rAdmin.call("CONFIG", "SET", "maxmemory", "1");
            tAdmin.call("CONFIG", "SET", "maxmemory", "1");
        }
        same("EXEC");
    }

    @Test
    void scriptsAreRefusedAsRedisRefusesThem() throws IOException {
        same("EVAL", "return redis.call('get', KEYS[1])", "1", k("present"));
        same("EVAL", "return redis.call('set', KEYS[1], 'x')", "1", k("a"));
        same("EVAL", "return redis.pcall('set', KEYS[1], 'x')", "1", k("a"));
        same("EVAL", "return redis.call('del', KEYS[1])", "1", k("nothing"));
        same("EVAL", "#!lua\nreturn redis.call('get', KEYS[1])", "1", k("present"));
        same("EVAL", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", k("present"));
        same("EVAL", "#!lua flags=allow-oom\nreturn redis.call('set', KEYS[1], 'y')", "1", k("a"));
        same("EVAL_RO", "return redis.call('get', KEYS[1])", "1", k("present"));
        same("CONFIG", "SET", "maxmemory", "0");
        same("FUNCTION", "LOAD", "REPLACE", "#!lua name=mmlib\n"
                + "redis.register_function('w', function(keys) return redis.call('set', keys[1], 'v') end)\n"
                + "redis.register_function{function_name='r', callback=function(keys) return redis.call('get', keys[1]) end, flags={'no-writes'}}\n"
                + "redis.register_function{function_name='o', callback=function(keys) return redis.call('set', keys[1], 'o') end, flags={'allow-oom'}}");
        same("CONFIG", "SET", "maxmemory", "1");
        same("FCALL", "w", "1", k("a"));
        same("FCALL", "r", "1", k("present"));
        same("FCALL", "o", "1", k("a"));
        same("CONFIG", "SET", "maxmemory", "0");
        same("FUNCTION", "DELETE", "mmlib");
    }

    @Test
    void objectFreqAndIdletimeFollowThePolicyKind() throws IOException {
        same("CONFIG", "SET", "maxmemory", "0");
        same("SET", k("f"), "v");
        same("OBJECT", "FREQ", k("f"));
        same("OBJECT", "FREQ", k("missing"));
        same("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu");
        same("OBJECT", "IDLETIME", k("f"));
        same("SET", k("g"), "v");
        same("OBJECT", "FREQ", k("g")); // a new key starts at LFU_INIT_VAL
        same("RESTORE", k("r"), "0", dump(k("g")), "FREQ", "100");
        same("OBJECT", "FREQ", k("r"));
        same("CONFIG", "SET", "maxmemory-policy", "allkeys-lru");
        same("OBJECT", "FREQ", k("g"));
    }

    /** DUMP's payload from Redis, as a string of its bytes (ISO-8859-1 round-trips every byte). */
    private String dump(String key) throws IOException {
        String raw = r().call("DUMP", key);
        String payload = raw.substring(raw.indexOf("\r\n") + 2, raw.length() - 2);
        return payload;
    }
}
