package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 14's "scripting isolation", compared byte for byte with a real redis-server: scripts cannot change the
 * environment later scripts see, SELECT in a script stays in the script, blocking commands do not block, and
 * numbers convert as Redis converts them. Not thread-safe (one JUnit thread).
 */
class ScriptIsolationVsRedisTest extends VsRedis {

    ScriptIsolationVsRedisTest() {
        super("iso");
    }

    private final List<String> mismatches = new ArrayList<>();

    /** Sends EVAL script 0 to both servers; records a mismatch instead of failing at once, to see every case. */
    private void eval(String script, String... keysAndArgs) throws IOException {
        String[] argv = new String[keysAndArgs.length + 2];
        argv[0] = "EVAL";
        argv[1] = script;
        System.arraycopy(keysAndArgs, 0, argv, 2, keysAndArgs.length);
        cmd(argv);
    }

    private void cmd(String... argv) throws IOException {
        String expected = r().call(argv);
        String actual = t().call(argv);
        if (!actual.equals(expected)) {
            mismatches.add(String.join(" ", argv).replace("\n", "\\n") + "\n   redis: " + expected.replace("\r\n", "\\r\\n")
                + "\n   tide:  " + actual.replace("\r\n", "\\r\\n"));
        }
    }

    @org.junit.jupiter.api.BeforeEach
    void clearMismatches() {
        mismatches.clear();
    }

    private void check() {
        assertThat(mismatches).as("replies that differ from Redis").isEmpty();
    }

    @Test
    void globalsAndLibraryTables_areReadOnly() throws IOException {
        for (String s : new String[] {
            "redis = nil", "pcall = nil", "cjson = 1", "string = nil", "bit = nil", "cmsgpack = nil", "math = nil",
            "table = nil", "struct = nil", "newglobal = 1", "KEYS = {}", "ARGV = {}", "_G = {}",
            "redis.call = function() return 1 end", "redis.x = 1", "cjson.encode = nil", "string.rep = nil",
            "math.floor = nil", "table.insert = nil", "bit.band = nil", "cmsgpack.pack = nil", "struct.pack = nil",
            "cjson.null = 1", "_G.x = 1", "_G.redis = nil", "return _G.x", "return x", "return rawget(_G, 'x')",
            "rawset(_G, 'x', 1)", "rawset(redis, 'call', 1)", "rawset(string, 'rep', 1)", "rawset(cjson, 'encode', 1)",
            "setmetatable(_G, nil)", "setmetatable(redis, {})", "setmetatable(string, nil)", "return type(getmetatable(_G))",
            "getmetatable(_G).__index = nil", "getmetatable(_G).__newindex = nil", "getmetatable('').__index = nil",
            "getmetatable('').__index.rep = nil", "getmetatable('').x = 1", "return type(getmetatable(''))",
            "return type(getmetatable('').__index)", "return getmetatable('').__index == string",
            "KEYS[1] = 'x'", "table.insert(ARGV, 'y') return ARGV", "return getmetatable(redis)",
            "local t = {} t.x = 1 return t.x", "local s = string s.rep = nil", "setfenv(1, {})",
            "return type(getfenv(1))", "getfenv(1).x = 1", "getfenv(0).x = 1",
            "return {pcall(function() redis = nil end)}", "return {pcall(function() string.rep = nil end)}",
            "return {pcall(function() x = 1 end)}", "return {pcall(function() return x end)}",
            "table.insert(string, 'x')", "table.remove(redis)", "table.sort(cjson)", "table.insert(KEYS, 'k') return KEYS",
            "setmetatable(getmetatable(''), nil)", "rawset(getmetatable(''), '__index', {})",
            "rawset(getmetatable(_G), '__index', nil)", "rawset(getmetatable(_G), '__newindex', nil)",
            "coroutine.x = 1", "return type(coroutine)", "local s = getmetatable('').__index return s == string",
            "for k, v in pairs(redis) do redis[k] = nil end", "local t = redis t.call = nil",
            "return {pcall(rawset, redis, 'x', 1)}", "return {pcall(setmetatable, _G, {})}",
        }) {
            eval(s, "0");
        }
        check();
    }

    @Test
    void removedAndKeptGlobals_matchRedis() throws IOException {
        for (String g : new String[] {"print", "loadfile", "dofile", "load", "loadstring", "require", "module",
            "package", "io", "os", "debug", "coroutine", "setfenv", "getfenv", "newproxy", "gcinfo", "collectgarbage",
            "xpcall", "select", "rawequal", "rawlen", "unpack", "_VERSION", "struct", "cmsgpack", "bit", "cjson",
            "math", "table", "string", "string.dump", "string.gfind", "table.getn", "table.pack", "table.unpack",
            "math.pow", "math.ldexp", "math.mod", "math.log10", "os.time", "os.clock"}) {
            eval("return type(" + g + ")", "0");
        }
        eval("return _VERSION", "0");
        eval("return loadstring('return 1')()", "0");
        eval("return {loadstring('\\27Lua')}", "0");
        eval("return {loadstring(string.dump(function() return 1 end))}", "0");
        eval("return {pcall(loadstring, '\\27Lua')}", "0");
        eval("return {load('return 1')}", "0");
        check();
    }

    @Test
    void clobberingScript_doesNotChangeLaterScripts() throws IOException {
        String[] attacks = {"redis.call = function() return 'pwned' end", "string.rep = function() return 'pwned' end",
            "cjson.encode = function() return 'pwned' end", "rawset(redis, 'call', function() return 'pwned' end)",
            "rawset(string, 'rep', function() return 'pwned' end)", "getmetatable('').__index.rep = function() return 'pwned' end",
            "setmetatable(string, {__index = function() return 'pwned' end})",
            "pcall(function() rawset(_G, 'redis', {call = function() return 'pwned' end}) end)",
            "pcall(function() rawset(_G, 'tostring', function() return 'pwned' end) end)",
            "pcall(function() local m = getmetatable(_G) m.__index = function() return 'pwned' end end)",
            "pcall(function() rawset(_G, 'newg', 'pwned') end)"};
        try (RawClient other = new RawClient(tide().port()); RawClient otherRedis = new RawClient(redis().port())) {
            for (String a : attacks) {
                eval(a, "0");
                String check = "return {redis.call('ping')['ok'], ('x'):rep(2), string.rep('y', 2), cjson.encode({1}), tostring(1), type(newg)}";
                String exp = otherRedis.call("EVAL", check, "0");
                String act = other.call("EVAL", check, "0");
                if (!act.equals(exp)) mismatches.add("after " + a + "\n   redis: " + exp + "\n   tide:  " + act);
            }
        }
        check();
    }

    @Test
    void functions_cannotChangeTheEnvironmentEither() throws IOException {
        cmd("FUNCTION", "FLUSH");
        cmd("FUNCTION", "LOAD", "#!lua name=clob\n"
            + "redis.register_function('clob_rep', function() string.rep = nil end)\n"
            + "redis.register_function('clob_call', function() redis.call = nil end)\n"
            + "redis.register_function('clob_raw', function() rawset(string, 'rep', nil) end)\n"
            + "redis.register_function('clob_g', function() newg = 1 end)\n"
            + "redis.register_function('read_g', function() return newg end)\n"
            + "redis.register_function('check', function() return {string.rep('a', 2), redis.call('ping')['ok']} end)");
        for (String f : new String[] {"clob_rep", "clob_call", "clob_raw", "clob_g", "read_g", "check"}) {
            cmd("FCALL", f, "0");
        }
        cmd("FUNCTION", "LOAD", "#!lua name=clob2\nredis.call = nil");
        cmd("FUNCTION", "LOAD", "#!lua name=clob3\nrawset(redis, 'x', 1)");
        cmd("FUNCTION", "LOAD", "#!lua name=clob4\nstring.rep = nil");
        cmd("FCALL", "check", "0");
        cmd("FUNCTION", "FLUSH");
        check();
    }

    @Test
    void selectInScript_changesOnlyTheScriptsDatabase() throws IOException {
        String k = k("sel");
        cmd("SELECT", "0");
        eval("redis.call('select', 1) redis.call('set', KEYS[1], 'v') return redis.call('get', KEYS[1])", "1", k);
        cmd("GET", k);
        cmd("CLIENT", "INFO"); // not compared byte for byte below; see db= check
        mismatches.removeIf(m -> m.startsWith("CLIENT INFO"));
        String info = t().call("CLIENT", "INFO");
        if (!info.contains(" db=0 ")) mismatches.add("tide's caller left db 0: " + info);
        cmd("SELECT", "1");
        cmd("GET", k);
        eval("return redis.call('get', KEYS[1])", "1", k);
        eval("redis.call('select', 0) return redis.call('get', KEYS[1])", "1", k);
        cmd("GET", k);
        cmd("DEL", k);
        cmd("SELECT", "0");
        eval("redis.call('select', 99)", "0");
        eval("return redis.pcall('select', 'x')", "0");
        check();
    }

    @Test
    void blockingCommands_inScripts_matchRedis() throws IOException {
        String l = k("{b}l");
        String l2 = k("{b}l2");
        String z = k("{b}z");
        String x = k("{b}x");
        String[] scripts = {
            "return redis.call('blpop', KEYS[1], 0)", "return redis.call('brpop', KEYS[1], 0)",
            "return redis.call('brpoplpush', KEYS[1], KEYS[2], 0)",
            "return redis.call('blmove', KEYS[1], KEYS[2], 'left', 'right', 0)",
            "return redis.call('blmpop', 0, 1, KEYS[1], 'left')",
            "return redis.call('bzpopmin', KEYS[3], 0)", "return redis.call('bzpopmax', KEYS[3], 0)",
            "return redis.call('bzmpop', 0, 1, KEYS[3], 'min')",
            "return redis.call('xread', 'block', 0, 'streams', KEYS[4], '$')",
            "return redis.call('xread', 'block', 0, 'streams', KEYS[4], '0')",
            "return redis.call('xread', 'count', 1, 'streams', KEYS[4], '0')",
            "return redis.pcall('xreadgroup', 'group', 'g', 'c', 'block', 0, 'streams', KEYS[4], '>')",
            "return redis.call('xreadgroup', 'group', 'g', 'c', 'block', 0, 'streams', KEYS[4], '>')",
            "return redis.call('blpop', KEYS[1], 'x')",
            "return redis.call('blpop', KEYS[1], -1)",
        };
        for (String s : scripts) eval(s, "4", l, l2, z, x);
        // WAIT: compared where Tide's table has the command (a refusal must then be Redis's, not "Unknown").
        if (!t().call("EVAL", "return redis.pcall('wait', 0, 0)", "0").contains("Unknown Redis command")) {
            eval("return redis.call('wait', 0, 0)", "0");
        }
        cmd("RPUSH", l, "a", "b", "c");
        cmd("ZADD", z, "1", "m", "2", "n", "3", "o");
        cmd("XADD", x, "1-1", "f", "v");
        cmd("XGROUP", "CREATE", x, "g", "0");
        for (String s : scripts) eval(s, "4", l, l2, z, x);
        check();
    }

    @Test
    void numbers_convertAsRedis() throws IOException {
        String k = k("n");
        String[] values = {"1796147000000*4096+7", "0.1", "1/3", "-0.5", "3.0", "1e15", "1e16", "1e17", "2^53", "2^53+1",
            "2^63", "-2^63", "1e100", "1e-5", "0.0003", "123456789.123", "1/0", "-1/0", "100", "9007199254740991",
            "12345678901234567890", "0.1+0.2", "1.5"};
        for (String v : values) {
            eval("redis.call('set', KEYS[1], " + v + ") return redis.call('get', KEYS[1])", "1", k);
            eval("return redis.pcall('echo', " + v + ")", "0");
            eval("return tostring(" + v + ")", "0");
            // `..` is LuaJ's own (LuaDouble's text); only redis.call, tostring, string.format and table.concat
            // can be given Lua 5.1's "%.14g" from io.tide.script.
            eval("return table.concat({" + v + ", 'x', " + v + "}, ',')", "0");
            eval("return string.format('%s', " + v + ")", "0");
            eval("return cjson.encode(" + v + ")", "0");
            eval("return cjson.encode({" + v + "})", "0");
            eval("return cmsgpack.pack(" + v + ")", "0");
        }
        eval("return {redis.call('incrbyfloat', KEYS[1], 0.1)}", "1", k("f"));
        eval("return redis.call('zadd', KEYS[1], 0.1, 'a')", "1", k("z"));
        eval("return redis.call('zrange', KEYS[1], 0, -1)", "1", k("z"));
        for (String json : new String[] {"1", "1.5", "1e2", "0.1", "12345678901234567890", "1E400", "[1e15]",
            "9007199254740993", "0.0003", "[1,2.25e-3]"}) {
            eval("local v = cjson.decode(ARGV[1]) return {type(v) == 'number' and tostring(v) or type(v), cjson.encode(v)}", "0", json);
        }
        for (String bad : new String[] {"return cjson.decode('{')", "return cjson.decode('[1,')", "local x = cjson.decode('x') return x",
            "return cjson.encode(function() end)", "local s = cjson.encode({1/0}) return s", "return cjson.decode()", "return cjson.encode()", "return cjson.encode(1, 2)",
            "return cjson.encode_number_precision(1, 2)", "return cjson.decode('[1 2]')",
            "return cjson.decode('{\"a\" 1}')", "return cjson.decode('{\"a\":1 [}')", "return cjson.decode('[1] x')",
            "return cjson.decode('[1] true')", "return cjson.decode('{1:2}')", "return cjson.decode('[1,]')"}) {
            eval(bad, "0");
        }
        eval("cjson.encode_number_precision(17) return cjson.encode(0.1)", "0");
        eval("return cjson.encode_number_precision(3)", "0");
        eval("return cjson.encode(0.1)", "0");
        eval("return cjson.encode_number_precision(0)", "0");
        eval("return cjson.encode_number_precision(15)", "0");
        eval("return cjson.encode(1/3)", "0");
        eval("return cjson.encode_number_precision(14)", "0");
        eval("return cjson.encode(1/3)", "0");
        check();
    }

    /** The raw bytes of one reply that ends with {@code last}, read without parsing (deep replies nest 8000 levels). */
    private static byte[] rawReply(int port, String script, String last) throws IOException {
        try (java.net.Socket s = new java.net.Socket("127.0.0.1", port)) {
            s.setSoTimeout(3_000);
            byte[] body = script.getBytes(java.nio.charset.StandardCharsets.UTF_8);
            String req = "*3\r\n$4\r\nEVAL\r\n$" + body.length + "\r\n" + script + "\r\n$1\r\n0\r\n";
            s.getOutputStream().write(req.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            byte[] buf = new byte[65536];
            byte[] end = last.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            while (true) {
                int n;
                try {
                    n = s.getInputStream().read(buf);
                } catch (java.net.SocketTimeoutException e) {
                    break;
                }
                if (n < 0) break;
                out.write(buf, 0, n);
                byte[] got = out.toByteArray();
                if (got.length >= end.length
                        && java.util.Arrays.equals(got, got.length - end.length, got.length, end, 0, end.length)) {
                    return got;
                }
            }
            return out.toByteArray();
        }
    }

    @Test
    void recursiveTable_repliesAsRedis() throws IOException {
        for (String script : new String[] {"local t = {} t[1] = t return t", "local t = {1} t[2] = t return t",
            "local t = {} local c = t for i = 1, 7993 do c[1] = {} c = c[1] end c[1] = 'leaf' return t"}) {
            String last = script.contains("leaf") ? "leaf\r\n" : "-ERR reached lua stack limit\r\n";
            byte[] expected = rawReply(redis().port(), script, last);
            byte[] actual = rawReply(tide().port(), script, last);
            String tail = new String(actual, Math.max(0, actual.length - 120), Math.min(actual.length, 120),
                    java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(actual.length).as(script + " ends " + tail).isEqualTo(expected.length);
            assertThat(actual).as(script).isEqualTo(expected);
        }
    }

    @Test
    void replyTablesAndLimits_matchRedis() throws IOException {
        for (String s : new String[] {
            "return redis.error_reply('My Error')", "return redis.error_reply('-My Error')", "return redis.error_reply('')",
            "return redis.error_reply()", "return redis.error_reply('a', 'b')", "return type(redis.error_reply('x'))",
            "return redis.error_reply('x')['err']", "return redis.status_reply('x')['ok']", "return redis.status_reply()",
            "return redis.status_reply('')", "return redis.status_reply(1)",
            "local r = redis.pcall('nosuch') return {type(r), r.err}", "return redis.pcall('nosuch')",
            "local r = redis.pcall('incr', 'a', 'b') return r.err", "return {pcall(redis.call, 'nosuch')}",
            "local ok, e = pcall(redis.call, 'nosuch') return {type(e), e.err}",
            "local ok, e = pcall(error, {err='X y'}) return e.err", "error({err='X y'})",
            "error({err=1})", "error('plain')", "error(12)", "error(true)",
            // (Redis 7.0.15 itself crashes on error({}) and error({ok='x'}): not compared.)
            "return #{unpack({}, 1, 7999)}", "return select('#', unpack({}, 1, 8000))", "return {unpack({}, 1, 10000)}",
            "local t = {} for i = 1, 8000 do t[i] = i end return #{unpack(t)}", "return #{unpack({}, 1, 7000)}",
            "return {err='x', 1, 2}", "return {ok='x', 1}", "return {1, {err='inner'}, 3}",
            "return {1, redis.error_reply('inner'), 3}", "return {1, {ok='fine'}, 3}",
        }) {
            eval(s, "0");
        }
        check();
    }
}
