package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.ClientKillParams;

@ParameterizedClass
@ValueSource(ints = {1, 2})
class ClientCommandsTest {


    private final int shards;
    private Server server;

    ClientCommandsTest(int shards) {
        this.shards = shards;
    }

    @BeforeEach
    void start() {
        server = TestServers.start(shards);
    }

    @AfterEach
    void stop() {
        server.close();
    }

    private Jedis jedis(int protocol) {
        return TestServers.jedis(server.port(), protocol);
    }

    @Test
    void idSetnameGetname_roundTrip_inBothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                assertThat(j.clientId()).isPositive();
                assertThat(j.clientGetname()).isNull();
                assertThat(j.clientSetname("worker-" + proto)).isEqualTo("OK");
                assertThat(j.clientGetname()).isEqualTo("worker-" + proto);
                assertThatThrownBy(() -> j.clientSetname("a b")).isInstanceOf(JedisDataException.class)
                        .hasMessage(io.tide.command.Errors.BAD_CLIENT_NAME);
                assertThat(j.clientSetname("")).isEqualTo("OK");
                assertThat(j.clientGetname()).isNull();
            }
        }
    }

    @Test
    void info_describesTheCaller() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                j.clientSetname("me");
                String line = text(j.clientInfo());
                assertThat(line).startsWith("id=" + j.clientId() + " addr=127.0.0.1:").endsWith("\n")
                        .contains(" laddr=127.0.0.1:" + server.port(), " name=me ", " flags=N ", " db=0 ",
                                " cmd=client|info ", " user=default ", " resp=" + proto, " lib-name=jedis ",
                                " multi=-1 ", " argv-mem=10 ", " multi-mem=0 ");
                if (!server.ioDriver().equals("nio")) assertThat(line).containsPattern(" fd=\\d+ ");
            }
        }
    }

    /** Jedis hands RESP3 verbatim strings over with their {@code txt:} prefix. */
    static String text(String s) {
        return s.startsWith("txt:") ? s.substring(4) : s;
    }

    @Test
    void list_showsEveryClient_andFilters() {
        try (Jedis a = jedis(2); Jedis b = jedis(3)) {
            long ida = a.clientId();
            long idb = b.clientId();
            String all = a.clientList();
            assertThat(all.lines()).anyMatch(l -> l.startsWith("id=" + ida + " "))
                    .anyMatch(l -> l.startsWith("id=" + idb + " "));
            assertThat(text(b.clientList())).contains("id=" + ida + " ");
            assertThat(a.clientList(ida).lines()).hasSize(1).allMatch(l -> l.startsWith("id=" + ida + " "));
            assertThat(rawCall(a, "CLIENT", "LIST", "ID", Long.toString(idb), Long.toString(ida)).lines()).hasSize(2);
            assertThat(rawCall(a, "CLIENT", "LIST", "TYPE", "normal").lines()).hasSizeGreaterThanOrEqualTo(2);
            assertThat(rawCall(a, "CLIENT", "LIST", "TYPE", "pubsub")).isEmpty();
            assertThatThrownBy(() -> a.sendCommand(() -> "CLIENT".getBytes(), "LIST", "ID", "x"))
                    .hasMessage("ERR Invalid client ID");
            assertThatThrownBy(() -> a.sendCommand(() -> "CLIENT".getBytes(), "LIST", "TYPE", "nope"))
                    .hasMessage("ERR Unknown client type 'nope'");
        }
    }

    private static String rawCall(Jedis j, String... args) {
        String[] rest = java.util.Arrays.copyOfRange(args, 1, args.length);
        Object r = j.sendCommand(() -> args[0].getBytes(), rest);
        return new String((byte[]) r);
    }

    @Test
    void listAndInfo_areVerbatimInResp3_andBulkInResp2() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            assertThat(raw.call("CLIENT", "INFO")).startsWith("$");
            raw.call("HELLO", "3");
            assertThat(raw.call("CLIENT", "INFO")).startsWith("=").contains("txt:id=");
            assertThat(raw.call("CLIENT", "LIST")).startsWith("=").contains("txt:id=");
        }
    }

    @Test
    void lettuce_seesTheSameClient() {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (var conn = TestServers.connect(client)) {
                var cmd = conn.sync();
                long id = cmd.clientId();
                assertThat(cmd.clientSetname("lettuce")).isEqualTo("OK");
                assertThat(cmd.clientGetname()).isEqualTo("lettuce");
                assertThat(cmd.clientList()).contains("id=" + id + " ", "name=lettuce");
                assertThat(cmd.clientInfo()).startsWith("id=" + id + " ");
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void kill_byId_closesThatClient() {
        try (Jedis a = jedis(2); Jedis b = jedis(3)) {
            long idb = b.clientId();
            assertThat(a.clientKill(new ClientKillParams().id(Long.toString(idb)))).isEqualTo(1);
            assertThatThrownBy(b::ping).isInstanceOf(JedisConnectionException.class);
            assertThat(a.clientKill(new ClientKillParams().id("999999"))).isZero();
            assertThat(a.ping()).isEqualTo("PONG");
        }
    }

    @Test
    void kill_byAddr_oldAndNewForm() throws Exception {
        try (Jedis a = jedis(2); Jedis b = jedis(2); Jedis c = jedis(2)) {
            String addrB = field(text(b.clientInfo()), "addr");
            String addrC = field(text(c.clientInfo()), "addr");
            assertThat(a.clientKill(addrB)).isEqualTo("OK");
            assertThatThrownBy(b::ping).isInstanceOf(JedisConnectionException.class);
            assertThatThrownBy(() -> a.clientKill("1.2.3.4:5")).hasMessage("ERR No such client");
            assertThat(a.clientKill(new ClientKillParams().addr(addrC))).isEqualTo(1);
            assertThatThrownBy(c::ping).isInstanceOf(JedisConnectionException.class);
            assertThat(a.clientKill(new ClientKillParams().type(redis.clients.jedis.args.ClientType.PUBSUB))).isZero();
            assertThat(a.clientKill(new ClientKillParams().maxAge(3600))).isZero();
        }
    }

    @Test
    void kill_skipme_sparesTheCallerUnlessNo_andThenRepliesBeforeClosing() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            String info = raw.call("CLIENT", "INFO");
            String addr = field(info.substring(info.indexOf("id=")), "addr");
            assertThat(raw.call("CLIENT", "KILL", "ADDR", addr)).isEqualTo(":0\r\n");
            assertThat(raw.call("CLIENT", "KILL", "ADDR", addr, "SKIPME", "yes")).isEqualTo(":0\r\n");
            assertThat(raw.call("CLIENT", "KILL", "ADDR", addr, "SKIPME", "no")).isEqualTo(":1\r\n");
            assertThat(raw.isClosedByServer()).isTrue();
        }
        try (RawClient raw = new RawClient(server.port()); Jedis other = jedis(2)) {
            other.ping();
            assertThat(raw.call("CLIENT", "KILL", "LADDR", "127.0.0.1:" + server.port(), "SKIPME", "no"))
                    .isEqualTo(":2\r\n");
            assertThat(raw.isClosedByServer()).isTrue();
        }
    }

    private static String field(String line, String name) {
        for (String kv : line.trim().split(" ")) {
            if (kv.startsWith(name + "=")) return kv.substring(name.length() + 1);
        }
        throw new AssertionError("no " + name + " in " + line);
    }

    @Test
    void reply_offSkipOn_overARawSocket() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            raw.sendCommand("CLIENT", "REPLY", "OFF");
            raw.sendCommand("PING");
            raw.sendCommand("ECHO", "hidden");
            raw.sendCommand("CLIENT", "REPLY", "ON");
            raw.sendCommand("ECHO", "one");
            raw.sendCommand("CLIENT", "REPLY", "SKIP");
            raw.sendCommand("ECHO", "skipped");
            raw.sendCommand("ECHO", "two");
            assertThat(raw.readReply()).isEqualTo("+OK\r\n");
            assertThat(raw.readReply()).isEqualTo("$3\r\none\r\n");
            assertThat(raw.readReply()).isEqualTo("$3\r\ntwo\r\n");
            assertThat(raw.call("CLIENT", "REPLY", "maybe")).isEqualTo("-ERR syntax error\r\n");
        }
    }

    @Test
    void noEvictAndNoTouch_setFlags() {
        try (Jedis j = jedis(3)) {
            assertThat(rawCall(j, "CLIENT", "NO-EVICT", "on")).isEqualTo("OK");
            assertThat(text(j.clientInfo())).contains(" flags=e ");
            assertThat(rawCall(j, "CLIENT", "NO-TOUCH", "ON")).isEqualTo("OK");
            assertThat(text(j.clientInfo())).contains(" flags=eT ");
            rawCall(j, "CLIENT", "NO-EVICT", "off");
            rawCall(j, "CLIENT", "NO-TOUCH", "off");
            assertThat(text(j.clientInfo())).contains(" flags=N ");
            assertThatThrownBy(() -> rawCall(j, "CLIENT", "NO-TOUCH", "maybe")).hasMessage("ERR syntax error");
            assertThatThrownBy(() -> rawCall(j, "CLIENT", "NO-EVICT", "maybe")).hasMessage("ERR syntax error");
        }
    }

    @Test
    void noTouch_readsKeepTheIdleTime_butTouchRefreshesIt() throws Exception {
        try (Jedis j = jedis(2)) {
            j.set("nt:s", "v");
            j.rpush("nt:l", "a");
            Thread.sleep(2100);
            assertThat(rawCall(j, "CLIENT", "NO-TOUCH", "on")).isEqualTo("OK");
            assertThat(j.get("nt:s")).isEqualTo("v");
            assertThat(j.lrange("nt:l", 0, -1)).containsExactly("a");
            assertThat(j.objectIdletime("nt:s")).isGreaterThanOrEqualTo(2);
            assertThat(j.objectIdletime("nt:l")).isGreaterThanOrEqualTo(2);
            assertThat(j.touch("nt:s")).isEqualTo(1);
            assertThat(j.objectIdletime("nt:s")).isZero();
            assertThat(rawCall(j, "CLIENT", "NO-TOUCH", "off")).isEqualTo("OK");
            j.lrange("nt:l", 0, -1);
            assertThat(j.objectIdletime("nt:l")).isZero();
        }
    }

    @Test
    void setinfo_libNameAndVersion() {
        try (Jedis j = jedis(2)) {
            assertThat(rawCall(j, "CLIENT", "SETINFO", "LIB-NAME", "mylib")).isEqualTo("OK");
            assertThat(rawCall(j, "CLIENT", "SETINFO", "lib-ver", "1.2.3")).isEqualTo("OK");
            assertThat(text(j.clientInfo())).contains(" lib-name=mylib lib-ver=1.2.3");
            assertThatThrownBy(() -> rawCall(j, "CLIENT", "SETINFO", "lib-name", "my lib"))
                    .hasMessage("ERR lib-name cannot contain spaces, newlines or special characters.");
            assertThatThrownBy(() -> rawCall(j, "CLIENT", "SETINFO", "color", "red"))
                    .hasMessage("ERR Unrecognized option 'color'");
        }
    }

    @Test
    void help_andErrors() throws Exception {
        try (RawClient raw = new RawClient(server.port())) {
            assertThat(raw.call("CLIENT", "HELP"))
                    .startsWith("*").contains("+CLIENT <subcommand> [<arg> [value] [opt] ...]. Subcommands are:\r\n")
                    .endsWith("+HELP\r\n+    Prints this help.\r\n");
            assertThat(raw.call("CLIENT")).isEqualTo("-ERR wrong number of arguments for 'client' command\r\n");
            assertThat(raw.call("CLIENT", "SETNAME"))
                    .isEqualTo("-ERR wrong number of arguments for 'client|setname' command\r\n");
            assertThat(raw.call("CLIENT", "nope")).isEqualTo("-ERR unknown subcommand 'nope'. Try CLIENT HELP.\r\n");
        }
    }

    @Test
    void list_countsClientsOnEveryShard() throws Exception {
        List<Jedis> many = new java.util.ArrayList<>();
        try {
            for (int i = 0; i < 5; i++) {
                Jedis j = jedis(2);
                j.ping();
                many.add(j);
            }
            assertThat(many.get(0).clientList().lines()).hasSize(5);
            many.get(4).close();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (many.get(0).clientList().lines().count() != 4 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertThat(many.get(0).clientList().lines()).hasSize(4);
        } finally {
            many.forEach(Jedis::close);
        }
    }
}
