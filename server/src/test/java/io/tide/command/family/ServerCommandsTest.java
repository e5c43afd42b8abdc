package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.tide.Server;
import io.tide.Tide;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.protocol.Reply;
import io.tide.protocol.RespWriter;
import io.tide.shard.Shard;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

@ParameterizedClass
@ValueSource(ints = {1, 2})
class ServerCommandsTest {


    private final int shards;
    private Server server;

    ServerCommandsTest(int shards) {
        this.shards = shards;
    }

    @BeforeEach
    void start() {
        server = TestServers.start(shards, "--enable-debug-command", "local");
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Jedis jedis(int protocol) {
        return TestServers.jedis(server.port(), protocol);
    }

    private static String text(String s) {
        return ClientCommandsTest.text(s);
    }

    private static long stat(String info, String name) {
        for (String l : info.split("\r\n")) {
            if (l.startsWith(name + ":")) return Long.parseLong(l.substring(name.length() + 1));
        }
        throw new AssertionError("no " + name + " in " + info);
    }

    private static String raw(Jedis j, String... args) {
        String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        Object r = j.sendCommand(() -> args[0].getBytes(), rest);
        return r instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(r);
    }

    // ------------------------------------------------------------------------------------ INFO

    @Test
    void info_default_hasTheDefaultSectionsInRedisOrder() {
        try (Jedis j = jedis(2)) {
            String info = j.info();
            assertThat(info).startsWith("# Server\r\nredis_version:7.0.15\r\n").endsWith("\r\n")
                    .contains("\r\n\r\n# Clients\r\n", "\r\n\r\n# Memory\r\n", "\r\n\r\n# Persistence\r\n",
                            "\r\n\r\n# Stats\r\n", "\r\n\r\n# Replication\r\n", "\r\n\r\n# CPU\r\n",
                            "\r\n\r\n# Keyspace\r\n")
                    .doesNotContain("# Commandstats");
            assertThat(info.indexOf("# Clients")).isLessThan(info.indexOf("# Memory"));
            assertThat(info.indexOf("# CPU")).isLessThan(info.indexOf("# Keyspace"));
            assertThat(j.info("all")).contains("# Commandstats\r\n", "# Keyspace");
            assertThat(j.info("everything")).contains("# Commandstats\r\n");
            assertThat(j.info("nosuchsection")).isEmpty();
            assertThat(raw(j, "INFO", "CPU", "clients")).startsWith("# Clients\r\n").contains("\r\n\r\n# CPU\r\n");
        }
    }

    @Test
    void info_serverSection_reportsTideFacts() {
        try (Jedis j = jedis(3)) {
            String info = text(j.info("server"));
            assertThat(info).contains("redis_mode:standalone\r\n", "tide_shards:" + shards + "\r\n",
                    "tcp_port:" + server.port() + "\r\n", "tide_io_driver:" + server.ioDriver() + "\r\n",
                    "process_id:" + ProcessHandle.current().pid() + "\r\n", "hz:10\r\n", "configured_hz:10\r\n",
                    "config_file:\r\n", "java_version:");
            assertThat(info).containsPattern("run_id:[0-9a-f]{40}\r\n");
            long usec = stat(info, "server_time_usec");
            assertThat(usec / 1000).isCloseTo(System.currentTimeMillis(), org.assertj.core.data.Offset.offset(5000L));
        }
    }

    @Test
    void info_isVerbatimInResp3() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            assertThat(raw.call("INFO", "persistence"))
                    .startsWith("$").contains("loading:0\r\n", "rdb_bgsave_in_progress:0\r\n", "aof_enabled:0\r\n");
            raw.call("HELLO", "3");
            String body = "txt:# Replication\r\nrole:master\r\nconnected_slaves:0\r\n";
            assertThat(raw.call("INFO", "replication")).startsWith("=").contains("\r\n" + body,
                    "master_failover_state:no-failover\r\n", "repl_backlog_active:0\r\n").endsWith("\r\n\r\n");
            assertThat(raw.call("INFO", "nosuch")).isEqualTo("=4\r\ntxt:\r\n");
        }
    }

    @Test
    void info_figuresMove() {
        try (Jedis a = jedis(2); Jedis b = jedis(2)) {
            b.ping();
            String before = a.info("stats");
            assertThat(stat(a.info("clients"), "connected_clients")).isEqualTo(2);
            assertThat(stat(a.info("clients"), "blocked_clients")).isZero();
            for (int i = 0; i < 10; i++) b.ping();
            String after = a.info("stats");
            assertThat(stat(after, "total_commands_processed"))
                    .isGreaterThanOrEqualTo(stat(before, "total_commands_processed") + 11);
            assertThat(stat(after, "total_net_input_bytes")).isGreaterThan(stat(before, "total_net_input_bytes"));
            assertThat(stat(after, "total_net_output_bytes")).isGreaterThan(stat(before, "total_net_output_bytes"));
            assertThat(stat(after, "total_connections_received")).isGreaterThanOrEqualTo(2);
            b.close();
            String mem = a.info("memory");
            assertThat(stat(mem, "used_memory")).isPositive();
            assertThat(stat(mem, "used_memory_peak")).isGreaterThanOrEqualTo(stat(mem, "used_memory"));
            assertThat(stat(mem, "used_memory_rss")).isPositive();
            assertThat(mem).contains("used_memory_dataset:", "mem_allocator:jvm ", "total_system_memory:");
            assertThat(a.info("cpu")).containsPattern("used_cpu_user:\\d+\\.\\d{6}\r\n");
        }
    }

    @Test
    void info_keyspace_countsKeysAndExpiresOverShards() throws Exception {
        long later = System.currentTimeMillis() + 3_600_000;
        for (int i = 0; i < 20; i++) {
            byte[] key = ("key:" + i).getBytes(StandardCharsets.UTF_8);
            long expiry = i < 5 ? later : 0;
            int db = i < 15 ? 0 : 3;
            Shard s = server.context().shards().shardOf(key);
            s.loop().submit(() -> s.db(db).put(key, "v".getBytes(StandardCharsets.UTF_8), expiry)).get();
        }
        Thread.sleep(400); // the shards' active expiry cycles sample the TTLs for avg_ttl
        try (Jedis j = jedis(2)) {
            String ks = j.info("keyspace");
            assertThat(ks).matches("# Keyspace\r\ndb0:keys=15,expires=5,avg_ttl=(\\d+)\r\n"
                    + "db3:keys=5,expires=0,avg_ttl=0\r\n");
            long avgTtl = Long.parseLong(ks.replaceAll("(?s).*db0:[^\r]*avg_ttl=(\\d+).*", "$1"));
            assertThat(avgTtl).isBetween(3_500_000L, 3_600_000L);
            assertThat(stat(j.info("memory"), "used_memory_dataset")).isPositive();
        }
    }

    @Test
    void info_instantaneousOpsPerSec_followsTheLoad() throws Exception {
        try (Jedis j = jedis(2)) {
            long deadline = System.currentTimeMillis() + 1200;
            while (System.currentTimeMillis() < deadline) {
                var p = j.pipelined();
                for (int i = 0; i < 200; i++) p.get("ops");
                p.sync();
            }
            String stats = j.info("stats");
            assertThat(stat(stats, "instantaneous_ops_per_sec")).isPositive();
            assertThat(stats).containsPattern("instantaneous_input_kbps:[0-9]+\\.[0-9]{2}\r\n")
                    .containsPattern("instantaneous_output_kbps:[0-9]+\\.[0-9]{2}\r\n");
            assertThat(stats).doesNotContain("instantaneous_input_kbps:0.00");
        }
    }

    @Test
    void info_commandstats_countsCallsRejectionsAndFailures() {
        try (Jedis j = jedis(2)) {
            for (int i = 0; i < 3; i++) j.ping();
            j.clientId();
            assertThatThrownBy(() -> raw(j, "CLIENT")).isInstanceOf(JedisDataException.class);
            assertThatThrownBy(() -> j.configSet("nosuch", "1")).isInstanceOf(JedisDataException.class);
            String cs = j.info("commandstats");
            assertThat(cs).startsWith("# Commandstats\r\n")
                    .containsPattern("cmdstat_ping:calls=3,usec=\\d+,usec_per_call=\\d+\\.\\d\\d,rejected_calls=0,"
                            + "failed_calls=0\r\n")
                    .contains("cmdstat_client|id:calls=1,")
                    .containsPattern("cmdstat_client:calls=0,usec=0,usec_per_call=0.00,rejected_calls=1,failed_calls=0")
                    .containsPattern("cmdstat_config\\|set:calls=1,.*,failed_calls=1\r\n");
        }
    }

    // ------------------------------------------------------------------------------------ CONFIG

    @Test
    void config_getSet_roundTrip_inBothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                assertThat(j.configGet("hz")).isEqualTo(Map.of("hz", "10"));
                assertThat(j.configSet("hz", "20", "maxclients", "500")).isEqualTo("OK");
                assertThat(j.configGet("hz", "maxclient?", "hz")).isEqualTo(Map.of("hz", "20", "maxclients", "500"));
                assertThat(j.configGet("nosuch*")).isEmpty();
                assertThat(stat(j.info("server"), "hz")).isEqualTo(20);
                j.configSet("hz", "10", "maxclients", "10000");
            }
        }
        RedisClient client = TestServers.lettuce(server.port(), 3);
        try (var conn = TestServers.connect(client)) {
            assertThat(conn.sync().configGet("timeout")).isEqualTo(Map.of("timeout", "0"));
            assertThat(conn.sync().configSet("timeout", "30")).isEqualTo("OK");
            assertThat(conn.sync().configGet("timeout")).isEqualTo(Map.of("timeout", "30"));
            assertThat(conn.sync().time()).hasSize(2);
        } finally {
            client.shutdown();
        }
    }

    @Test
    void config_set_isAllOrNothing_withRedisErrors() throws Exception {
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.configSet("hz", "30", "maxclients", "abc")).hasMessage(
                    "ERR CONFIG SET failed (possibly related to argument 'maxclients') - argument couldn't be "
                            + "parsed into an integer");
            assertThat(j.configGet("hz")).isEqualTo(Map.of("hz", "10"));
            assertThatThrownBy(() -> j.configSet("nosuch", "1"))
                    .hasMessage("ERR Unknown option or number of arguments for CONFIG SET - 'nosuch'");
            assertThatThrownBy(() -> j.configSet("port", "1")).hasMessage(
                    "ERR CONFIG SET failed (possibly related to argument 'port') - can't set immutable config");
            assertThatThrownBy(() -> raw(j, "CONFIG", "SET", "hz", "10", "x")).hasMessage("ERR syntax error");
            assertThatThrownBy(j::configRewrite).hasMessage("ERR The server is running without a config file");
        }
        try (RawClient raw = new RawClient(server.port())) {
            raw.call("HELLO", "3");
            assertThat(raw.call("CONFIG", "GET", "hz")).isEqualTo("%1\r\n$2\r\nhz\r\n$2\r\n10\r\n");
            assertThat(raw.call("CONFIG", "HELP")).startsWith("*").contains("+RESETSTAT\r\n");
        }
    }

    /** INFO tide: one line per shard whose keys add up to DBSIZE, and the coordinator's operations moving. */
    @Test
    void info_tide_perShardFiguresAndTheCoordinator() {
        try (Jedis j = jedis(2)) {
            for (int i = 0; i < 100; i++) j.set("k" + i, "v");
            j.expire("k1", 100);
            String before = j.info("tide");
            for (int i = 0; i < 3; i++) j.mset("a" + i, "1", "b" + i, "2", "c" + i, "3", "d" + i, "4");
            String info = j.info("tide");
            assertThat(info).startsWith("# Tide\r\n").contains("tide_shards:" + shards + "\r\n");
            long keys = 0;
            long expires = 0;
            for (int s = 0; s < shards; s++) {
                String line = info.lines().filter(l -> l.startsWith("shard")).toList().get(s);
                assertThat(line).startsWith("shard" + s + ":keys=").contains(",pending_tasks=");
                keys += Long.parseLong(line.replaceAll(".*keys=(\\d+),.*", "$1"));
                expires += Long.parseLong(line.replaceAll(".*expires=(\\d+),.*", "$1"));
            }
            assertThat(keys).isEqualTo(j.dbSize());
            assertThat(expires).isEqualTo(1);
            // Single-key commands run on the shard that owns the key, whichever shard the connection has.
            String beforeGets = j.info("tide");
            for (int i = 0; i < 40; i++) j.get("g" + i);
            String afterGets = j.info("tide");
            for (int s = 0; s < shards; s++) {
                long was = Long.parseLong(beforeGets.lines().filter(l -> l.startsWith("shard")).toList().get(s)
                        .replaceAll(".*executed=(\\d+),.*", "$1"));
                long now = Long.parseLong(afterGets.lines().filter(l -> l.startsWith("shard")).toList().get(s)
                        .replaceAll(".*executed=(\\d+),.*", "$1"));
                assertThat(now - was).as("GETs run on shard " + s).isBetween(1L, 40L + 1);
            }
            long opsBefore = stat(before, "tide_coordinator_operations");
            // On a multi-shard server each of these 4-key MSETs spans shards: a coordinator operation; INFO is gathered
            // (one shard runs everything inline).
            if (shards > 1) assertThat(stat(info, "tide_coordinator_operations")).isEqualTo(opsBefore + 3);
            else assertThat(stat(info, "tide_coordinator_operations")).isEqualTo(opsBefore);
            assertThat(j.info("everything")).contains("# Tide\r\n");
            assertThat(j.info()).doesNotContain("# Tide\r\n"); // not in the default sections, as a Redis parser expects
        }
    }

    @Test
    void config_resetstat_zeroesCounters() {
        try (Jedis j = jedis(2)) {
            for (int i = 0; i < 5; i++) j.ping();
            assertThat(j.configResetStat()).isEqualTo("OK");
            String stats = j.info("stats");
            assertThat(stat(stats, "total_commands_processed")).isLessThanOrEqualTo(2);
            assertThat(stat(stats, "total_connections_received")).isZero();
            assertThat(j.info("commandstats")).doesNotContain("cmdstat_ping").contains("cmdstat_config|resetstat");
        }
    }

    @Test
    void config_rewrite_writesTheFileTheServerStartedFrom(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("tide.conf");
        Files.writeString(conf, "# mine\nhz 15\n");
        // Its own dir: with the default save points, stopping the server writes a dump.rdb there (not in the
        // working directory).
        try (Server s = Tide.start(conf.toString(), "--port", "0", "--shards", Integer.toString(shards), "--dir",
                dir.toString());
             Jedis j = TestServers.jedis(s.port(), 2)) {
            j.configSet("hz", "25");
            assertThat(j.configRewrite()).isEqualTo("OK");
            assertThat(Files.readString(conf)).startsWith("# mine\nhz 25\n");
            assertThat(j.info("server")).contains("config_file:" + conf.toAbsolutePath());
        }
    }

    // ------------------------------------------------------------------------------------ TIME, DEBUG, SHUTDOWN

    @Test
    void time_isNow() {
        try (Jedis j = jedis(3)) {
            List<String> t = j.time();
            assertThat(Long.parseLong(t.get(0))).isCloseTo(System.currentTimeMillis() / 1000,
                    org.assertj.core.data.Offset.offset(5L));
            assertThat(Long.parseLong(t.get(1))).isBetween(0L, 999_999L);
        }
    }

    @Test
    void debugSleep_blocksEveryOtherClient() throws Exception {
        try (Jedis sleeper = jedis(2); Jedis other = jedis(2)) {
            other.ping();
            CompletableFuture<String> slept = CompletableFuture.supplyAsync(() -> raw(sleeper, "DEBUG", "SLEEP", "0.4"));
            Thread.sleep(100);
            long t0 = System.nanoTime();
            assertThat(other.ping()).isEqualTo("PONG");
            long waited = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertThat(slept.get(5, TimeUnit.SECONDS)).isEqualTo("OK");
            assertThat(waited).isGreaterThanOrEqualTo(200);
            assertThat(raw(sleeper, "DEBUG", "SLEEP", "x")).isEqualTo("OK");
            assertThatThrownBy(() -> raw(sleeper, "DEBUG", "RELOAD")).hasMessage(
                    "ERR unknown subcommand or wrong number of arguments for 'RELOAD'. Try DEBUG HELP.");
            assertThatThrownBy(() -> raw(sleeper, "DEBUG", "SLEEP", "1", "2")).hasMessage(
                    "ERR unknown subcommand or wrong number of arguments for 'SLEEP'. Try DEBUG HELP.");
        }
    }

    @Test
    void shutdown_optionsAndErrors() {
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> raw(j, "SHUTDOWN", "ABORT")).hasMessage("ERR No shutdown in progress.");
            // A save that fails (nothing can be created in /proc, even as root) keeps the server running.
            String dir = j.configGet("dir").get("dir");
            j.configSet("dir", "/proc");
            try {
                assertThatThrownBy(() -> raw(j, "SHUTDOWN", "SAVE"))
                        .hasMessage("ERR Errors trying to SHUTDOWN. Check logs.");
            } finally {
                j.configSet("dir", dir);
            }
            assertThatThrownBy(() -> raw(j, "SHUTDOWN", "NOSAVE", "SAVE")).hasMessage("ERR syntax error");
            assertThatThrownBy(() -> raw(j, "SHUTDOWN", "ABORT", "NOW")).hasMessage("ERR syntax error");
            assertThatThrownBy(() -> raw(j, "SHUTDOWN", "LATER")).hasMessage("ERR syntax error");
            assertThat(j.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void shutdownSaveForce_stopsEvenWhenTheSaveFails() throws Exception {
        Server other = TestServers.start(shards, "--dir", "/proc");
        try (RawClient raw = new RawClient(other.port())) {
            raw.sendCommand("SHUTDOWN", "SAVE", "FORCE");
            assertThat(raw.isClosedByServer()).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!other.isClosed() && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(other.isClosed()).isTrue();
        } finally {
            other.close();
        }
    }

    @Test
    void shutdown_stopsTheServer_withoutAReply() throws Exception {
        Server other = TestServers.start(shards);
        try (RawClient raw = new RawClient(other.port())) {
            raw.sendCommand("SHUTDOWN", "NOSAVE", "NOW");
            assertThat(raw.isClosedByServer()).isTrue();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!other.isClosed() && System.nanoTime() < deadline) Thread.sleep(10);
            assertThat(other.isClosed()).isTrue();
        } finally {
            other.close();
        }
    }

    // ------------------------------------------------------------------------------------ COMMAND

    @Test
    void command_countListAndAll() {
        int count = server.context().table().size();
        try (Jedis j = jedis(2)) {
            assertThat(j.commandCount()).isEqualTo(count);
            List<String> names = j.commandList();
            assertThat(names).contains("info", "config", "config|get", "client|list", "command");
            assertThat(j.commandListFilterBy(redis.clients.jedis.params.CommandListFilterByParams.commandListFilterByParams()
                    .filterByPattern("client|*"))).contains("client|kill").doesNotContain("info");
            assertThat(j.commandListFilterBy(redis.clients.jedis.params.CommandListFilterByParams.commandListFilterByParams()
                    .filterByAclCat("admin"))).contains("config|set", "shutdown").doesNotContain("time");
            assertThat(raw(j, "COMMAND", "LIST", "FILTERBY", "MODULE", "search")).isEqualTo("[]");
            assertThatThrownBy(() -> raw(j, "COMMAND", "LIST", "FILTERBY", "color", "x")).hasMessage("ERR syntax error");
            assertThat((List<?>) j.sendCommand(() -> "COMMAND".getBytes())).hasSize(count);
        }
    }

    @Test
    void commandInfo_hasRedis7Shape_withNestedSubcommands() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            assertThat(raw.call("COMMAND", "INFO", "time")).isEqualTo(
                    "*1\r\n*10\r\n$4\r\ntime\r\n:1\r\n*3\r\n+loading\r\n+stale\r\n+fast\r\n:0\r\n:0\r\n:0\r\n"
                            + "*1\r\n+@fast\r\n*0\r\n*0\r\n*0\r\n");
            assertThat(raw.call("COMMAND", "INFO", "nosuch", "config|get")).startsWith("*2\r\n$-1\r\n*10\r\n"
                    + "$10\r\nconfig|get\r\n:-3\r\n");
            String client = raw.call("COMMAND", "INFO", "client");
            assertThat(client).contains("$11\r\nclient|list\r\n:-2\r\n");
            raw.call("HELLO", "3");
            assertThat(raw.call("COMMAND", "INFO", "time")).isEqualTo(
                    "*1\r\n*10\r\n$4\r\ntime\r\n:1\r\n~3\r\n+loading\r\n+stale\r\n+fast\r\n:0\r\n:0\r\n:0\r\n"
                            + "~1\r\n+@fast\r\n~0\r\n~0\r\n~0\r\n");
            assertThat(raw.call("COMMAND", "INFO", "nosuch")).isEqualTo("*1\r\n_\r\n");
        }
    }

    @Test
    void commandDocs_mapsNamesToDocs() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            assertThat(raw.call("COMMAND", "DOCS", "nosuch")).isEqualTo("*0\r\n");
            raw.call("HELLO", "3");
            assertThat(raw.call("COMMAND", "DOCS", "time", "nosuch")).isEqualTo(
                    "%1\r\n$4\r\ntime\r\n%3\r\n$7\r\nsummary\r\n$24\r\nReturns the server time.\r\n"
                            + "$5\r\nsince\r\n$5\r\n2.6.0\r\n$5\r\ngroup\r\n$6\r\nserver\r\n");
            String config = raw.call("COMMAND", "DOCS", "config");
            assertThat(config).startsWith("%1\r\n$6\r\nconfig\r\n%4\r\n").contains("$11\r\nsubcommands\r\n%5\r\n",
                    "$10\r\nconfig|get\r\n%3\r\n");
        }
        try (Jedis j = jedis(3)) {
            assertThat(j.commandDocs("client")).containsKey("client");
        }
    }

    @Test
    void commandGetkeys_errors() {
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.commandGetKeys("client", "list")).hasMessage("ERR The command has no key arguments");
            assertThatThrownBy(() -> j.commandGetKeys("nosuch", "a")).hasMessage("ERR Invalid command specified");
            assertThatThrownBy(() -> j.commandGetKeys("client", "nosuch")).hasMessage("ERR Invalid command specified");
            assertThatThrownBy(() -> j.commandGetKeys("ping"))
                    .hasMessage("ERR wrong number of arguments for 'command|getkeys' command");
            assertThatThrownBy(() -> raw(j, "COMMAND", "NOPE"))
                    .hasMessage("ERR unknown subcommand 'NOPE'. Try COMMAND HELP.");
            assertThat((List<?>) j.sendCommand(() -> "COMMAND".getBytes(), "HELP")).map(o -> new String((byte[]) o))
                    .contains("GETKEYS <full-command>");
        }
    }

    /** A table with keyed commands, since no keyed family is in this tree yet. */
    @Test
    void commandGetkeysAndKeySpecs_onKeyedCommands() {
        CommandTable t = new CommandTable();
        t.group("string");
        CommandSpec get = t.add("get", 2, "readonly fast", 1, 1, 1, "@string", "1.0.0", "Get", (c, a) -> Reply.OK);
        CommandSpec mset = t.add("mset", -3, "write denyoom", 1, -1, 2, "@string", "1.0.1", "Set", (c, a) -> Reply.OK);
        t.seal(1);
        byte[][] ok = args("COMMAND", "GETKEYS", "MSET", "a", "1", "b", "2");
        assertThat(encode(ServerCommands.commandGetKeys(t, ok, false), 2)).isEqualTo("*2\r\n$1\r\na\r\n$1\r\nb\r\n");
        assertThatThrownBy(() -> ServerCommands.commandGetKeys(t, args("COMMAND", "GETKEYS", "get", "a", "b"), false))
                .hasMessage("ERR Invalid number of arguments specified for command");
        assertThat(encode(ServerCommands.commandInfo(get), 2)).contains(
                "*1\r\n*6\r\n$5\r\nflags\r\n*2\r\n+RO\r\n+access\r\n$12\r\nbegin_search\r\n*4\r\n$4\r\ntype\r\n"
                        + "$5\r\nindex\r\n$4\r\nspec\r\n*2\r\n$5\r\nindex\r\n:1\r\n$9\r\nfind_keys\r\n*4\r\n$4\r\n"
                        + "type\r\n$5\r\nrange\r\n$4\r\nspec\r\n*6\r\n$7\r\nlastkey\r\n:0\r\n$7\r\nkeystep\r\n:1\r\n"
                        + "$5\r\nlimit\r\n:0\r\n");
        // MSET's one key spec has Redis's flags (KeyFlags), not the legacy range's RW
        assertThat(encode(ServerCommands.commandInfo(mset), 3)).contains("~2\r\n+OW\r\n+update\r\n",
                "$7\r\nlastkey\r\n:-1\r\n$7\r\nkeystep\r\n:2\r\n");
    }

    private static byte[][] args(String... a) {
        byte[][] out = new byte[a.length][];
        for (int i = 0; i < a.length; i++) out[i] = a[i].getBytes(StandardCharsets.UTF_8);
        return out;
    }

    private static String encode(Reply r, int proto) {
        ByteBuf b = Unpooled.buffer();
        RespWriter.write(b, r, proto);
        return b.toString(StandardCharsets.UTF_8);
    }
}
