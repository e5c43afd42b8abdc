package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Sends the same scripts to a real redis-server and to Tide (two shards, so scripts run coordinated) and
 * asserts byte-identical replies: conversions both ways in RESP2 and RESP3, error texts with their
 * "script: sha, on @user_script:line." suffixes, shebangs, read-only scripts, SCRIPT subcommands.
 */
class ScriptCommandsVsRedisTest {

    private static RealRedis redis;
    private static Server tide;
    private static int round;

    private RawClient r;
    private RawClient t;
    private String p;

    @BeforeAll
    static void startServers() throws Exception {
        redis = RealRedis.start();
        tide = TestServers.start(2);
    }

    @AfterAll
    static void stopServers() {
        if (tide != null) tide.close();
        if (redis != null) redis.close();
    }

    @BeforeEach
    void connect() throws IOException {
        r = new RawClient(redis.port());
        t = new RawClient(tide.port());
        p = "s" + (round++) + ":";
    }

    @AfterEach
    void disconnect() throws IOException {
        r.close();
        t.close();
    }

    private void protocol(int proto) throws IOException {
        if (proto == 3) {
            assertThat(r.call("HELLO", "3")).startsWith("%");
            assertThat(t.call("HELLO", "3")).startsWith("%");
        }
    }

    private String same(String... args) throws IOException {
        String expected = r.call(args);
        String actual = t.call(args);
        assertThat(actual).as(String.join(" ", args)).isEqualTo(expected);
        return expected;
    }

    private void eval(String script, String... keysAndArgs) throws IOException {
        String[] argv = new String[keysAndArgs.length + 2];
        argv[0] = "EVAL";
        argv[1] = script;
        System.arraycopy(keysAndArgs, 0, argv, 2, keysAndArgs.length);
        same(argv);
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void eval_returnValues_convertAsRedis(int proto) throws IOException {
        protocol(proto);
        eval("return 1", "0");
        eval("return 3.99", "0");
        eval("return -3.99", "0");
        eval("return 'hello'", "0");
        eval("return true", "0");
        eval("return false", "0");
        eval("return nil", "0");
        eval("return {1,2,3,'x',false,{4,5}}", "0");
        eval("return {1,2,nil,4}", "0");
        eval("return {err='My Error'}", "0");
        eval("return {ok='fine'}", "0");
        eval("return redis.status_reply('ALL GOOD')", "0");
        eval("return redis.error_reply('boom')", "0");
        eval("return redis.error_reply('-CODE boom')", "0");
        eval("return redis.error_reply(1)", "0");
        eval("return {double=3.5}", "0");
        eval("return {map={a=1}}", "0");
        eval("return {set={x=true}}", "0");
        eval("return {big_number='123456789012345678901234567890'}", "0");
        eval("return KEYS", "2", p + "a", p + "b", "c", "d");
        eval("return ARGV", "1", p + "a", "c", "d");
        eval("return #KEYS + #ARGV", "0");
        eval("return 1e100", "0");
        eval("return {1.5, 2.5}", "0");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void redisCall_replies_convertBothWays(int proto) throws IOException {
        protocol(proto);
        same("SET", p + "s", "v");
        same("HSET", p + "h", "f", "1");
        same("RPUSH", p + "l", "a", "b");
        eval("return redis.call('get', KEYS[1])", "1", p + "s");
        eval("return redis.call('get', KEYS[1])", "1", p + "missing");
        eval("return type(redis.call('get', KEYS[1]))", "1", p + "missing");
        eval("return redis.call('set', KEYS[1], 'x')", "1", p + "s2");
        eval("return redis.call('lrange', KEYS[1], 0, -1)", "1", p + "l");
        eval("return redis.call('hgetall', KEYS[1])", "1", p + "h");
        eval("redis.setresp(3); return redis.call('hgetall', KEYS[1])", "1", p + "h");
        eval("redis.setresp(3); return redis.call('get', KEYS[1])", "1", p + "missing");
        eval("redis.setresp(3); return type(redis.call('get', KEYS[1]))", "1", p + "missing");
        eval("return redis.call('incrby', KEYS[1], 5)", "1", p + "n");
        eval("return redis.call('incrbyfloat', KEYS[1], 1.5)", "1", p + "f");
        eval("return redis.call('ping')", "0");
        eval("return redis.call('ping')['ok']", "0");
        eval("return redis.pcall('incr', KEYS[1])", "1", p + "s");
        eval("local t = redis.pcall('incr', KEYS[1]); return t.err", "1", p + "s");
        eval("return redis.call('zadd', KEYS[1], 1.5, 'a')", "1", p + "z");
        eval("return redis.call('zscore', KEYS[1], 'a')", "1", p + "z");
        eval("redis.setresp(3); return redis.call('zscore', KEYS[1], 'a')", "1", p + "z");
        eval("return redis.call('exists', KEYS[1], KEYS[2])", "2", p + "s", p + "l");
        eval("return redis.call('GET', 123)", "0");
    }

    /**
     * A command called from a script shapes its reply for the script's {@code redis.setresp}, not for the calling
     * client, as Redis's script client does: a RESP3 client's script gets ZRANGE's flat score runs unless it asked
     * for RESP3, and a RESP2 client's script that asked for RESP3 gets pairs, XREAD's map and GEOPOS's doubles.
     */
    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void commandRepliesInScripts_followSetresp_notTheClient(int proto) throws IOException {
        protocol(proto);
        same("ZADD", p + "z", "1.5", "a", "2", "b", "3", "c");
        same("ZADD", p + "one", "4", "d");
        same("HSET", p + "h", "f", "v");
        same("XADD", p + "x", "1-1", "f", "v");
        same("GEOADD", p + "g", "15.087269", "37.502669", "m");
        for (String resp : List.of("", "redis.setresp(3); ")) {
            eval(resp + "return redis.call('ZRANGE', KEYS[1], 0, -1, 'WITHSCORES')", "1", p + "z");
            eval(resp + "return redis.call('ZRANGEBYSCORE', KEYS[1], 0, 10, 'WITHSCORES')", "1", p + "z");
            eval(resp + "return redis.call('ZUNION', 1, KEYS[1], 'WITHSCORES')", "1", p + "z");
            eval(resp + "return redis.call('ZRANDMEMBER', KEYS[1], -2, 'WITHSCORES')", "1", p + "one");
            eval(resp + "return redis.call('HRANDFIELD', KEYS[1], 1, 'WITHVALUES')", "1", p + "h");
            eval(resp + "return redis.call('XREAD', 'STREAMS', KEYS[1], '0')", "1", p + "x");
            eval(resp + "return redis.call('GEOPOS', KEYS[1], 'm', 'nosuch')", "1", p + "g");
            eval(resp + "return redis.call('GEOSEARCH', KEYS[1], 'FROMLONLAT', 15, 37.5, 'BYRADIUS', 100, 'km', "
                    + "'WITHCOORD')", "1", p + "g");
            eval(resp + "local r = redis.call('GEOPOS', KEYS[1], 'm'); return type(r[1][1])", "1", p + "g");
            eval(resp + "return redis.call('ZPOPMIN', KEYS[1], 1)", "1", p + "z");
        }
    }

    @Test
    void scriptErrors_matchRedisText() throws IOException {
        same("SET", p + "s", "text");
        eval("return x", "0");
        eval("x = 1", "0");
        eval("return redis.call('nosuchcommand')", "0");
        eval("return redis.call('get')", "0");
        eval("return redis.call('incr','a','b')", "0");
        eval("return redis.call('incr', KEYS[1])", "1", p + "s");
        eval("\n\nreturn redis.call('lpush', KEYS[1], 'x')", "1", p + "s");
        eval("return redis.call('eval', 'return 1', '0')", "0");
        eval("return redis.call()", "0");
        eval("return redis.call({})", "0");
        eval("return redis.call('get', {})", "0");
        eval("error('x')", "0");
        eval("\nerror('on line two')", "0");
        eval("error({err='FOO bar'})", "0");
        eval("error(nil)", "0");
        eval("return redis.setresp(4)", "0");
        eval("return redis.setresp()", "0");
        eval("return redis.sha1hex()", "0");
        eval("return redis.log()", "0");
        eval("return redis.log('x', 'y')", "0");
        eval("return redis.log(99, 'y')", "0");
        eval("return redis.set_repl(99)", "0");
        eval("return redis.acl_check_cmd('nosuch')", "0");
        eval("return 1 +", "0");
        eval("return 1", "-1");
        eval("return 1", "2", "a");
        eval("return 1", "x");
        same("EVALSHA", "0000000000000000000000000000000000000000", "0");
        same("EVALSHA", "abc", "0");
    }

    /**
     * Runtime errors of Lua itself (arithmetic, concatenation, comparison, length, indexing, calls) on values Lua 5.1
     * has no variable name for: Redis's text word for word, position included. LuaJ words them otherwise.
     */
    @Test
    void luaRuntimeErrors_ofUnnamedValues_matchRedisText() throws IOException {
        for (String script : new String[] {
            "return tonumber(ARGV[1]) * 2", "return nil + 1", "return '1' + nil", "return 'a' + 1",
            "return math.huge % {}", "return -'x'", "return -nil",
            "return {} .. 'x'", "return 1 .. {}", "return 'a' .. nil", "return tostring(nil) .. nil",
            "return {} < {}", "return nil < 1", "return {} <= 1", "return 'x' < 1", "return 1 < 'x'",
            "return #5", "return #nil", "return (nil).x", "return (nil)[1]",
            "return (nil)()", "return (1)()", "\nreturn ({})()"}) {
            eval(script, "0", "x");
        }
    }

    /**
     * string.format is Lua 5.1's (C's printf per directive): widths, precisions and flags of every conversion, over
     * values that round, overflow a 64-bit cast and are not finite; and its errors. (Not nan's sign nor -0: LuaJ's
     * 0/0 is a positive NaN and its -0.0 a 0 before format sees them.)
     */
    @Test
    void stringFormat_matchesLua51() throws IOException {
        String[] values = {"0", "-1", "3.14159", "-2.5", "2.0005", "0.125", "1e100", "-1e-5", "2^63", "-2^63", "1/0",
            "-1/0", "255", "1e15", "99.995", "5e-324", "'12'"};
        String[] specs = {"%d", "%-5d|", "%05d", "%+d", "% d", "%.3d", "%08.3d", "%x", "%#X", "%#o", "%u", "%c", "%5c|",
            "%f", "%.0f", "%.2f", "%10.4f", "%-10.2f|", "%010.2f", "%+.1f", "%#.0f", "%e", "%12.4E", "%g", "%.3g",
            "%#g", "%G", "%.0g", "%-+8.2g|", "%.14g", "%.20g", "%.99f"};
        for (String spec : specs) {
            for (String v : values) eval("return string.format('" + spec + "', " + v + ")", "0");
        }
        for (String args : new String[] {"'%s|%5s|%-5s|%.1s|%5.2s|', 1.5, 'ab', 'ab', 'abc', 'abc'", "'%s', 1/3",
            "'%s', ('x'):rep(150)", "'%.3s', ('x'):rep(150)", "'%q', 'a\\nb\\0c\\\"d\\r'", "'%%'", "'a%'",
            "'%s'", "'%d', 'x'", "'%s', {}", "'%s', nil", "'%z', 1", "'%123d', 1", "'%1.123f', 1", "'%------d', 1",
            "'%-----d|', 1", "'%.', 1", "'%c%c', 76, 0"}) {
            eval("return string.format(" + args + ")", "0");
        }
        eval("return tonumber('0x')", "0");
    }

    @Test
    void luaEnvironment_matchesRedis() throws IOException {
        eval("return redis.sha1hex('')", "0");
        eval("return redis.sha1hex('abc')", "0");
        eval("return {redis.LOG_DEBUG, redis.LOG_VERBOSE, redis.LOG_NOTICE, redis.LOG_WARNING}", "0");
        eval("return {redis.REPL_NONE, redis.REPL_AOF, redis.REPL_REPLICA, redis.REPL_SLAVE, redis.REPL_ALL}", "0");
        eval("local r = math.random(5, 10); return r >= 5 and r <= 10 and math.random() < 1", "0");
        eval("return tostring(0.1 + 0.2)", "0");
        eval("return tostring(12345678901234)", "0");
        eval("return tostring(1/3)", "0");
        eval("return type(unpack)", "0");
        eval("return type(loadstring)", "0");
        eval("return table.getn({1,2,3})", "0");
        eval("return math.mod(7, 3)", "0");
        eval("return {bit.band(12, 10), bit.bor(12, 10), bit.bxor(12, 10), bit.lshift(1, 4), bit.tohex(255), bit.bnot(0)}", "0");
        eval("return {bit.tobit(4294967296 + 5), bit.rshift(-1, 28), bit.arshift(-256, 4), bit.tohex(-1, -4)}", "0");
        eval("return cjson.encode({1, 2, 'three', {4.5}})", "0");
        eval("return {tostring(cjson.null), type(cjson.null), tostring(cjson.decode('null'))}", "0");
        eval("return cjson.encode({})", "0");
        eval("return cjson.encode({a='x\"/\\n'})", "0");
        eval("return cjson.encode(1/3)", "0");
        eval("return cjson.decode('[1,2.5,\"x\",{\"a\":[true,false]}]')[4].a[1]", "0");
        eval("return cjson.decode('{\"a\":null}').a == cjson.null", "0");
        eval("return cjson.decode('[1,2,3]')", "0");
        eval("return cmsgpack.pack({1, 2, 'abc', {4.5}, true})", "0");
        eval("return cmsgpack.pack(1, -1, 300, -300, 70000, 5000000000, 0.25, 0.1)", "0");
        eval("return {cmsgpack.unpack(cmsgpack.pack(1, 'two', {3, 4}))}", "0");
        eval("return struct.pack('>i2<i4B', 258, 1, 7)", "0");
        eval("return {struct.unpack('>i2<i4B', struct.pack('>i2<i4B', 258, 1, 7))}", "0");
        eval("return struct.size('>i2i4Bd')", "0");
        eval("return {pcall(function() return unknown_global end)}", "0");
        eval("return redis.REDIS_VERSION ~= nil", "0");
        eval("return string.rep('ab', 3)", "0");
        eval("return {string.format('%d %s', 3, 'x')}", "0");
    }

    @Test
    void shebangsAndReadOnly_matchRedis() throws IOException {
        eval("#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'x')", "1", p + "a");
        eval("#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", p + "a");
        eval("#!lua flags=bogus\nreturn 1", "0");
        eval("#!lua foo=bar\nreturn 1", "0");
        eval("#!luax\nreturn 1", "0");
        eval("#!lua", "0");
        eval("#!lua flags=no-writes,allow-oom,allow-stale,no-cluster,allow-cross-slot-keys\nreturn 5", "0");
        eval("#!lua\nreturn redis.call('set', KEYS[1], 'y')", "1", p + "b");
        same("EVAL_RO", "return redis.call('set', KEYS[1], 'x')", "1", p + "a");
        same("EVAL_RO", "return redis.call('get', KEYS[1])", "1", p + "b");
        same("EVAL_RO", "#!lua\nreturn 1", "0");
        same("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0");
    }

    @Test
    void scriptSubcommands_matchRedis() throws IOException {
        same("SCRIPT", "FLUSH");
        String sha = same("SCRIPT", "LOAD", "return 'loaded'");
        String hex = sha.substring(sha.indexOf('\n') + 1).trim();
        same("SCRIPT", "EXISTS", hex, "0000000000000000000000000000000000000000");
        same("EVALSHA", hex, "0");
        same("EVALSHA", hex.toUpperCase(), "0");
        same("EVALSHA_RO", hex, "0");
        same("SCRIPT", "LOAD", "return 1 +");
        same("SCRIPT", "FLUSH", "foo");
        same("SCRIPT", "FLUSH", "ASYNC");
        same("SCRIPT", "EXISTS", hex);
        same("EVALSHA", hex, "0");
        same("SCRIPT", "KILL");
        same("SCRIPT", "HELP");
        same("SCRIPT", "NOSUCH");
        same("SCRIPT");
        same("EVAL", "return 1");
    }
}
