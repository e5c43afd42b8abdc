package io.tide.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.KeyValue;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.TransactionResult;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisMonitor;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.Transaction;

/**
 * Issue 14: MONITOR clients coming and going on a four-shard Tide must never close, wedge or confuse any other
 * connection. Seven clients (Jedis and Lettuce, RESP2 and RESP3: a pipeline on one shard, synchronous commands and
 * MULTI/EXEC across shards, pipelined cross-shard MSET/MGET/DEL, short BLPOPs, two subscribers and a publisher) run
 * for about 12 seconds while three threads keep opening monitors (raw RESP2, raw RESP3, Jedis), reading for a random
 * short while and leaving by close, QUIT, RESET (then PING on the same connection), a TCP reset, or a close before
 * MONITOR's reply was read. Checked: every reply is the one its command must return, no worker sees an error or a
 * closed connection, every monitor line is well formed, a monitor sees each client's marker commands ({@code SET
 * ...seq n}) in the client's order (Tide's guarantee: a client's commands are fed in its order when it waits for
 * each reply, or when its pipeline stays on one shard; a pipeline spanning shards runs its hops in parallel),
 * nothing follows {@code +RESET} but the next reply, and afterwards no monitor registration or client is left.
 * Test threads only; the server runs on its own threads.
 */
class MonitorStressTest {

    private static final long LOAD_MS = 12_000;
    /** A monitor line: timestamp, database, source, then each argument quoted as sdscatrepr does. */
    private static final Pattern LINE = Pattern.compile(
            "\\d{10}\\.\\d{6} \\[\\d{1,2} (?:127\\.0\\.0\\.1:\\d{1,5}|lua)\\](?: \"(?:[^\"\\\\]|\\\\.)*\")+");
    private static final Pattern SOURCE = Pattern.compile("^\\S+ \\[\\d+ (\\S+)\\]");
    private static final Pattern MARKER = Pattern.compile(" \"SET\" \"[^\"]*seq\" \"(\\d+)\"(?: \"(?i:get)\")?$");

    private final ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();
    private final AtomicLong monitorLines = new AtomicLong();
    private final AtomicLong monitorSessions = new AtomicLong();
    private final AtomicLong markersChecked = new AtomicLong();
    private Server server;
    private volatile long deadline;

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : toClose) {
            try {
                c.close();
            } catch (Exception ignored) {
                // already closed by the test
            }
        }
        if (server != null) server.close();
    }

    private void fail(String who, Object what) {
        if (failures.size() < 50) failures.add(who + ": " + what);
    }

    private boolean running() {
        return System.currentTimeMillis() < deadline;
    }

    /** Runs {@code body} until the load ends; anything it throws is a failure of {@code who}. */
    private Thread worker(String who, ThrowingRunnable body) {
        Thread t = new Thread(() -> {
            try {
                body.run();
            } catch (Throwable e) {
                fail(who, e);
            }
        }, who);
        t.setDaemon(true);
        return t;
    }

    interface ThrowingRunnable {
        void run() throws Exception;
    }

    private void expect(String who, Object actual, Object expected) {
        if (!java.util.Objects.equals(actual, expected)) fail(who, "expected " + expected + " got " + actual);
    }

    @Test
    void monitorsComingAndGoing_neverDisturbOtherClients_andLeaveNoRegistration() throws Exception {
        server = TestServers.start(4);
        int port = server.port();
        List<Thread> threads = new ArrayList<>();

        // Subscribers first, so the publisher knows how many receive each message.
        Jedis jsub = TestServers.jedis(port, 2);
        toClose.add(jsub);
        AtomicLong jsubNext = new AtomicLong();
        JedisPubSub jedisSubscriber = new JedisPubSub() {
            @Override
            public void onMessage(String channel, String message) {
                expect("jedis-sub", message, "m" + jsubNext.getAndIncrement());
            }
        };
        Thread jsubThread = worker("jedis-sub", () -> jsub.subscribe(jedisSubscriber, "stress:ch"));
        jsubThread.start();
        RedisClient lsubClient = TestServers.lettuce(port, 3);
        toClose.add(lsubClient::shutdown);
        StatefulRedisPubSubConnection<String, String> lsub = lsubClient.connectPubSub();
        AtomicLong lsubNext = new AtomicLong();
        AtomicLong lsubReceived = new AtomicLong();
        lsub.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                expect("lettuce-sub", message, "m" + lsubNext.getAndIncrement());
                lsubReceived.incrementAndGet();
            }
        });
        lsub.sync().subscribe("stress:ch");
        try (Jedis probe = TestServers.jedis(port, 2)) {
            long until = System.currentTimeMillis() + 5000;
            while (probe.pubsubNumSub("stress:ch").get("stress:ch") < 2 && System.currentTimeMillis() < until) {
                Thread.sleep(5);
            }
        }

        deadline = System.currentTimeMillis() + LOAD_MS;

        // A RESP2 pipeline whose keys all live on one shard: its marker SETs reach monitors in its order.
        Jedis pipe = TestServers.jedis(port, 2);
        toClose.add(pipe);
        threads.add(worker("jedis2-pipeline", () -> {
            long seq = 0;
            long ctr = 0;
            String lastA = null;
            while (running()) {
                Pipeline p = pipe.pipelined();
                List<Response<?>> rs = new ArrayList<>();
                List<Object> want = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    seq++;
                    rs.add(p.set("{p1}seq", Long.toString(seq)));
                    want.add("OK");
                    seq++; // a second marker right behind the first: a swap of adjacent lines shows
                    rs.add(p.setGet("{p1}aseq", Long.toString(seq)));
                    want.add(lastA);
                    lastA = Long.toString(seq);
                    rs.add(p.get("{p1}seq"));
                    want.add(Long.toString(seq - 1));
                    rs.add(p.incr("{p1}ctr"));
                    want.add(++ctr);
                    rs.add(p.lpush("{p1}list", "x"));
                    want.add(1L);
                    rs.add(p.del("{p1}list"));
                    want.add(1L);
                }
                p.sync();
                for (int i = 0; i < rs.size(); i++) expect("jedis2-pipeline", rs.get(i).get(), want.get(i));
            }
        }));

        // RESP3, synchronous, keys on every shard, and MULTI/EXEC across shards.
        Jedis sync3 = TestServers.jedis(port, 3);
        toClose.add(sync3);
        threads.add(worker("jedis3-sync-tx", () -> {
            long seq = 0;
            while (running()) {
                String tag = "{s" + (seq % 16) + "}";
                seq++;
                expect("jedis3-sync-tx", sync3.set(tag + "seq", Long.toString(seq)), "OK");
                expect("jedis3-sync-tx", sync3.get(tag + "seq"), Long.toString(seq));
                Transaction tx = sync3.multi();
                seq++;
                tx.set("{t" + (seq % 7) + "}seq", Long.toString(seq));
                tx.set("{u" + (seq % 5) + "}x", "v" + seq);
                tx.get("{u" + (seq % 5) + "}x");
                tx.incrBy("{w" + (seq % 3) + "}n", 0);
                List<Object> r = tx.exec();
                expect("jedis3-sync-tx", r == null ? null : r.subList(0, 3), List.of("OK", "OK", "v" + seq));
                expect("jedis3-sync-tx", sync3.del(tag + "seq", "{u" + (seq % 5) + "}x"), 2L);
            }
        }));

        // RESP2 Lettuce, asynchronous: pipelined MSET/MGET/DEL whose keys span shards.
        RedisClient asyncClient = TestServers.lettuce(port, 2);
        toClose.add(asyncClient::shutdown);
        StatefulRedisConnection<String, String> asyncConn = asyncClient.connect();
        threads.add(worker("lettuce2-mset", () -> {
            RedisAsyncCommands<String, String> a = asyncConn.async();
            long round = 0;
            while (running()) {
                List<RedisFuture<?>> fs = new ArrayList<>();
                List<Object> want = new ArrayList<>();
                for (int i = 0; i < 10; i++) {
                    round++;
                    String v = "r" + round;
                    Map<String, String> kv = new HashMap<>();
                    for (int k = 0; k < 4; k++) kv.put("{m" + k + "}" + (round % 3), v);
                    fs.add(a.mset(kv));
                    want.add("OK");
                    fs.add(a.mget("{m0}" + (round % 3), "{m1}" + (round % 3), "{m2}" + (round % 3),
                            "{m3}" + (round % 3)));
                    want.add(List.of(KeyValue.just("{m0}" + (round % 3), v), KeyValue.just("{m1}" + (round % 3), v),
                            KeyValue.just("{m2}" + (round % 3), v), KeyValue.just("{m3}" + (round % 3), v)));
                    fs.add(a.get("{m2}" + (round % 3)));
                    want.add(v);
                    fs.add(a.del("{m0}" + (round % 3), "{m1}" + (round % 3), "{m2}" + (round % 3),
                            "{m3}" + (round % 3)));
                    want.add(4L);
                    fs.add(a.exists("{m1}" + (round % 3)));
                    want.add(0L);
                }
                for (int i = 0; i < fs.size(); i++) {
                    expect("lettuce2-mset", fs.get(i).get(10, TimeUnit.SECONDS), want.get(i));
                }
            }
        }));

        // RESP3 Lettuce: BLPOPs that time out (one key, and keys on two shards) and one that is served.
        RedisClient blockClient = TestServers.lettuce(port, 3);
        toClose.add(blockClient::shutdown);
        StatefulRedisConnection<String, String> blockConn = blockClient.connect();
        String[] apart = TestServers.keysOnDifferentShards(server, "bnone");
        threads.add(worker("lettuce3-blpop", () -> {
            RedisCommands<String, String> s = blockConn.sync();
            long seq = 0;
            while (running()) {
                seq++;
                expect("lettuce3-blpop", s.blpop(0.02, "{b}empty"), null);
                expect("lettuce3-blpop", s.rpush("{b}list", "v" + seq), 1L);
                expect("lettuce3-blpop", s.blpop(1, "{b}list"), KeyValue.just("{b}list", "v" + seq));
                expect("lettuce3-blpop", s.blpop(0.01, apart[0], apart[1]), null);
            }
        }));

        // RESP3 Lettuce: MULTI/EXEC across shards.
        RedisClient txClient = TestServers.lettuce(port, 3);
        toClose.add(txClient::shutdown);
        StatefulRedisConnection<String, String> txConn = txClient.connect();
        threads.add(worker("lettuce3-tx", () -> {
            RedisCommands<String, String> s = txConn.sync();
            long n = 0;
            while (running()) {
                n++;
                expect("lettuce3-tx", s.multi(), "OK");
                s.set("{x1}a", "a" + n);
                s.set("{x2}b", "b" + n);
                s.mget("{x1}a", "{x2}b");
                s.incr("{x3}c");
                TransactionResult r = s.exec();
                expect("lettuce3-tx", r.wasDiscarded(), false);
                expect("lettuce3-tx", r.get(2), List.of(KeyValue.just("{x1}a", "a" + n), KeyValue.just("{x2}b", "b" + n)));
                expect("lettuce3-tx", r.get(3), n);
            }
        }));

        // The publisher: both subscribers receive every message.
        RedisClient pubClient = TestServers.lettuce(port, 2);
        toClose.add(pubClient::shutdown);
        StatefulRedisConnection<String, String> pubConn = pubClient.connect();
        AtomicLong published = new AtomicLong();
        threads.add(worker("lettuce2-publish", () -> {
            RedisCommands<String, String> s = pubConn.sync();
            while (running()) {
                expect("lettuce2-publish", s.publish("stress:ch", "m" + published.getAndIncrement()), 2L);
            }
        }));

        Jedis probe = TestServers.jedis(port, 2);
        toClose.add(probe);
        pipe.ping(); // every worker connected before the baseline is taken
        sync3.ping();
        int baseline = clientCount(probe);

        for (int m = 0; m < 3; m++) {
            int id = m;
            threads.add(worker("monitor-" + id, () -> {
                while (running()) monitorOnce("monitor-" + id, port);
            }));
        }
        for (Thread t : threads) t.start();
        for (Thread t : threads) t.join(LOAD_MS + 20_000);
        for (Thread t : threads) if (t.isAlive()) fail(t.getName(), "still running (wedged?)");

        // Every monitor has left: no registration, no extra client, no client flagged O.
        long until = System.currentTimeMillis() + 5000;
        while ((server.context().monitor().size() > 0 || clientCount(probe) != baseline)
                && System.currentTimeMillis() < until) {
            Thread.sleep(10);
        }
        String list = probe.clientList();
        // The clients still connected, on failure: a monitor that is gone but registered shows no flags=O line.
        assertThat(server.context().monitor().size()).as(list).isZero();
        assertThat(list.lines().count()).as(list).isEqualTo(baseline);
        assertThat(list).doesNotContain("flags=O");
        assertThat(infoField(probe, "connected_clients")).isEqualTo(Long.toString(baseline));

        // The subscribers got every message, in order.
        until = System.currentTimeMillis() + 5000;
        while ((jsubNext.get() < published.get() || lsubReceived.get() < published.get())
                && System.currentTimeMillis() < until) {
            Thread.sleep(10);
        }
        expect("jedis-sub", jsubNext.get(), published.get());
        expect("lettuce-sub", lsubReceived.get(), published.get());
        jedisSubscriber.unsubscribe();
        jsubThread.join(5000);

        assertThat(failures).as("failures").isEmpty();
        // The run did what it claims (enough monitors, lines, commands).
        assertThat(monitorSessions.get()).isGreaterThan(10); // about 100 on a quiet 2-core machine, 30 under load
        assertThat(monitorLines.get()).isGreaterThan(10_000);
        assertThat(markersChecked.get()).isGreaterThan(1000);
        assertThat(published.get()).isGreaterThan(100);
    }

    private static int clientCount(Jedis probe) {
        return (int) probe.clientList().lines().count();
    }

    private static String infoField(Jedis j, String field) {
        for (String line : j.info("clients").split("\r\n")) {
            if (line.startsWith(field + ":")) return line.substring(field.length() + 1);
        }
        return null;
    }

    /** Checks one line (without its '+' and CRLF) and its client's marker order; {@code last}: per source. */
    private void checkLine(String who, String line, Map<String, Long> last) {
        monitorLines.incrementAndGet();
        if (!LINE.matcher(line).matches()) {
            fail(who, "malformed line " + line);
            return;
        }
        Matcher marker = MARKER.matcher(line);
        if (!marker.find()) return;
        Matcher src = SOURCE.matcher(line);
        if (!src.find()) return;
        long n = Long.parseLong(marker.group(1));
        markersChecked.incrementAndGet();
        Long before = last.put(src.group(1), n);
        if (before != null && n <= before) fail(who, "marker " + n + " after " + before + ": " + line);
    }

    /** One monitor: connect, MONITOR, read a random short while, leave in one of the ways clients leave. */
    private void monitorOnce(String who, int port) throws Exception {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        monitorSessions.incrementAndGet();
        Map<String, Long> last = new HashMap<>();
        long readMs = 20 + rnd.nextInt(300);
        int kind = rnd.nextInt(7);
        if (kind == 6) {
            jedisMonitor(who, port, readMs, last);
            return;
        }
        RawClient m = new RawClient(port);
        try {
            if (rnd.nextBoolean()) {
                String hello = m.call("HELLO", "3");
                if (!hello.startsWith("%")) fail(who, "HELLO 3: " + hello);
            }
            if (kind == 5) { // MONITOR, then gone before its reply is read
                m.sendCommand("MONITOR");
                return;
            }
            String ok = m.call("MONITOR");
            if (!ok.equals("+OK\r\n")) fail(who, "MONITOR: " + ok);
            long until = System.currentTimeMillis() + readMs;
            m.timeout(2000);
            while (System.currentTimeMillis() < until && running()) {
                String r = m.readReply(); // the workers' commands keep lines coming while the load runs
                if (!r.startsWith("+") || !r.endsWith("\r\n")) fail(who, "not a line: " + r);
                else checkLine(who, r.substring(1, r.length() - 2), last);
            }
            m.timeout(10_000);
            switch (kind) {
                case 0 -> { } // plain close
                case 1 -> { // QUIT: lines, then +OK, then end of stream
                    m.sendCommand("QUIT");
                    readLinesUntil(who, m, "+OK\r\n", last);
                    if (!m.isClosedByServer()) fail(who, "open after QUIT");
                }
                case 2 -> { // RESET: lines, +RESET, then a normal connection again
                    m.sendCommand("RESET");
                    readLinesUntil(who, m, "+RESET\r\n", last);
                    for (int i = 0; i < 20; i++) {
                        String pong = m.call("PING", "p" + i);
                        if (!pong.equals("$" + ("p" + i).length() + "\r\np" + i + "\r\n")) {
                            fail(who, "after RESET, PING p" + i + " answered " + pong);
                            break;
                        }
                    }
                }
                case 3 -> { // a TCP reset with lines unread
                    m.resetOnClose();
                }
                default -> Thread.sleep(rnd.nextInt(100)); // stops reading, then closes
            }
        } catch (SocketTimeoutException e) {
            if (running()) fail(who, "timed out (wedged?) kind " + kind);
        } catch (IOException e) {
            fail(who, "kind " + kind + ": " + e);
        } finally {
            m.close();
        }
    }

    /** Reads monitor lines until {@code end} (a reply that is no line: monitor lines start with a timestamp). */
    private void readLinesUntil(String who, RawClient m, String end, Map<String, Long> last) throws IOException {
        while (true) {
            String r = m.readReply();
            if (r.equals(end)) return;
            if (!r.startsWith("+") || !r.endsWith("\r\n")) {
                fail(who, "waiting for " + end.trim() + ": " + r);
                return;
            }
            checkLine(who, r.substring(1, r.length() - 2), last);
        }
    }

    private void jedisMonitor(String who, int port, long readMs, Map<String, Long> last) throws Exception {
        Jedis j = TestServers.jedis(port, ThreadLocalRandom.current().nextBoolean() ? 2 : 3);
        Map<String, Long> sync = java.util.Collections.synchronizedMap(last);
        Thread t = new Thread(() -> {
            try {
                j.monitor(new JedisMonitor() {
                    @Override
                    public void onCommand(String command) {
                        checkLine(who, command, sync);
                    }
                });
            } catch (Exception e) {
                // ends when the socket is closed below
            }
        });
        t.setDaemon(true);
        t.start();
        Thread.sleep(readMs);
        j.close();
        t.join(5000);
        if (t.isAlive()) fail(who, "Jedis monitor thread did not end");
    }
}
