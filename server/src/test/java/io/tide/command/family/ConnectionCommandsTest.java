package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

class ConnectionCommandsTest {

    private static Server server;
    private static Server secured;

    @BeforeAll
    static void start() {
        server = TestServers.start(2);
        secured = TestServers.start(1, "--requirepass", "s3cret");
    }

    @AfterAll
    static void stop() {
        server.close();
        secured.close();
    }

    @Test
    void ping_andEcho_inBothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = TestServers.jedis(server.port(), proto)) {
                assertThat(j.ping()).isEqualTo("PONG");
                assertThat(j.ping("hello")).isEqualTo("hello");
                assertThat(j.echo("x y")).isEqualTo("x y");
            }
        }
    }

    @Test
    void select_switchesDatabase_andRejectsBadIndexes() {
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.select(3);
            j.set("sel", "3");
            j.select(0);
            assertThat(j.get("sel")).isNull();
            j.select(3);
            assertThat(j.get("sel")).isEqualTo("3");
            assertThatThrownBy(() -> j.select(16)).hasMessage("ERR DB index is out of range");
            assertThatThrownBy(() -> j.sendCommand(redis.clients.jedis.Protocol.Command.SELECT, "x"))
                    .hasMessage("ERR value is not an integer or out of range");
        }
    }

    @Test
    void hello3_switchesLettuceAndRawClientsToResp3() throws Exception {
        RedisClient client = TestServers.lettuce(server.port(), 3);
        try (var conn = client.connect()) {
            assertThat(conn.sync().ping()).isEqualTo("PONG");
            conn.sync().set("h3", "v");
            assertThat(conn.sync().get("h3")).isEqualTo("v");
        } finally {
            client.shutdown();
        }
        try (RawClient c = new RawClient(server.port())) {
            String hello = c.call("HELLO", "3");
            assertThat(hello).startsWith("%7\r\n").contains("proto\r\n:3\r\n").contains("server\r\n$5\r\nredis\r\n")
                    .contains("version\r\n$6\r\n7.0.15\r\n");
            assertThat(c.call("GET", "missing-key")).isEqualTo("_\r\n");
            assertThat(c.call("HELLO", "2")).startsWith("*14\r\n");
            assertThat(c.call("GET", "missing-key")).isEqualTo("$-1\r\n");
        }
    }

    @Test
    void quit_repliesOkThenCloses() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send("SET q 1\r\nQUIT\r\nGET q\r\n".getBytes());
            assertThat(c.readReply()).isEqualTo("+OK\r\n");
            assertThat(c.readReply()).isEqualTo("+OK\r\n");
            assertThat(c.isClosedByServer()).isTrue();
        }
    }

    @Test
    void reset_restoresDefaults() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.call("HELLO", "3", "SETNAME", "before");
            c.call("SELECT", "5");
            assertThat(c.call("RESET")).isEqualTo("+RESET\r\n");
            assertThat(c.call("CLIENT", "GETNAME")).isEqualTo("$-1\r\n");
            assertThat(c.call("GET", "nothing")).isEqualTo("$-1\r\n"); // back on RESP2
        }
    }

    @Test
    void requirepass_gatesCommands_untilAuth() throws Exception {
        try (RawClient c = new RawClient(secured.port())) {
            assertThat(c.call("GET", "x")).isEqualTo("-NOAUTH Authentication required.\r\n");
            assertThat(c.call("AUTH", "wrong"))
                    .isEqualTo("-WRONGPASS invalid username-password pair or user is disabled.\r\n");
            assertThat(c.call("AUTH", "default", "s3cret")).isEqualTo("+OK\r\n");
            assertThat(c.call("GET", "x")).isEqualTo("$-1\r\n");
            assertThat(c.call("HELLO", "2", "AUTH", "default", "bad")).startsWith("-WRONGPASS");
            assertThat(c.call("INFO", "stats")).contains("\r\nacl_access_denied_auth:2\r\n"); // AUTH and HELLO
            c.call("CONFIG", "RESETSTAT");
            assertThat(c.call("INFO", "stats")).contains("\r\nacl_access_denied_auth:0\r\n");
        }
        for (var proto : new redis.clients.jedis.RedisProtocol[] {
                redis.clients.jedis.RedisProtocol.RESP2, redis.clients.jedis.RedisProtocol.RESP3}) {
            var ok = redis.clients.jedis.DefaultJedisClientConfig.builder().protocol(proto).password("s3cret").build();
            try (Jedis j = new Jedis(new redis.clients.jedis.HostAndPort("127.0.0.1", secured.port()), ok)) {
                assertThat(j.ping()).isEqualTo("PONG");
            }
            var bad = redis.clients.jedis.DefaultJedisClientConfig.builder().protocol(proto).password("nope").build();
            assertThatThrownBy(() -> {
                try (Jedis j = new Jedis(new redis.clients.jedis.HostAndPort("127.0.0.1", secured.port()), bad)) {
                    j.ping();
                }
            }).isInstanceOf(JedisDataException.class).hasMessageContaining("WRONGPASS");
        }
        try (RawClient c = new RawClient(secured.port())) {
            assertThat(c.call("HELLO", "3")).startsWith("-NOAUTH HELLO must be called with the client already");
            assertThat(c.call("HELLO", "3", "AUTH", "default", "s3cret")).startsWith("%7\r\n");
        }
    }

    @Test
    void timeout_closesIdleClients_only() throws Exception {
        try (Server s = TestServers.start(2, "--timeout", "1");
             RawClient idle = new RawClient(s.port());
             RawClient busy = new RawClient(s.port())) {
            assertThat(idle.call("PING")).isEqualTo("+PONG\r\n");
            for (int i = 0; i < 12; i++) {
                assertThat(busy.call("PING")).isEqualTo("+PONG\r\n");
                Thread.sleep(200);
            }
            assertThat(idle.isClosedByServer()).isTrue();
            assertThat(busy.call("PING")).isEqualTo("+PONG\r\n");
        }
    }

    @Test
    void maxclients_refusesTheClientBeyondTheLimit() throws Exception {
        try (Server s = TestServers.start(1, "--maxclients", "2");
             RawClient a = new RawClient(s.port());
             RawClient b = new RawClient(s.port())) {
            assertThat(a.call("PING")).isEqualTo("+PONG\r\n");
            assertThat(b.call("PING")).isEqualTo("+PONG\r\n");
            try (RawClient c = new RawClient(s.port())) {
                assertThat(c.readReply()).isEqualTo("-ERR max number of clients reached\r\n");
                assertThat(c.isClosedByServer()).isTrue();
            }
            assertThat(a.call("PING")).isEqualTo("+PONG\r\n");
        }
    }

    @Test
    void outputBufferHardLimit_closesTheClientWhoseReplyIsTooBig_only() throws Exception {
        try (Server s = TestServers.start(2); Jedis admin = TestServers.jedis(s.port(), 2)) {
            String kb = "x".repeat(1024);
            String[] keys = new String[200];
            for (int i = 0; i < keys.length; i++) {
                keys[i] = "obl:" + i;
                admin.set(keys[i], kb);
            }
            admin.configSet("client-output-buffer-limit", "normal 100kb 0 0");
            try (RawClient c = new RawClient(s.port())) {
                assertThat(c.call("MGET", "obl:1", "obl:2")).startsWith("*2\r\n");
                String[] mget = new String[keys.length + 1];
                mget[0] = "MGET";
                System.arraycopy(keys, 0, mget, 1, keys.length);
                c.sendCommand(mget);
                assertThat(c.isClosedByServer()).isTrue();
            }
            assertThat(admin.get("obl:7")).isEqualTo(kb);
            admin.configSet("client-output-buffer-limit", "normal 0 0 0");
            assertThat(admin.mget(keys)).hasSize(200);
        }
    }

    /** Error texts and reply bytes compared with a real redis-server. */
    @Test
    void errorsAndReplies_matchRedis() throws Exception {
        List<String[]> cases = List.of(
                new String[] {"PING", "a", "b"},
                new String[] {"ECHO"},
                new String[] {"SELECT", "-1"},
                new String[] {"SELECT", "abc"},
                new String[] {"SELECT", "0"},
                new String[] {"AUTH", "x"},
                new String[] {"AUTH", "a", "b", "c"},
                new String[] {"HELLO", "4"},
                new String[] {"HELLO", "x"},
                new String[] {"HELLO", "3", "BOGUS"},
                new String[] {"HELLO", "2", "SETNAME", "bad name"},
                new String[] {"NOSUCHCOMMAND", "a", "b"},
                new String[] {"GET"},
                new String[] {"PING"});
        try (RealRedis redis = RealRedis.start();
             RawClient r = new RawClient(redis.port());
             RawClient t = new RawClient(server.port())) {
            for (String[] cmd : cases) {
                assertThat(t.call(cmd)).as(String.join(" ", cmd)).isEqualTo(r.call(cmd));
            }
        }
    }
}
