package io.tide.pubsub;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.tide.testing.RawClient;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.exceptions.JedisDataException;

/** Pub/sub through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one, two and four shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2, 4})
class PubSubTest extends ServerPerShardCount {

    private static int round;

    private static String channel() {
        return "ch" + (round++);
    }

    /** A Jedis subscriber on its own thread that records messages and counts down per message. */
    private static final class Recorder extends JedisPubSub {
        final List<String> got = Collections.synchronizedList(new ArrayList<>());
        final CountDownLatch subscribed = new CountDownLatch(1);
        final CountDownLatch done;

        Recorder(int expected) {
            done = new CountDownLatch(expected);
        }

        @Override
        public void onMessage(String channel, String message) {
            got.add(channel + "=" + message);
            done.countDown();
        }

        @Override
        public void onPMessage(String pattern, String channel, String message) {
            got.add(pattern + ":" + channel + "=" + message);
            done.countDown();
        }

        @Override
        public void onSubscribe(String channel, int count) {
            subscribed.countDown();
        }

        @Override
        public void onPSubscribe(String pattern, int count) {
            subscribed.countDown();
        }
    }

    private static Thread listen(int proto, Recorder r, Runnable body) {
        Thread t = new Thread(body, "subscriber");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static void await(CountDownLatch l) throws InterruptedException {
        assertThat(l.await(10, TimeUnit.SECONDS)).as("latch").isTrue();
    }

    @Test
    void publish_fromEveryConnection_reachesJedisSubscriberInOrder_resp2AndResp3() throws Exception {
        for (int proto : new int[] {2, 3}) {
            String ch = channel();
            Recorder r = new Recorder(40);
            Jedis subConn = jedis(proto);
            Thread t = listen(proto, r, () -> subConn.subscribe(r, ch));
            await(r.subscribed);
            List<Jedis> pubs = new ArrayList<>();
            for (int i = 0; i < 4; i++) pubs.add(jedis(2)); // spread over the shards' loops
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                assertThat(pubs.get(0).publish(ch, "m" + i)).isEqualTo(1);
                expected.add(ch + "=m" + i);
            }
            await(r.done);
            assertThat(r.got).containsExactlyElementsOf(expected);
            int others = 0;
            for (Jedis p : pubs) others += (int) (long) p.publish(ch, "each");
            assertThat(others).isEqualTo(4);
            r.unsubscribe();
            t.join(5000);
            subConn.close();
            for (Jedis p : pubs) p.close();
        }
    }

    @Test
    void psubscribe_matchesChannelsPublishedAnywhere() throws Exception {
        String ch = channel();
        Recorder r = new Recorder(2);
        Jedis subConn = jedis(2);
        Thread t = listen(2, r, () -> subConn.psubscribe(r, ch + ":*"));
        await(r.subscribed);
        try (Jedis p = jedis(2)) {
            assertThat(p.publish(ch + ":x", "1")).isEqualTo(1);
            assertThat(p.publish(ch + "-no", "2")).isZero();
            assertThat(p.publish(ch + ":y", "3")).isEqualTo(1);
            await(r.done);
            assertThat(r.got).containsExactly(ch + ":*:" + ch + ":x=1", ch + ":*:" + ch + ":y=3");
            assertThat(p.pubsubNumPat()).isEqualTo(1);
        }
        r.punsubscribe();
        t.join(5000);
        subConn.close();
    }

    @Test
    void lettucePubSubConnection_receivesMessagesAndShardMessages_resp2AndResp3() throws Exception {
        for (int proto : new int[] {2, 3}) {
            String ch = channel();
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisPubSubConnection<String, String> sub = client.connectPubSub();
                 var pub = client.connect()) {
                List<String> got = Collections.synchronizedList(new ArrayList<>());
                CountDownLatch latch = new CountDownLatch(3);
                sub.addListener(new RedisPubSubAdapter<>() {
                    @Override
                    public void message(String channel, String message) {
                        got.add(channel + "=" + message);
                        latch.countDown();
                    }

                    @Override
                    public void message(String pattern, String channel, String message) {
                        got.add(pattern + "|" + channel + "=" + message);
                        latch.countDown();
                    }

                    @Override
                    public void smessage(String channel, String message) {
                        got.add("s:" + channel + "=" + message);
                        latch.countDown();
                    }
                });
                sub.sync().subscribe(ch);
                sub.sync().psubscribe(ch + "*");
                assertThat(pub.sync().publish(ch, "hello")).isEqualTo(2);
                assertThat(pub.sync().pubsubNumsub(ch)).containsEntry(ch, 1L);
                assertThat(pub.sync().pubsubChannels(ch)).containsExactly(ch);
                sub.sync().ssubscribe("{" + ch + "}s");
                assertThat(pub.sync().spublish("{" + ch + "}s", "sharded")).isEqualTo(1);
                await(latch);
                assertThat(got).containsExactlyInAnyOrder(ch + "=hello", ch + "*|" + ch + "=hello",
                        "s:{" + ch + "}s=sharded");
                if (proto == 3) {
                    // RESP3: a subscribed connection runs ordinary commands too.
                    assertThat(sub.sync().ping()).isEqualTo("PONG");
                    sub.sync().set(ch + "k", "v");
                    assertThat(sub.sync().get(ch + "k")).isEqualTo("v");
                }
                sub.sync().unsubscribe(ch);
                sub.sync().punsubscribe(ch + "*");
                assertThat(pub.sync().publish(ch, "late")).isZero();
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void resp2SubscribeMode_rejectsOtherCommands_resp3DoesNot() throws Exception {
        String ch = channel();
        try (RawClient c = new RawClient(server.port())) {
            c.call("SUBSCRIBE", ch);
            assertThat(c.call("GET", "x")).isEqualTo("-ERR Can't execute 'get': only (P|S)SUBSCRIBE / "
                    + "(P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context\r\n");
            assertThat(c.call("PING")).isEqualTo("*2\r\n$4\r\npong\r\n$0\r\n\r\n");
            assertThat(c.call("RESET")).isEqualTo("+RESET\r\n");
            assertThat(c.call("GET", "x")).isEqualTo("$-1\r\n");
        }
        try (RawClient c = new RawClient(server.port()); Jedis p = jedis(2)) {
            c.call("HELLO", "3");
            assertThat(c.call("SUBSCRIBE", ch)).isEqualTo(">3\r\n$9\r\nsubscribe\r\n$" + ch.length() + "\r\n" + ch
                    + "\r\n:1\r\n");
            assertThat(c.call("GET", "x")).isEqualTo("_\r\n");
            assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
            p.publish(ch, "v");
            assertThat(c.readReply()).isEqualTo(">3\r\n$7\r\nmessage\r\n$" + ch.length() + "\r\n" + ch
                    + "\r\n$1\r\nv\r\n");
        }
    }

    @Test
    void subscribeInsideExec_answersItsConfirmationsAsOneArray_andEntersSubscribeMode() throws Exception {
        String ch = channel();
        try (RawClient c = new RawClient(server.port())) {
            c.call("MULTI");
            c.call("SUBSCRIBE", ch, ch + "b");
            c.call("PUBLISH", ch, "x");
            String n = ch.length() + "\r\n" + ch;
            assertThat(c.call("EXEC")).isEqualTo("*2\r\n*2\r\n*3\r\n$9\r\nsubscribe\r\n$" + n + "\r\n:1\r\n"
                    + "*3\r\n$9\r\nsubscribe\r\n$" + (ch.length() + 1) + "\r\n" + ch + "b\r\n:2\r\n:1\r\n");
            assertThat(c.readReply()).isEqualTo("*3\r\n$7\r\nmessage\r\n$" + n + "\r\n$1\r\nx\r\n");
            assertThat(c.call("PING")).isEqualTo("*2\r\n$4\r\npong\r\n$0\r\n\r\n");
        }
    }

    @Test
    void clientListAndInfo_showSubscriptions_andDisconnectDropsThem() throws Exception {
        String ch = channel();
        try (Jedis p = jedis(2)) {
            try (RawClient c = new RawClient(server.port())) {
                c.call("CLIENT", "SETNAME", ch);
                c.call("SUBSCRIBE", ch, ch + "b");
                c.readReply();
                c.call("PSUBSCRIBE", ch + "*");
                c.call("SSUBSCRIBE", "{" + ch + "}");
                String line = p.clientList().lines().filter(l -> l.contains("name=" + ch + " ")).findFirst()
                        .orElseThrow();
                assertThat(line).contains(" flags=P ").contains(" sub=2 psub=1 ssub=1 ");
                assertThat(p.clientList(redis.clients.jedis.args.ClientType.PUBSUB)).contains("name=" + ch + " ");
                assertThat(p.clientList(redis.clients.jedis.args.ClientType.NORMAL)).doesNotContain("name=" + ch + " ");
                String info = p.info("stats");
                assertThat(info).contains("pubsub_channels:").contains("pubsub_patterns:")
                        .contains("pubsubshard_channels:");
                assertThat(p.pubsubNumSub(ch)).containsEntry(ch, 1L);
            }
            long deadline = System.currentTimeMillis() + 5000;
            while (p.pubsubNumSub(ch).get(ch) != 0 && System.currentTimeMillis() < deadline) Thread.sleep(10);
            assertThat(p.pubsubNumSub(ch)).containsEntry(ch, 0L);
            assertThat(p.publish(ch, "x")).isZero();
            assertThat(p.pubsubShardNumSub("{" + ch + "}")).containsEntry("{" + ch + "}", 0L);
        }
    }

    @Test
    void jedis_getInSubscribeModeRejected() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            c.call("PSUBSCRIBE", "x*");
            assertThat(c.call("CLIENT", "LIST")).startsWith("-ERR Can't execute 'client|list'");
        }
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.sendCommand(() -> "PUBSUB".getBytes(), "NOPE"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR unknown subcommand 'NOPE'. Try PUBSUB HELP.");
        }
    }

    @Test
    void slowSubscriber_isDisconnectedAtItsLimit_whileAnotherReceivesEverything() throws Exception {
        String ch = channel();
        int n = 3000;
        byte[] payload = new byte[8192];
        java.util.Arrays.fill(payload, (byte) 'x');
        try (Jedis admin = jedis(2)) {
            admin.configSet("client-output-buffer-limit", "pubsub 1mb 256kb 60");
            try (RawClient slow = new RawClient(server.port())) {
                slow.call("CLIENT", "SETNAME", "slow" + ch);
                slow.call("SUBSCRIBE", ch); // and never reads again
                Recorder r = new Recorder(n);
                Jedis good = jedis(2);
                Thread t = listen(2, r, () -> good.subscribe(r, ch));
                await(r.subscribed);
                try (Jedis pub = jedis(2)) {
                    String msg = new String(payload);
                    long t0 = System.nanoTime();
                    for (int i = 0; i < n; i++) {
                        pub.publish(ch, msg);
                        // Paced to what the good subscriber reads: it stays well under the limit.
                        while (r.got.size() < i - 32) Thread.onSpinWait();
                    }
                    assertThat((System.nanoTime() - t0) / 1_000_000).as("publisher never blocks").isLessThan(20_000);
                }
                assertThat(r.done.await(30, TimeUnit.SECONDS)).as("good subscriber got all").isTrue();
                assertThat(r.got).hasSize(n);
                long deadline = System.currentTimeMillis() + 5000;
                while (admin.clientList().contains("name=slow" + ch) && System.currentTimeMillis() < deadline) {
                    Thread.sleep(20);
                }
                assertThat(admin.clientList()).doesNotContain("name=slow" + ch);
                assertThat(admin.pubsubNumSub(ch)).containsEntry(ch, 1L);
                r.unsubscribe();
                t.join(5000);
                good.close();
            } finally {
                admin.configSet("client-output-buffer-limit", "pubsub 32mb 8mb 60");
            }
        }
    }
}
