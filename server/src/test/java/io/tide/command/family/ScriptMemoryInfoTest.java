package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * INFO memory's scripting fields: Redis 7.0's names in its order, and values that follow the script cache and the
 * function libraries (counts exact, sizes growing with what is cached and back to 0 after a flush).
 */
class ScriptMemoryInfoTest {

    private static final List<String> FIELDS = List.of("used_memory_lua", "used_memory_vm_eval",
            "used_memory_lua_human", "used_memory_scripts_eval", "number_of_cached_scripts", "number_of_functions",
            "number_of_libraries", "used_memory_vm_functions", "used_memory_vm_total", "used_memory_vm_total_human",
            "used_memory_functions", "used_memory_scripts", "used_memory_scripts_human");

    private static Map<String, String> memory(RawClient c) throws Exception {
        String bulk = c.call("INFO", "memory");
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : bulk.split("\r\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("$")) out.put(line.substring(0, colon), line.substring(colon + 1));
        }
        return out;
    }

    private static List<String> scriptingFields(Map<String, String> info) {
        List<String> out = new ArrayList<>();
        for (String k : info.keySet()) if (FIELDS.contains(k)) out.add(k);
        return out;
    }

    private static long n(Map<String, String> info, String field) {
        return Long.parseLong(info.get(field));
    }

    @Test
    void scriptingFields_inRedisOrder() throws Exception {
        try (RealRedis redis = RealRedis.start(); RawClient r = new RawClient(redis.port())) {
            assertThat(scriptingFields(memory(r))).containsExactlyElementsOf(FIELDS);
        }
        try (Server tide = TestServers.start(1); RawClient t = new RawClient(tide.port())) {
            assertThat(scriptingFields(memory(t))).containsExactlyElementsOf(FIELDS);
        }
    }

    @Test
    void scriptingFields_followCacheAndLibraries() throws Exception {
        try (Server tide = TestServers.start(2); RawClient t = new RawClient(tide.port())) {
            Map<String, String> empty = memory(t);
            for (String f : FIELDS) {
                assertThat(empty.get(f)).as(f).isEqualTo(f.endsWith("_human") ? "0B" : "0");
            }

            String small = "return 1";
            StringBuilder big = new StringBuilder();
            for (int i = 0; i < 200; i++) big.append("local v").append(i).append(" = redis.call('get', 'k").append(i).append("')\n");
            big.append("return 1");
            t.call("SCRIPT", "LOAD", small);
            Map<String, String> one = memory(t);
            assertThat(n(one, "number_of_cached_scripts")).isEqualTo(1);
            assertThat(n(one, "used_memory_scripts_eval")).isGreaterThanOrEqualTo(small.length() + 40);
            assertThat(n(one, "used_memory_vm_eval")).isPositive();
            assertThat(one.get("used_memory_lua")).isEqualTo(one.get("used_memory_vm_eval"));
            t.call("EVAL", big.toString(), "0");
            t.call("SCRIPT", "LOAD", small); // cached already: nothing changes
            Map<String, String> two = memory(t);
            assertThat(n(two, "number_of_cached_scripts")).isEqualTo(2);
            long bigOverhead = n(two, "used_memory_scripts_eval") - n(one, "used_memory_scripts_eval");
            assertThat(bigOverhead).isBetween((long) big.length(), big.length() + 400L);
            // 200 statements compile to at least 200 * 4 instructions of 4 bytes, plus constants.
            assertThat(n(two, "used_memory_vm_eval") - n(one, "used_memory_vm_eval")).isGreaterThan(200 * 4 * 4);
            assertThat(two.get("used_memory_lua_human")).isEqualTo(ServerCommands.human(n(two, "used_memory_vm_eval")));

            String lib = "#!lua name=memlib\nredis.register_function('f1', function() return 1 end)\n"
                    + "redis.register_function{function_name='f2', callback=function(k, a) return #k + #a end,"
                    + " description='adds'}";
            assertThat(t.call("FUNCTION", "LOAD", lib)).isEqualTo("$6\r\nmemlib\r\n");
            Map<String, String> fn = memory(t);
            assertThat(n(fn, "number_of_functions")).isEqualTo(2);
            assertThat(n(fn, "number_of_libraries")).isEqualTo(1);
            assertThat(n(fn, "used_memory_functions")).isGreaterThanOrEqualTo(lib.length());
            assertThat(n(fn, "used_memory_vm_functions")).isPositive();
            assertThat(n(fn, "used_memory_vm_total"))
                    .isEqualTo(n(fn, "used_memory_vm_eval") + n(fn, "used_memory_vm_functions"));
            assertThat(n(fn, "used_memory_scripts"))
                    .isEqualTo(n(fn, "used_memory_scripts_eval") + n(fn, "used_memory_functions"));
            assertThat(fn.get("used_memory_scripts_human")).isEqualTo(ServerCommands.human(n(fn, "used_memory_scripts")));
            assertThat(n(fn, "used_memory_vm_eval")).isEqualTo(n(two, "used_memory_vm_eval"));

            t.call("SCRIPT", "FLUSH");
            t.call("FUNCTION", "FLUSH");
            Map<String, String> flushed = memory(t);
            for (String f : FIELDS) {
                assertThat(flushed.get(f)).as(f).isEqualTo(f.endsWith("_human") ? "0B" : "0");
            }
        }
    }
}
