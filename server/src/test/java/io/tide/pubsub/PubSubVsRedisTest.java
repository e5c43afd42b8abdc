package io.tide.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same scripted pub/sub sessions against redis-server and Tide (two shards): subscriber and publisher
 * on separate connections; every reply and every delivered frame must be byte-identical, RESP2 and RESP3.
 */
class PubSubVsRedisTest {

    private static RealRedis redis;
    private static Server tide;
    private static int round;

    @BeforeAll
    static void startServers() throws Exception {
        redis = RealRedis.start();
        tide = TestServers.start(2);
    }

    @AfterAll
    static void stopServers() {
        if (tide != null) tide.close();
        if (redis != null) redis.close();
    }

    /** Runs {@code script} on both servers and returns the two transcripts. */
    private static void same(int proto, Script script) throws IOException {
        String p = "c" + (round++) + ":";
        List<String> expected = new ArrayList<>();
        List<String> actual = new ArrayList<>();
        try (RawClient rs = new RawClient(redis.port()); RawClient rp = new RawClient(redis.port());
             RawClient ts = new RawClient(tide.port()); RawClient tp = new RawClient(tide.port())) {
            if (proto == 3) {
                rs.call("HELLO", "3");
                ts.call("HELLO", "3");
            }
            script.run(new Session(rs, rp, expected), p);
            script.run(new Session(ts, tp, actual), p);
        }
        assertThat(String.join("\n", actual).replace("\r\n", "\\r\\n"))
                .isEqualTo(String.join("\n", expected).replace("\r\n", "\\r\\n"));
    }

    interface Script {
        void run(Session s, String p) throws IOException;
    }

    /** A subscriber connection and a publisher connection; every reply read is recorded. */
    record Session(RawClient sub, RawClient pub, List<String> log) {
        void sub(String... args) throws IOException {
            log.add(sub.call(args));
        }

        void pub(String... args) throws IOException {
            log.add(pub.call(args));
        }

        /** Reads {@code n} more frames from the subscriber (extra confirmations, messages). */
        void read(int n) throws IOException {
            for (int i = 0; i < n; i++) log.add(sub.readReply());
        }
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void subscribe_publish_unsubscribe_repliesAsRedis(int proto) throws IOException {
        same(proto, (s, p) -> {
            s.sub("SUBSCRIBE", p + "a", p + "b", p + "a");
            s.read(2);
            s.pub("PUBLISH", p + "a", "hello");
            s.read(1);
            s.pub("PUBLISH", p + "none", "x");
            s.pub("PUBSUB", "NUMSUB", p + "a", p + "b", p + "none");
            s.pub("PUBSUB", "CHANNELS", p + "a*");
            s.sub("PSUBSCRIBE", p + "*");
            s.pub("PUBLISH", p + "b", "two");
            s.read(2);
            s.pub("PUBSUB", "NUMPAT");
            s.sub("UNSUBSCRIBE", p + "a", p + "zzz");
            s.read(1);
            s.sub("UNSUBSCRIBE");
            s.sub("PUNSUBSCRIBE");
            s.sub("PUNSUBSCRIBE");
            s.sub("UNSUBSCRIBE");
            s.pub("PUBLISH", p + "b", "gone");
            s.sub("PING");
        });
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void shardChannels_repliesAsRedis(int proto) throws IOException {
        same(proto, (s, p) -> {
            s.sub("SSUBSCRIBE", p + "{x}a", p + "{x}b");
            s.read(1);
            s.pub("SPUBLISH", p + "{x}a", "m1");
            s.read(1);
            s.pub("PUBLISH", p + "{x}a", "not-shard");
            s.pub("PUBSUB", "SHARDNUMSUB", p + "{x}a", p + "nope");
            s.pub("PUBSUB", "SHARDCHANNELS", p + "{x}b");
            s.sub("SUNSUBSCRIBE", p + "{x}a");
            s.sub("SUNSUBSCRIBE");
            s.sub("SUNSUBSCRIBE");
        });
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void subscribeMode_gatesCommands_asRedis(int proto) throws IOException {
        same(proto, (s, p) -> {
            s.sub("SUBSCRIBE", p + "a");
            s.sub("PING");
            s.sub("PING", "hi");
            s.sub("GET", "k");
            s.sub("CLIENT", "ID".equals("x") ? "x" : "GETNAME");
            s.sub("RESET");
            s.sub("PING");
            s.pub("PUBLISH", p + "a", "after-reset");
        });
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void pubsubErrors_asRedis(int proto) throws IOException {
        same(proto, (s, p) -> {
            s.pub("PUBSUB");
            s.pub("PUBSUB", "FOO");
            s.pub("PUBSUB", "CHANNELS", "a", "b");
            s.pub("PUBSUB", "NUMPAT", "x");
            s.pub("PUBSUB", "NUMSUB");
            s.pub("PUBLISH", "a");
            s.pub("SUBSCRIBE");
            s.pub("PUBSUB", "HELP");
        });
    }
}
