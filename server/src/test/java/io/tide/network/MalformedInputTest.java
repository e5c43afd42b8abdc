package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** Malformed input gets an error on that connection only; the server keeps serving everyone else. */
class MalformedInputTest {

    private static Server server;
    private static Jedis bystander;

    @BeforeAll
    static void start() {
        server = TestServers.start(2);
        bystander = TestServers.jedis(server.port(), 2);
        bystander.set("survivor", "yes");
    }

    @AfterAll
    static void stop() {
        bystander.close();
        server.close();
    }

    private static void serverStillServes() {
        assertThat(bystander.get("survivor")).isEqualTo("yes");
        try (Jedis fresh = TestServers.jedis(server.port(), 3)) {
            assertThat(fresh.ping()).isEqualTo("PONG");
        }
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void hugeBulkLength_repliesInvalidBulkLength_andCloses() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send(ascii("*2\r\n$3\r\nGET\r\n$1099511627776\r\n"));
            assertThat(c.readReply()).isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
            assertThat(c.isClosedByServer()).isTrue();
        }
        serverStillServes();
    }

    @Test
    void hugeMultibulkCount_repliesInvalidMultibulkLength() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send(ascii("*99999999999\r\n"));
            assertThat(c.readReply()).isEqualTo("-ERR Protocol error: invalid multibulk length\r\n");
            assertThat(c.isClosedByServer()).isTrue();
        }
        serverStillServes();
    }

    @Test
    void missingDollar_repliesExpectedDollar() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send(ascii("*1\r\n+PING\r\n"));
            assertThat(c.readReply()).isEqualTo("-ERR Protocol error: expected '$', got '+'\r\n");
            assertThat(c.isClosedByServer()).isTrue();
        }
        serverStillServes();
    }

    @Test
    void megabyteInlineLine_repliesTooBigInlineRequest() throws Exception {
        byte[] line = new byte[1024 * 1024];
        Arrays.fill(line, (byte) 'a');
        try (RawClient c = new RawClient(server.port())) {
            c.send(line);
            assertThat(c.readReply()).isEqualTo("-ERR Protocol error: too big inline request\r\n");
            assertThat(c.isClosedByServer()).isTrue();
        }
        serverStillServes();
    }

    @Test
    void truncatedFrame_waitsForTheRest_andAnAbandonedOneHarmsNobody() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send(ascii("*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5\r\nab"));
            serverStillServes();
            c.send(ascii("cde\r\n"));
            assertThat(c.readReply()).isEqualTo("+OK\r\n");
        }
        try (RawClient c = new RawClient(server.port())) {
            c.send(ascii("*2\r\n$3\r\nGET\r\n$10\r\nabc"));
        }
        serverStillServes();
    }

    @Test
    void randomBytes_neverKillTheServer() throws Exception {
        Random rnd = new Random(42);
        for (int round = 0; round < 20; round++) {
            byte[] junk = new byte[1 + rnd.nextInt(20_000)];
            rnd.nextBytes(junk);
            try (RawClient c = new RawClient(server.port())) {
                c.send(junk);
                c.send(ascii("\r\n"));
            } catch (java.io.IOException e) {
                // the server may already have closed this connection: fine
            }
        }
        serverStillServes();
    }

    @Test
    void protocolErrorAfterValidCommands_answersThemFirst() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send(ascii("PING\r\n*1\r\n$4\r\nPING\r\n*1\r\n$-5\r\n"));
            assertThat(c.readReply()).isEqualTo("+PONG\r\n");
            assertThat(c.readReply()).isEqualTo("+PONG\r\n");
            assertThat(c.readReply()).isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
        }
        serverStillServes();
    }

    /**
     * Requests held back behind a multi-shard command (they wait for its reply) are answered before a protocol error
     * that came after them, as Redis answers them: the error used to go out right after the multi-shard reply, and the
     * held requests were dropped with the connection.
     */
    @Test
    void protocolErrorBehindAMultiShardCommand_answersTheRequestsBetweenFirst() throws Exception {
        String[] keys = new String[21];
        keys[0] = "EXISTS";
        for (int i = 1; i < keys.length; i++) keys[i] = "held:" + i; // on both shards
        try (RawClient c = new RawClient(server.port())) {
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            out.writeBytes(RawClient.encode(keys));
            out.writeBytes(ascii("PING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\n*2\r\n$4\r\nECHO\r\n$05\r\nhello\r\n"));
            c.send(out.toByteArray());
            assertThat(c.readReply()).isEqualTo(":0\r\n");
            assertThat(c.readReply()).isEqualTo("+PONG\r\n");
            assertThat(c.readReply()).isEqualTo("$2\r\nhi\r\n");
            assertThat(c.readReply()).isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
            assertThat(c.isClosedByServer()).isTrue();
        }
        serverStillServes();
    }

    /**
     * Replies still on their way back from another shard (single-key commands run there, all on one shard, so nothing
     * is held back) go out before a protocol error that came after their requests, and the connection closes only
     * then. Keys of each shard in turn, on two connections each: on one of the two they are the other shard's.
     */
    @Test
    void protocolErrorBehindHops_waitsForTheirReplies() throws Exception {
        for (io.tide.shard.Shard target : server.context().shards().all()) {
            java.util.List<String> keys = new java.util.ArrayList<>();
            for (int i = 0; keys.size() < 8; i++) {
                String k = "hop:" + i;
                if (server.context().shards().shardOf(ascii(k)) == target) keys.add(k);
            }
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            for (String k : keys) {
                bystander.set(k, "v-" + k);
                out.writeBytes(RawClient.encode("GET", k));
            }
            out.writeBytes(ascii("*2\r\n$4\r\nECHO\r\n$x\r\n"));
            for (int attempt = 0; attempt < 2; attempt++) { // Netty gives connections their loops in turn: one is not target's
                try (RawClient c = new RawClient(server.port())) {
                    c.send(out.toByteArray());
                    for (String k : keys) {
                        assertThat(c.readReply()).isEqualTo("$" + (k.length() + 2) + "\r\nv-" + k + "\r\n");
                    }
                    assertThat(c.readReply()).isEqualTo("-ERR Protocol error: invalid bulk length\r\n");
                    assertThat(c.isClosedByServer()).isTrue();
                }
            }
        }
        serverStillServes();
    }

    @Test
    void unbalancedQuotes_inInline_isAProtocolError() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.send(ascii("SET \"abc x\r\n"));
            assertThat(c.readReply()).isEqualTo("-ERR Protocol error: unbalanced quotes in request\r\n");
        }
        serverStillServes();
    }
}
