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
import org.junit.jupiter.api.Test;

/**
 * CLIENT TRACKING against redis-server and Tide (two shards): the same scripts on a tracking connection
 * {@code c}, a writer {@code w} and a RESP2 redirect target {@code r}; replies and invalidation frames
 * must be byte-identical (client ids are passed by value, never compared).
 */
class TrackingVsRedisTest {

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

    interface Script {
        void run(Conns s, String p) throws IOException;
    }

    record Conns(RawClient c, RawClient w, RawClient r, String rid, List<String> log) {
        void c(String... a) throws IOException {
            log.add("c " + c.call(a).replace(":" + rid + "\r\n", ":RID\r\n"));
        }

        void w(String... a) throws IOException {
            log.add("w " + w.call(a));
        }

        void r(String... a) throws IOException {
            log.add("r " + r.call(a));
        }

        void readC() throws IOException {
            log.add("c> " + c.readReply().replace(":" + rid + "\r\n", ":RID\r\n"));
        }

        void readR() throws IOException {
            log.add("r> " + r.readReply());
        }

        /** Logs every push {@code c} has received, one frame each, up to the reply of a PING sent now. */
        void drainC() throws IOException {
            c.sendCommand("PING");
            for (String m; !(m = c.readReply()).equals("+PONG\r\n"); ) log.add("c> " + m);
        }

        /** As {@link #drainC} for the subscribed redirect target {@code r} (its PING answers {@code pong ""}). */
        void drainR() throws IOException {
            r.sendCommand("PING");
            for (String m; !(m = r.readReply()).startsWith("*2\r\n$4\r\npong"); ) log.add("r> " + m);
        }
    }

    private static List<String> run(int port, int proto, Script s, String p) throws Exception {
        List<String> log = new ArrayList<>();
        try (RawClient c = new RawClient(port); RawClient w = new RawClient(port); RawClient r = new RawClient(port)) {
            if (proto == 3) c.call("HELLO", "3");
            String rid = r.call("CLIENT", "ID").substring(1).trim();
            s.run(new Conns(c, w, r, rid, log), p);
        }
        return log;
    }

    private static void same(int proto, Script s) throws Exception {
        String p = "tr" + (round++) + ":";
        List<String> expected = run(redis.port(), proto, s, p);
        List<String> actual = run(tide.port(), proto, s, p);
        assertThat(String.join("\n", actual).replace("\r\n", "|"))
                .isEqualTo(String.join("\n", expected).replace("\r\n", "|"));
    }

    @Test
    void resp3_defaultMode_invalidatesReadKeysOnce() throws Exception {
        same(3, (s, p) -> {
            s.c("CLIENT", "TRACKING", "ON");
            s.c("GET", p + "a");
            s.c("MGET", p + "b", p + "c");
            s.w("SET", p + "a", "1");
            s.readC();
            s.w("SET", p + "a", "2"); // no longer tracked: no message
            s.w("SET", p + "b", "x");
            s.readC();
            s.c("GET", p + "a");
            s.c("CLIENT", "TRACKINGINFO");
            s.c("CLIENT", "GETREDIR");
            s.c("CLIENT", "TRACKING", "OFF");
            s.c("CLIENT", "TRACKINGINFO");
            s.c("CLIENT", "GETREDIR");
        });
    }

    /** Redis tracks the key its getkeys function names, so SORT_RO with a BY or GET pattern tracks the sorted key. */
    @Test
    void resp3_sortRoWithPatterns_tracksTheSortedKey() throws Exception {
        same(3, (s, p) -> {
            s.w("RPUSH", p + "{l}", "b", "a");
            s.w("SET", p + "w_a", "2");
            s.c("CLIENT", "TRACKING", "ON");
            s.c("SORT_RO", p + "{l}", "BY", p + "w_*");
            s.c("SORT_RO", p + "{l}", "ALPHA", "GET", "#", "GET", p + "w_*");
            s.w("RPUSH", p + "{l}", "c");
            s.readC();
        });
    }

    /**
     * A read-only script that reads nothing tracks nothing, though it declares a key. (Where its calls read, Redis
     * 7.0 tracks the script's declared keys, later Redis and Tide the keys the calls read: not compared here.)
     */
    @Test
    void resp3_evalRoThatReadsNothing_tracksNothing() throws Exception {
        same(3, (s, p) -> {
            s.w("SET", p + "{k}a", "1");
            s.w("SET", p + "{k}b", "1");
            s.c("CLIENT", "TRACKING", "ON");
            s.c("EVAL_RO", "return 1", "1", p + "{k}a");
            s.c("GET", p + "{k}b");
            s.w("SET", p + "{k}a", "2"); // declared only: no message
            s.w("SET", p + "{k}b", "2");
            s.readC();
        });
    }

    /**
     * Invalidations follow Redis's signalModifiedKey, not whether the value changed: LTRIM that keeps the whole list
     * invalidates the list, SETBIT of a bit already set does not invalidate the string.
     */
    @Test
    void resp3_writesThatChangeNothing_invalidateWhereRedisSignalsThem() throws Exception {
        same(3, (s, p) -> {
            s.w("RPUSH", p + "l", "a", "b");
            s.w("SET", p + "bits", "1"); // 0x31: bit 7 is set
            s.w("SET", p + "m", "0");
            s.c("CLIENT", "TRACKING", "ON");
            s.c("LRANGE", p + "l", "0", "-1");
            s.c("GET", p + "bits");
            s.c("GET", p + "m");
            s.w("LTRIM", p + "l", "0", "-1");
            s.readC();
            s.w("SETBIT", p + "bits", "7", "1");
            s.w("SET", p + "m", "1");
            s.readC(); // the marker's invalidation: the unchanged bit sent none
        });
    }

    @Test
    void resp3_bcastOptinNoloop() throws Exception {
        same(3, (s, p) -> {
            s.c("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", p + "x:", "PREFIX", p + "y:");
            s.c("CLIENT", "TRACKINGINFO");
            s.w("SET", p + "x:1", "v");
            s.readC();
            s.w("SET", p + "z:1", "v");
            s.w("SET", p + "y:1", "v");
            s.readC();
            s.c("CLIENT", "TRACKING", "OFF");
            s.c("CLIENT", "TRACKING", "ON", "OPTIN");
            s.c("GET", p + "a");
            s.c("CLIENT", "CACHING", "YES");
            s.c("CLIENT", "TRACKINGINFO");
            s.c("GET", p + "b");
            s.w("SET", p + "a", "1");
            s.w("SET", p + "b", "1");
            s.readC();
            s.c("CLIENT", "TRACKING", "OFF");
            s.c("CLIENT", "TRACKING", "ON", "NOLOOP");
            s.c("GET", p + "n");
            s.c("SET", p + "n", "1");
            s.c("GET", p + "m");
            s.w("SET", p + "m", "1");
            s.readC();
        });
    }

    @Test
    void resp2_redirect_sendsInvalidationsOnTheChannel() throws Exception {
        same(2, (s, p) -> {
            s.r("SUBSCRIBE", "__redis__:invalidate");
            s.c("CLIENT", "TRACKING", "ON", "REDIRECT", s.rid());
            s.c("GET", p + "k");
            s.w("SET", p + "k", "v");
            s.readR();
            s.w("FLUSHALL");
            s.readR();
            s.log().add("redir " + s.c().call("CLIENT", "GETREDIR").equals(":" + s.rid() + "\r\n"));
        });
    }

    @Test
    void resp3_redirectToAClientThatLeft_getsTrackingRedirBroken() throws Exception {
        same(3, (s, p) -> {
            s.c("CLIENT", "TRACKING", "ON", "REDIRECT", s.rid());
            s.c("GET", p + "k");
            s.r().close();
            for (int i = 0; i < 100; i++) { // until the server has seen the redirect target go
                if (!s.w().call("CLIENT", "LIST").contains("id=" + s.rid() + " ")) break;
                try {
                    Thread.sleep(10);
                } catch (InterruptedException e) {
                    throw new IOException(e);
                }
            }
            s.c("CLIENT", "TRACKINGINFO");
            s.w("SET", p + "k", "v");
            s.readC();
            s.c("CLIENT", "TRACKINGINFO");
        });
    }

    @Test
    void trackingErrors_asRedis() throws Exception {
        same(2, (s, p) -> {
            s.c("CLIENT", "TRACKING", "ON", "REDIRECT", "999999");
            s.c("CLIENT", "TRACKING", "ON", "REDIRECT", "x");
            s.c("CLIENT", "TRACKING", "ON", "PREFIX", "a");
            s.c("CLIENT", "TRACKING", "ON", "OPTIN", "OPTOUT");
            s.c("CLIENT", "TRACKING", "ON", "BCAST", "OPTIN");
            s.c("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a", "PREFIX", "ab");
            s.c("CLIENT", "TRACKING", "MAYBE");
            s.c("CLIENT", "TRACKING", "ON", "FOO");
            s.c("CLIENT", "CACHING", "YES");
            s.c("CLIENT", "TRACKING", "ON", "OPTIN");
            s.c("CLIENT", "CACHING", "NO");
            s.c("CLIENT", "CACHING", "MAYBE");
            s.c("CLIENT", "TRACKING", "ON", "OPTOUT");
            s.c("CLIENT", "TRACKING", "ON", "BCAST");
            s.c("CLIENT", "TRACKING", "OFF");
            s.c("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "a");
            s.c("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "ab");
            s.c("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", "b");
            s.c("CLIENT", "TRACKINGINFO");
            s.c("CLIENT", "TRACKING", "ON");
        });
    }

    @Test
    void resp3_multiKeyWrites_defaultMode_oneMessagePerKey_asRedis70() throws Exception {
        same(3, (s, p) -> {
            s.c("CLIENT", "TRACKING", "ON");
            s.c("MGET", p + "a", p + "b", p + "c");
            s.w("MSET", p + "a", "1", p + "b", "2", p + "c", "3");
            s.drainC();
            s.c("MGET", p + "a", p + "b", p + "c");
            s.w("DEL", p + "a", p + "b");
            s.drainC();
            s.c("MGET", p + "a", p + "b", p + "c");
            s.w("MULTI");
            s.w("SET", p + "a", "x");
            s.w("SET", p + "c", "y");
            s.w("EXEC");
            s.drainC();
            s.c("MGET", p + "a", p + "b", p + "c");
            s.w("EVAL", "redis.call('set', KEYS[1], 'x') redis.call('set', KEYS[2], 'y') return 1", "2",
                    p + "a", p + "b");
            s.drainC();
            s.c("MGET", p + "a", p + "b", p + "c");
            s.c("MSET", p + "a", "1", p + "b", "2"); // the client's own write: its reply comes first
            s.drainC();
        });
    }

    @Test
    void resp3_bcast_oneMessagePerPrefixForACommand() throws Exception {
        same(3, (s, p) -> {
            s.c("CLIENT", "TRACKING", "ON", "BCAST", "PREFIX", p + "x:", "PREFIX", p + "y:");
            s.w("MSET", p + "x:1", "1", p + "y:1", "2", p + "x:2", "3", p + "z:1", "4");
            s.drainC();
            s.w("DEL", p + "x:1", p + "x:2", p + "y:1");
            s.drainC();
            s.w("MULTI");
            s.w("SET", p + "x:1", "a");
            s.w("SET", p + "x:2", "b");
            s.w("EXEC");
            s.drainC();
            s.w("EVAL", "redis.call('set', KEYS[1], 'x') redis.call('set', KEYS[2], 'y') return 1", "2",
                    p + "y:1", p + "y:2");
            s.drainC();
            s.c("MSET", p + "x:1", "1", p + "x:2", "2");
            s.drainC();
            s.c("CLIENT", "TRACKING", "OFF");
            s.c("CLIENT", "TRACKING", "ON", "BCAST", "NOLOOP", "PREFIX", p + "x:");
            s.c("MSET", p + "x:1", "1", p + "x:2", "2");
            s.drainC();
            s.w("MSET", p + "x:1", "1", p + "x:3", "2");
            s.drainC();
        });
    }

    @Test
    void resp2_redirect_multiKeyWrites_asRedis() throws Exception {
        same(2, (s, p) -> {
            s.r("SUBSCRIBE", "__redis__:invalidate");
            s.c("CLIENT", "TRACKING", "ON", "REDIRECT", s.rid());
            s.c("MGET", p + "a", p + "b");
            s.w("MSET", p + "a", "1", p + "b", "2");
            s.drainR();
            s.c("CLIENT", "TRACKING", "OFF");
            s.c("CLIENT", "TRACKING", "ON", "REDIRECT", s.rid(), "BCAST", "PREFIX", p);
            s.w("MSET", p + "a", "1", p + "b", "2");
            s.drainR();
        });
    }

    @Test
    void resp3_expiredKey_isInvalidated() throws Exception {
        same(3, (s, p) -> {
            s.w("SET", p + "a", "1", "PX", "200");
            s.c("CLIENT", "TRACKING", "ON");
            s.c("GET", p + "a");
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                throw new IOException(e);
            }
            s.w("GET", p + "a"); // expired now, lazily or by the active cycle: one invalidation either way
            s.drainC();
        });
    }
}
