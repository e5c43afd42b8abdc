package io.tide.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Not thread-safe: runs on the test's thread only. A client under CLIENT REPLY OFF (or SKIP) against redis-server
 * and Tide (two shards): replies are dropped but push frames (subscribe and unsubscribe confirmations, published
 * messages, tracking invalidations) still arrive, in RESP3 and RESP2, as in Redis 7.0.
 */
class ReplyOffPushVsRedisTest extends VsRedis {

    ReplyOffPushVsRedisTest() {
        super("roff");
    }

    private List<String> run(int port) throws IOException {
        List<String> log = new ArrayList<>();
        try (RawClient c = new RawClient(port); RawClient w = new RawClient(port)) {
            c.call("HELLO", "3");
            c.sendCommand("CLIENT", "REPLY", "OFF");
            c.sendCommand("SUBSCRIBE", k("ch"), k("ch2"));
            c.sendCommand("GET", k("x"));
            c.sendCommand("CLIENT", "TRACKING", "ON");
            c.sendCommand("GET", k("tk"));
            c.sendCommand("PSUBSCRIBE", k("p*"));
            // The last subscribe confirmation proves the server has run everything before it.
            for (int i = 0; i < 3; i++) log.add("c> " + c.readReply());
            log.add("w " + w.call("PUBLISH", k("ch"), "hi"));
            log.add("c> " + c.readReply());
            log.add("w " + w.call("SET", k("tk"), "1"));
            log.add("c> " + c.readReply());
            c.sendCommand("UNSUBSCRIBE", k("ch"));
            c.sendCommand("PING");
            c.sendCommand("CLIENT", "REPLY", "ON");
            for (String m; !(m = c.readReply()).equals("+OK\r\n"); ) log.add("c> " + m);
            log.add("c " + c.call("GET", k("x")));
        }
        return log;
    }

    @Test
    void resp3_replyOff_stillDeliversPushes() throws Exception {
        List<String> expected = run(redis().port());
        List<String> actual = run(tide().port());
        assertThat(String.join("\n", actual).replace("\r\n", "|"))
                .isEqualTo(String.join("\n", expected).replace("\r\n", "|"));
    }

    private List<String> runResp2(int port) throws IOException {
        List<String> log = new ArrayList<>();
        try (RawClient c = new RawClient(port); RawClient w = new RawClient(port)) {
            c.sendCommand("CLIENT", "REPLY", "OFF");
            c.sendCommand("SUBSCRIBE", k("ch"), k("ch2"));
            for (int i = 0; i < 2; i++) log.add("c> " + c.readReply());
            log.add("w " + w.call("PUBLISH", k("ch"), "hi"));
            log.add("c> " + c.readReply());
            c.sendCommand("PING");
            c.sendCommand("UNSUBSCRIBE", k("ch"), k("ch2"));
            c.sendCommand("CLIENT", "REPLY", "ON");
            for (String m; !(m = c.readReply()).equals("+OK\r\n"); ) log.add("c> " + m);
            c.sendCommand("CLIENT", "REPLY", "SKIP");
            c.sendCommand("SUBSCRIBE", k("a"));
            log.add("c> " + c.readReply());
            log.add("c " + c.call("UNSUBSCRIBE"));
        }
        return log;
    }

    @Test
    void resp2_replyOffAndSkip_stillSendSubscribeConfirmations() throws Exception {
        List<String> expected = runResp2(redis().port());
        List<String> actual = runResp2(tide().port());
        assertThat(String.join("\n", actual).replace("\r\n", "|"))
                .isEqualTo(String.join("\n", expected).replace("\r\n", "|"));
    }
}
