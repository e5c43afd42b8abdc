package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * A hop's reply that was a view on its target (GET's entry bytes, INCR's number) travels home in the hop's own holders
 * and is written from there (decision 0030). Every reply must be exactly its own: while the same entry is rewritten in
 * place behind it, for values around the length a hop keeps (1 KB) and counters past the shared integers, and while
 * it waits in its slot behind an earlier reply as other clients' hops reuse the hop it came in.
 */
class HopReplyTest {

    private static final int CLIENTS = 8;
    private static final int ROUNDS = 60;

    @Test
    void pipelinedHopsToSeveralShards_answerEachRequestWithItsOwnValue() throws Exception {
        // The hop path catches and logs what fails inside it (a prefetch, a hop), so that every client is still
        // answered: a failure there shows only as an ERROR line, which this test reads.
        var logger = (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(Dispatcher.class);
        var errors = new ch.qos.logback.core.read.ListAppender<ch.qos.logback.classic.spi.ILoggingEvent>();
        errors.start();
        logger.addAppender(errors);
        try (Server server = TestServers.start(3)) {
            ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
            try {
                List<Future<?>> done = new ArrayList<>();
                for (int t = 0; t < CLIENTS; t++) {
                    int id = t;
                    done.add(pool.submit(() -> {
                        load(server.port(), id);
                        return null;
                    }));
                }
                for (Future<?> f : done) f.get();
            } finally {
                pool.shutdownNow();
            }
        } finally {
            logger.detachAppender(errors);
        }
        assertThat(errors.list).as("errors the dispatcher logged").noneMatch(
                e -> e.getLevel().isGreaterOrEqual(ch.qos.logback.classic.Level.WARN));
    }

    /**
     * Under {@code appendfsync always} a write's reply waits for its fsync while the client's next requests go on (no
     * barrier), so the replies of GETs that hopped to the other shard arrive while an earlier reply still waits: they
     * wait in their slots while other clients' hops reuse the hops they came in. Those replies must have been copied.
     * The victim sends each shard's write first in turn, since which shard is its home is not known here.
     */
    @Test
    void repliesWaitingBehindAnFsync_surviveTheReuseOfTheirHops(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir)
            throws Exception {
        try (Server server = TestServers.start(2, "--dir", dir.toString(), "--appendonly", "yes",
                "--appendfsync", "always")) {
            io.tide.shard.ShardSet shards = server.context().shards();
            List<List<String>> keysOf = List.of(new ArrayList<>(), new ArrayList<>());
            for (int i = 0; keysOf.stream().anyMatch(l -> l.size() < 16); i++) {
                String k = "hw:" + i;
                List<String> l = keysOf.get(shards.shardOf(k.getBytes(StandardCharsets.UTF_8)).id());
                if (l.size() < 16) l.add(k);
            }
            try (RawClient setup = new RawClient(server.port())) {
                for (List<String> l : keysOf) for (String k : l) setup.call("SET", k, "victim-value-of-" + k);
                for (int n = 0; n < 40; n++) setup.call("SET", "noise:" + n, String.format(Locale.ROOT, "noise-value-%05d", n));
            }
            ExecutorService pool = Executors.newFixedThreadPool(6);
            java.util.concurrent.atomic.AtomicBoolean stop = new java.util.concurrent.atomic.AtomicBoolean();
            List<Future<?>> noise = new ArrayList<>();
            try {
                for (int t = 0; t < 6; t++) {
                    int id = t;
                    noise.add(pool.submit(() -> {
                        try (RawClient c = new RawClient(server.port())) {
                            ByteArrayOutputStream b = new ByteArrayOutputStream();
                            for (int n = 0; n < 40; n++) b.writeBytes(RawClient.encode("GET", "noise:" + (n + id) % 40));
                            while (!stop.get()) {
                                c.send(b.toByteArray());
                                for (int n = 0; n < 40; n++) c.readReply();
                            }
                        }
                        return null;
                    }));
                }
                try (RawClient victim = new RawClient(server.port())) {
                    for (int round = 0; round < 60; round++) {
                        int first = round % 2;
                        String w = keysOf.get(first).get(0);
                        List<String[]> cmds = new ArrayList<>();
                        List<String> want = new ArrayList<>();
                        cmds.add(new String[] {"SET", w, "victim-value-of-" + w});
                        want.add("+OK\r\n");
                        for (String k : keysOf.get(1 - first)) {
                            cmds.add(new String[] {"GET", k});
                            want.add(bulk("victim-value-of-" + k));
                        }
                        ByteArrayOutputStream b = new ByteArrayOutputStream();
                        for (String[] cmd : cmds) b.writeBytes(RawClient.encode(cmd));
                        victim.send(b.toByteArray());
                        List<String> got = new ArrayList<>();
                        for (int i = 0; i < cmds.size(); i++) got.add(victim.readReply());
                        assertThat(got).as("round %d", round).isEqualTo(want);
                    }
                }
            } finally {
                stop.set(true);
                for (Future<?> f : noise) f.get();
                pool.shutdownNow();
            }
        }
    }

    private static String bulk(String v) {
        return "$" + v.length() + "\r\n" + v + "\r\n";
    }

    /** Value {@code i} of client {@code id} in {@code round}: each distinct, 8 to 1,100 bytes long. */
    private static String value(int id, int round, int i) {
        int len = new int[] {8, 32, 100, 1023, 1024, 1025, 1100}[(round + i) % 7];
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%d:%d:%d:", id, round, i));
        while (b.length() < len) b.append((char) ('a' + (b.length() + round) % 26));
        return b.toString();
    }

    private static void load(int port, int id) throws Exception {
        Map<String, Long> counters = new HashMap<>();
        try (RawClient c = new RawClient(port)) {
            for (int round = 0; round < ROUNDS; round++) {
                List<String[]> cmds = new ArrayList<>();
                List<String> want = new ArrayList<>();
                for (int i = 0; i < 12; i++) {
                    String k = String.format(Locale.ROOT, "hr:%d:%d", id, i); // spread over the three shards
                    String v = value(id, round, i);
                    cmds.add(new String[] {"SET", k, v});
                    want.add("+OK\r\n");
                }
                for (int i = 0; i < 12; i++) {
                    String k = String.format(Locale.ROOT, "hr:%d:%d", id, i);
                    String v = value(id, round, i);
                    // The same length again: the entry is rewritten in place while the first GET's reply is on its way.
                    String w = v.toUpperCase(Locale.ROOT);
                    cmds.add(new String[] {"GET", k});
                    want.add("$" + v.getBytes(StandardCharsets.UTF_8).length + "\r\n" + v + "\r\n");
                    cmds.add(new String[] {"SET", k, w});
                    want.add("+OK\r\n");
                    cmds.add(new String[] {"GET", k});
                    want.add("$" + w.getBytes(StandardCharsets.UTF_8).length + "\r\n" + w + "\r\n");
                    String n = String.format(Locale.ROOT, "hn:%d:%d", id, i);
                    long next = counters.merge(n, 1_000_003L * (i + 1), Long::sum);
                    cmds.add(new String[] {"INCRBY", n, Long.toString(1_000_003L * (i + 1))});
                    want.add(":" + next + "\r\n");
                }
                ByteArrayOutputStream b = new ByteArrayOutputStream();
                for (String[] cmd : cmds) b.writeBytes(RawClient.encode(cmd));
                c.send(b.toByteArray());
                List<String> got = new ArrayList<>();
                for (int i = 0; i < cmds.size(); i++) got.add(c.readReply());
                assertThat(got).as("client %d round %d", id, round).isEqualTo(want);
            }
        }
    }
}
