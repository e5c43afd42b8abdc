package io.tide.config;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * CONFIG SET of values at the edges of each parameter's type, then CONFIG GET, against redis-server 7.0: the same
 * reply (errors included) and the same value afterwards. Each parameter is put back to its value before.
 */
class ConfigSetVsRedisTest extends VsRedis {

    private static List<String> setAndGet(RawClient c, String param, String value) throws Exception {
        String before = c.call("CONFIG", "GET", param);
        List<String> out = List.of(c.call("CONFIG", "SET", param, value), c.call("CONFIG", "GET", param));
        String[] lines = before.split("\r\n");
        c.call("CONFIG", "SET", param, lines[lines.length - 1]);
        return out;
    }

    @Test
    void edgeValues_areTakenCappedOrRefusedAsRedisDoes() throws Exception {
        String[][] cases = {
                {"appendfsync", "x"},                       // the choices in Redis's order
                {"rdbchecksum", "no"},                      // immutable
                {"hz", "0"}, {"hz", "1000"},                // capped to 1..500
                {"repl-backlog-size", "100"},               // at least 16 KB
                {"repl-backlog-size", "0"},
                {"repl-backlog-ttl", "2147483648"},         // 64-bit
                {"acllog-max-len", "2147483648"},
                {"maxmemory-samples", "100"}, {"maxmemory-samples", "0"},
                {"hash-max-listpack-value", "1k"},          // memory values
                {"zset-max-ziplist-value", "x"},
                {"auto-aof-rewrite-min-size", ""},          // no digits read as 0
                {"hll-sparse-max-bytes", "kb"},
                {"proto-max-bulk-len", ""},                 // 0, then the range
                {"stream-node-max-bytes", ""},
                {"maxmemory-clients", ""},
        };
        List<String> differ = new ArrayList<>();
        for (String[] c : cases) {
            List<String> expected = setAndGet(r(), c[0], c[1]);
            List<String> actual = setAndGet(t(), c[0], c[1]);
            if (!actual.equals(expected)) differ.add(c[0] + " '" + c[1] + "': redis " + expected + " tide " + actual);
        }
        assertThat(differ).isEmpty();
    }
}
