package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;

/**
 * The command table audited against redis-server 7.0's COMMAND INFO for every command both have: flags (noscript,
 * no_multi, ...), arity and ACL categories; and every command Redis flags noscript refused from a script with
 * Redis's text.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class CommandFlagsVsRedisTest {

    /** Differences on purpose: Tide routes shard channels through a key finder; ZRANK takes Redis 7.2's WITHSCORE. */
    private static final Map<String, String> KNOWN = Map.of(
            "ssubscribe", "flags", "sunsubscribe", "flags", "zrank", "arity", "zrevrank", "arity");

    private RealRedis redis;
    private Server tide;

    @BeforeAll
    void start() throws Exception {
        redis = RealRedis.start();
        tide = TestServers.start(1);
    }

    @AfterAll
    void stop() {
        if (tide != null) tide.close();
        if (redis != null) redis.close();
    }

    private record Info(long arity, List<String> flags, List<String> acl) {}

    private static String text(Object o) {
        return new String((byte[]) o, StandardCharsets.UTF_8);
    }

    private static List<String> texts(Object list) {
        List<String> out = new ArrayList<>();
        for (Object o : (List<?>) list) out.add(text(o));
        return out;
    }

    private static void walk(List<?> entry, Map<String, Info> out) {
        out.put(text(entry.get(0)), new Info((Long) entry.get(1), texts(entry.get(2)), texts(entry.get(6))));
        for (Object sub : (List<?>) entry.get(9)) walk((List<?>) sub, out);
    }

    private static Map<String, Info> commandInfo(int port) {
        Map<String, Info> out = new TreeMap<>();
        try (Jedis j = TestServers.jedis(port, 2)) {
            for (Object e : (List<?>) j.sendCommand(Protocol.Command.COMMAND, "INFO")) walk((List<?>) e, out);
        }
        return out;
    }

    @Test
    void everySharedCommand_hasRedisFlagsArityAndCategories() {
        Map<String, Info> r = commandInfo(redis.port());
        Map<String, Info> t = commandInfo(tide.port());
        List<String> differences = new ArrayList<>();
        for (var e : t.entrySet()) {
            Info ri = r.get(e.getKey());
            if (ri == null) continue; // newer than 7.0 (HGETEX, CLIENT NO-TOUCH, ...)
            Info ti = e.getValue();
            String known = KNOWN.getOrDefault(e.getKey(), "");
            if (!ri.flags().equals(ti.flags()) && !known.equals("flags")) {
                differences.add(e.getKey() + " flags " + ri.flags() + " vs " + ti.flags());
            }
            if (ri.arity() != ti.arity() && !known.equals("arity")) {
                differences.add(e.getKey() + " arity " + ri.arity() + " vs " + ti.arity());
            }
            if (!ri.acl().equals(ti.acl())) differences.add(e.getKey() + " acl " + ri.acl() + " vs " + ti.acl());
        }
        assertThat(differences).isEmpty();
        assertThat(t.get("blpop").flags()).contains("noscript");
        assertThat(t.get("save").flags()).contains("no_multi");
    }

    @Test
    void noscriptCommands_refusedFromScripts_asRedisRefusesThem() throws Exception {
        Map<String, Info> r = commandInfo(redis.port());
        Map<String, Info> t = commandInfo(tide.port());
        try (RawClient rc = new RawClient(redis.port()); RawClient tc = new RawClient(tide.port())) {
            int checked = 0;
            for (var e : r.entrySet()) {
                if (!e.getValue().flags().contains("noscript") || !t.containsKey(e.getKey())) continue;
                // The name (or container and subcommand) then dummy arguments to satisfy the arity check first.
                List<String> call = new ArrayList<>(List.of(e.getKey().split("\\|")));
                long arity = e.getValue().arity();
                long want = arity > 0 ? arity : -arity;
                while (call.size() < want) call.add("x");
                StringBuilder lua = new StringBuilder("return redis.pcall(");
                for (int i = 0; i < call.size(); i++) lua.append(i == 0 ? "'" : ", '").append(call.get(i)).append("'");
                lua.append(")");
                String expected = rc.call("EVAL", lua.toString(), "0");
                assertThat(tc.call("EVAL", lua.toString(), "0")).as(e.getKey()).isEqualTo(expected);
                assertThat(expected).as(e.getKey()).isEqualTo("-ERR This Redis command is not allowed from script\r\n");
                checked++;
            }
            assertThat(checked).isGreaterThan(50);
        }
    }
}
