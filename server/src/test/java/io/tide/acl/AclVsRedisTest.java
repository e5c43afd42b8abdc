package io.tide.acl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * ACL against a real redis-server 7.0, reply by reply: SETUSER rules and their errors, GETUSER and LIST descriptions,
 * DRYRUN, CAT, and the checks themselves (commands, keys with read/write patterns, channels, at the top level, inside
 * MULTI and inside a script), AUTH with a user name through Jedis, and DELUSER closing the user's connections.
 * Redis lists single-command rules in its command dictionary's order, which depends on a per-process hash seed: each
 * description's +cmd/-cmd rules are compared as a set, everything else in order.
 */
class AclVsRedisTest extends VsRedis {

    /** A raw reply with the single-command rules of each line sorted (their order is Redis's hash order). */
    private static String normal(String raw) {
        StringBuilder out = new StringBuilder();
        for (String line : raw.split("\r\n", -1)) {
            String[] tokens = line.split(" ");
            List<Integer> at = new ArrayList<>();
            List<String> singles = new ArrayList<>();
            for (int i = 0; i < tokens.length; i++) {
                String t = tokens[i].replace(")", "");
                if ((t.startsWith("+") || t.startsWith("-")) && t.length() > 1 && t.charAt(1) != '@'
                        && !t.matches("[+-]?\\d+")) {
                    at.add(i);
                    singles.add(tokens[i]);
                }
            }
            singles.sort(null);
            for (int i = 0; i < at.size(); i++) tokens[at.get(i)] = singles.get(i);
            out.append(String.join(" ", tokens)).append("\r\n");
        }
        return out.toString();
    }

    /** Whether redis-server has no such subcommand ("client|setinfo" in 7.0). */
    private boolean unknownToRedis(String fullName) {
        try {
            return r().call("COMMAND", "INFO", fullName).equals("*1\r\n$-1\r\n");
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** The bulk strings of a flat raw array reply. */
    private static List<String> bulks(String raw) {
        List<String> out = new ArrayList<>();
        for (String line : raw.split("\r\n")) if (!line.startsWith("*") && !line.startsWith("$")) out.add(line);
        return out;
    }

    private String sameNormal(String... args) throws IOException {
        String redis = normal(r().call(args));
        assertThat(normal(t().call(args))).as(String.join(" ", args)).isEqualTo(redis);
        return redis;
    }

    private String[] cmd(String... parts) {
        return parts;
    }

    /** A raw GETUSER or LIST reply with each command-rule description replaced (compared apart, by its effect). */
    private static String withoutCommandRules(String raw) {
        return raw.replaceAll("(\\$8\r\ncommands\r\n)\\$\\d+\r\n[^\r]*", "$1<rules>")
                .replaceAll("([+-]@all)( [^()\r]*?)?(?=( \\(|\\)|\r))", "<rules>");
    }

    /**
     * Each user's rules have the same effect on both servers: ACL DRYRUN of every command Tide has (with arguments
     * that name only keys the user may use) gives the same answer.
     */
    private void sameEffect(String user) throws IOException {
        for (io.tide.command.CommandSpec spec : tide().context().table().all()) {
            List<io.tide.command.CommandSpec> specs = new ArrayList<>();
            if (spec.isContainer()) specs.addAll(spec.subcommands().values());
            else specs.add(spec);
            for (io.tide.command.CommandSpec c : specs) {
                List<String> args = new ArrayList<>(List.of("ACL", "DRYRUN", user));
                args.addAll(Arrays.asList(c.fullName().split("\\|")));
                int arity = Math.abs(c.arity());
                while (args.size() - 3 < arity) args.add("app:1");
                String redis = r().call(args.toArray(String[]::new));
                if (redis.startsWith("-ERR Command")) continue; // a command Redis 7.0 does not have
                assertThat(t().call(args.toArray(String[]::new))).as(String.join(" ", args)).isEqualTo(redis);
            }
        }
    }

    @Test
    void setUserRules_haveRedisEffect_andDescribeAsRedis() throws Exception {
        String u = "rules" + prefix().replace(":", "");
        List<String[]> script = List.of(
                cmd("ACL", "SETUSER", u),
                cmd("ACL", "SETUSER", u, "on", ">pw1", ">pw2", "~app:*", "%R~ro:*", "&chan:*", "+@read", "-get",
                        "+set", "+config|get", "-@dangerous"),
                cmd("ACL", "SETUSER", u, "<pw1", "%W~wo:*", "%RW~both:*", "~app:*"),
                cmd("ACL", "SETUSER", u, "+@hash", "-hdel", "+client|id", "+select|0"),
                cmd("ACL", "SETUSER", u, "(+get", "~sel:*)", "(+@string", "-@write", "&x)"),
                cmd("ACL", "SETUSER", u, "#" + "a".repeat(64), "!" + "a".repeat(64)),
                cmd("ACL", "SETUSER", u, "skip-sanitize-payload"),
                cmd("ACL", "SETUSER", u + "b", "on", "nopass", "allkeys", "allchannels", "allcommands", "-get"),
                cmd("ACL", "SETUSER", u + "c", "reset", "+@all", "-@admin", "~*"),
                cmd("ACL", "SETUSER", u + "d", "on", "nocommands", "+@pubsub", "+@connection", "resetchannels"));
        for (String[] c : script) same(c);
        for (String name : List.of(u, u + "b", u + "c", u + "d")) {
            assertThat(withoutCommandRules(t().call("ACL", "GETUSER", name))).as(name)
                    .isEqualTo(withoutCommandRules(r().call("ACL", "GETUSER", name)));
            sameEffect(name);
        }
        same("ACL", "GETUSER", "nosuchuser" + u);
        same("ACL", "SETUSER", u, "clearselectors", "resetkeys", "resetpass", "nopass");
        assertThat(withoutCommandRules(t().call("ACL", "GETUSER", u)))
                .isEqualTo(withoutCommandRules(r().call("ACL", "GETUSER", u)));
        protocol(3);
        assertThat(withoutCommandRules(t().call("ACL", "GETUSER", u)))
                .isEqualTo(withoutCommandRules(r().call("ACL", "GETUSER", u)));
        // Simple rule lists read back exactly as Redis writes them.
        for (List<String> rules : List.of(List.of("+@read"), List.of("+@read", "-get"), List.of("+@hash", "-hdel"),
                List.of("+@read", "-keys"), List.of("+get", "+@read"), List.of("+@all", "-get"), List.of("+get", "+set"),
                List.of("+client|id", "+acl|whoami"), List.of("+@all", "-config|set"))) {
            List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", u + "e", "reset"));
            args.addAll(rules);
            same(args.toArray(String[]::new));
            sameNormal("ACL", "GETUSER", u + "e");
        }
        same("ACL", "DELUSER", u, u + "b", u + "c", u + "d", u + "e", "nosuchuser");
        assertThat(withoutCommandRules(t().call("ACL", "LIST"))).isEqualTo(withoutCommandRules(r().call("ACL", "LIST")));
        same("ACL", "USERS");
    }

    /**
     * Read-only and write-only key patterns: ACL DRYRUN of every command Tide shares with Redis 7.0, its key
     * arguments all matching one pattern, gives Redis's answer (each key's access/insert/delete/update flags decide).
     */
    @Test
    void readAndWritePatterns_followEachCommandsKeyFlags() throws Exception {
        String u = "rw" + prefix().replace(":", "");
        same("ACL", "SETUSER", u, "on", "nopass", "%R~r:*", "%W~w:*", "+@all");
        List<String> differ = new ArrayList<>();
        for (io.tide.command.CommandSpec spec : tide().context().table().all()) {
            List<io.tide.command.CommandSpec> specs = new ArrayList<>();
            if (spec.isContainer()) specs.addAll(spec.subcommands().values());
            else specs.add(spec);
            for (io.tide.command.CommandSpec c : specs) {
                // PFMERGE with its destination alone: Redis 7.0 finds no keys (its second key spec fails), so it
                // neither reports nor checks one; Tide checks the destination.
                if (!c.hasKeys() || c.fullName().equals("pfmerge")) continue;
                for (String key : List.of("r:1", "w:1")) {
                    List<String> args = new ArrayList<>(List.of("ACL", "DRYRUN", u));
                    args.addAll(Arrays.asList(c.fullName().split("\\|")));
                    int arity = Math.abs(c.arity());
                    while (args.size() - 3 < arity) args.add(key);
                    String redis = r().call(args.toArray(String[]::new));
                    if (redis.startsWith("-ERR Command")) continue;
                    String tide = t().call(args.toArray(String[]::new));
                    if (!tide.equals(redis)) differ.add(String.join(" ", args.subList(3, args.size())) + " => redis "
                            + redis.trim() + " tide " + tide.trim());
                }
            }
        }
        assertThat(differ).isEmpty();
    }

    @Test
    void setUserErrors_asRedis() throws Exception {
        String u = "errs" + prefix().replace(":", "");
        for (String rule : List.of("+nosuch", "+@nosuch", "bogus", "%X~a", "%~a", "<nopw", "#abc", "!abc",
                "-get|x", "+config|nosuch", "+config|get|x", "(", "(+get", "%R", "allkeys ~a",
                "+", "-", "+get|", "+config|", "-config|get|x", "+select|0|1", "+|")) {
            String[] args = new ArrayList<>(List.of("ACL", "SETUSER", u)) {{ addAll(Arrays.asList(rule.split(" "))); }}
                    .toArray(String[]::new);
            same(args);
        }
        same("ACL", "SETUSER", u, "allkeys", "~x");
        same("ACL", "SETUSER", u, "allchannels", "&x");
        same("ACL", "GETUSER", u); // the failed rules changed nothing
        same("ACL", "DELUSER", "default");
        same("ACL", "CAT", "nosuch");
        same("ACL", "GENPASS", "0");
        same("ACL", "GENPASS", "5000");
        same("ACL", "GENPASS", "x");
        same("ACL", "GENPASS", "1", "2");
        same("ACL", "CAT", "hash", "extra");
        same("ACL", "CAT");
        assertThat(t().call("ACL", "GENPASS")).matches("\\$64\r\n[0-9a-f]{64}\r\n");
        assertThat(t().call("ACL", "GENPASS", "10")).matches("\\$3\r\n[0-9a-f]{3}\r\n");
        List<String> redisCommands = bulks(r().call("COMMAND", "LIST"));
        // Every category lists the same commands as Redis's, but for those Tide does not have (SCRIPT DEBUG).
        for (String category : Acl.categories()) {
            List<String> redisCat = bulks(r().call("ACL", "CAT", category));
            redisCat.removeIf(name -> tide().context().table().lookup(name.split("\\|")[0]) == null
                    || name.equals("script|debug"));
            List<String> tideCat = bulks(t().call("ACL", "CAT", category));
            tideCat.removeIf(name -> !redisCommands.contains(name.split("\\|")[0])
                    || (name.contains("|") && unknownToRedis(name))); // newer than 7.0 (HTTL, CLIENT SETINFO, ...)
            redisCat.sort(null);
            tideCat.sort(null);
            assertThat(tideCat).as(category).isEqualTo(redisCat);
        }
        same("ACL", "DELUSER", u);
    }

    @Test
    void dryRun_asRedis() throws Exception {
        String u = "dry" + prefix().replace(":", "");
        same("ACL", "SETUSER", u, "on", ">p", "~a:*", "%R~r:*", "&c:*", "+get", "+set", "+publish", "+config|get");
        for (String[] c : List.of(cmd("get", "a:1"), cmd("get", "b"), cmd("set", "r:1", "v"), cmd("get", "r:1"),
                cmd("del", "x"), cmd("publish", "zz", "m"), cmd("publish", "c:1", "m"), cmd("nocmd"), cmd("get"),
                cmd("config", "set", "x", "y"), cmd("config", "get", "x"), cmd("config", "nosub"))) {
            String[] args = new ArrayList<>(List.of("ACL", "DRYRUN", u)) {{ addAll(Arrays.asList(c)); }}
                    .toArray(String[]::new);
            same(args);
        }
        same("ACL", "DRYRUN", "nouser" + u, "get", "a");
        same("ACL", "DELUSER", u);
    }

    /** A user limited to ~app:* and +@read reads app:x and nothing else: directly, inside MULTI and in a script. */
    @Test
    void aReadOnlyUser_isHeldToItsKeys_everywhere() throws Exception {
        String u = "reader" + prefix().replace(":", "");
        same("ACL", "SETUSER", u, "on", ">secret", "~app:*", "&news", "+@read", "+@scripting", "+@transaction",
                "+publish");
        same("SET", "app:x", "1");
        same("SET", "other", "2");
        same("AUTH", u, "secret");
        same("ACL", "WHOAMI");
        same("GET", "app:x");
        same("GET", "other");
        same("SET", "app:x", "3");
        same("CONFIG", "GET", "maxmemory");
        same("PUBLISH", "news", "hi");
        same("PUBLISH", "sports", "hi");
        same("MGET", "app:x", "app:y", "other");
        same("MULTI");
        same("GET", "app:x");
        same("GET", "other");
        same("EXEC");
        same("EVAL", "return redis.call('get','app:x')", "0");
        same("EVAL", "return redis.call('get','other')", "0");
        same("EVAL", "return redis.call('set','app:x','4')", "0");
        same("EVAL", "return redis.call('publish','sports','x')", "0");
        same("AUTH", u, "wrong"); // refused: still the same user
        try (RawClient admin = new RawClient(tide().port())) {
            assertThat(admin.call("CLIENT", "LIST")).contains(" user=" + u + " ");
            assertThat(admin.call("ACL", "DELUSER", u)).isEqualTo(":1\r\n");
        }
        try (RawClient admin = new RawClient(redis().port())) {
            assertThat(admin.call("ACL", "DELUSER", u)).isEqualTo(":1\r\n");
        }
        // Its connections were closed, as Redis closes them. Tide closes a connection on its own shard's thread,
        // after DELUSER has answered: a request sent at once may still find it open, the next ones do not.
        assertThatThrownBy(() -> r().call("PING")).isInstanceOf(IOException.class);
        long deadline = System.currentTimeMillis() + 2000;
        boolean closed = false;
        while (!closed && System.currentTimeMillis() < deadline) {
            try {
                t().call("PING");
                Thread.sleep(20);
            } catch (IOException e) {
                closed = true;
            }
        }
        assertThat(closed).as("the deleted user's connection to Tide is closed").isTrue();
    }

    /** A raw ACL LOG reply with each entry's age and client-info values replaced (they differ by nature). */
    private static String withoutAgeAndClient(String raw) {
        String[] tokens = raw.split("\r\n", -1);
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < tokens.length; i++) {
            out.append(tokens[i]).append("\r\n");
            if (tokens[i].equals("age-seconds") || tokens[i].equals("client-info")) {
                i += tokens[i + 1].startsWith("$") ? 2 : 1;
                out.append("<value>\r\n");
            }
        }
        return out.toString();
    }

    /**
     * ACL LOG as Redis 7.0 keeps it: refused commands, keys, channels and AUTH at the top level, in MULTI and in a
     * script, grouped (count) and moved to the front when repeated, newest first; LOG n, RESET and their errors; and
     * the client-info of the refused client.
     */
    @Test
    void aclLog_asRedis() throws Exception {
        String u = "logger" + prefix().replace(":", "");
        same("ACL", "LOG", "RESET");
        same("ACL", "SETUSER", u, "on", ">pw", "~a:*", "&ch", "+get", "+publish", "+@transaction", "+eval", "+acl", "+hello");
        same("AUTH", u, "pw");
        same("GET", "b");
        same("SET", "a:1", "v");
        same("PUBLISH", "other", "m");
        same("MULTI");
        same("GET", "zz");
        same("GET", "a:1");
        same("EXEC");
        same("EVAL", "return redis.call('get','q')", "0");
        same("EVAL", "return redis.call('set','a:1','x')", "0");
        same("GET", "b"); // the same refusal again: counted in its entry, which moves to the front
        same("AUTH", u, "wrong");
        same("AUTH", "nosuchuser", "x");
        for (int proto : new int[] {2, 3}) {
            protocol(proto);
            assertThat(withoutAgeAndClient(t().call("ACL", "LOG"))).as("RESP%d", proto)
                    .isEqualTo(withoutAgeAndClient(r().call("ACL", "LOG")));
            assertThat(withoutAgeAndClient(t().call("ACL", "LOG", "2")))
                    .isEqualTo(withoutAgeAndClient(r().call("ACL", "LOG", "2")));
        }
        assertThat(t().call("ACL", "LOG", "1")).contains("user=" + u).contains("cmd=auth");
        same("ACL", "LOG", "-1");
        same("ACL", "LOG", "x");
        same("ACL", "LOG", "1", "2");
        same("ACL", "LOG", "0");
        try (RawClient admin = new RawClient(tide().port()); RawClient radmin = new RawClient(redis().port())) {
            assertThat(admin.call("INFO", "stats")).contains("acl_access_denied_auth:", "acl_access_denied_cmd:",
                    "acl_access_denied_key:", "acl_access_denied_channel:");
            assertThat(admin.call("ACL", "LOG", "RESET")).isEqualTo(radmin.call("ACL", "LOG", "RESET"));
            assertThat(admin.call("ACL", "LOG")).isEqualTo(radmin.call("ACL", "LOG"));
            admin.call("ACL", "DELUSER", u);
            radmin.call("ACL", "DELUSER", u);
        }
    }

    /** Rules changed between MULTI's queueing and EXEC: each command is checked again, with Redis's text and log. */
    @Test
    void rulesChangedBeforeExec_refuseTheQueuedCommands_asRedis() throws Exception {
        String u = "exec" + prefix().replace(":", "");
        same("ACL", "SETUSER", u, "on", ">p", "~*", "&*", "+@all");
        same("AUTH", u, "p");
        same("MULTI");
        same("SET", "x", "1");
        same("GET", "x");
        same("SET", "zz", "2");
        same("PUBLISH", "ch", "m");
        try (RawClient ta = new RawClient(tide().port()); RawClient ra = new RawClient(redis().port())) {
            for (RawClient admin : List.of(ta, ra)) {
                assertThat(admin.call("ACL", "SETUSER", u, "-set", "resetkeys", "~x", "resetchannels"))
                        .isEqualTo("+OK\r\n");
                admin.call("ACL", "LOG", "RESET");
            }
            same("EXEC");
            assertThat(withoutAgeAndClient(ta.call("ACL", "LOG"))).isEqualTo(withoutAgeAndClient(ra.call("ACL", "LOG")));
            ta.call("ACL", "DELUSER", u);
            ra.call("ACL", "DELUSER", u);
        }
    }

    @Test
    void jedisAndLettuceLogInWithAUserName() throws Exception {
        String u = "jedis" + prefix().replace(":", "");
        same("ACL", "SETUSER", u, "on", ">pw", "~j:*", "+@all");
        for (redis.clients.jedis.RedisProtocol proto : redis.clients.jedis.RedisProtocol.values()) {
            var config = DefaultJedisClientConfig.builder().protocol(proto).user(u).password("pw").build();
            try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", tide().port()), config)) {
                assertThat(j.aclWhoAmI()).isEqualTo(u);
                assertThat(j.set("j:1", "v")).isEqualTo("OK");
                assertThatThrownBy(() -> j.set("k:1", "v")).isInstanceOf(JedisDataException.class)
                        .hasMessageStartingWith("NOPERM");
            }
            var bad = DefaultJedisClientConfig.builder().protocol(proto).user(u).password("nope").build();
            assertThatThrownBy(() -> {
                try (Jedis j = new Jedis(new HostAndPort("127.0.0.1", tide().port()), bad)) {
                    j.ping();
                }
            }).isInstanceOf(JedisDataException.class).hasMessageContaining("WRONGPASS");
        }
        for (io.lettuce.core.protocol.ProtocolVersion proto : io.lettuce.core.protocol.ProtocolVersion.values()) {
            io.lettuce.core.RedisURI uri = io.lettuce.core.RedisURI.builder().withHost("127.0.0.1")
                    .withPort(tide().port()).withAuthentication(u, "pw").build();
            io.lettuce.core.RedisClient client = io.lettuce.core.RedisClient.create(uri);
            client.setOptions(io.lettuce.core.ClientOptions.builder().protocolVersion(proto).build());
            try (var conn = client.connect()) {
                assertThat(conn.sync().aclWhoami()).as("%s", proto).isEqualTo(u);
                assertThat(conn.sync().set("j:2", "v")).isEqualTo("OK");
                assertThatThrownBy(() -> conn.sync().get("k:2")).hasMessageStartingWith("NOPERM");
            } finally {
                client.shutdown();
            }
        }
        try (Jedis j = TestServers.jedis(tide().port(), 2)) {
            assertThat(j.aclDelUser(u)).isEqualTo(1);
        }
        r().call("ACL", "DELUSER", u);
    }
}
