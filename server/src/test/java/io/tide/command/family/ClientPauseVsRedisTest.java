package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * CLIENT PAUSE against a real redis-server 7.0: the same sequence runs on both, and the transcripts (replies, which
 * commands wait, INFO blocked_clients, the CLIENT LIST fields of waiting clients, expiry while paused) must match.
 * Tide runs with two shards, so the clients and keys are spread over both.
 */
class ClientPauseVsRedisTest extends VsRedis {

    private static final String LIB = "#!lua name=pauselib\n"
            + "redis.register_function{function_name='pause_ro', callback=function() return 'ro' end, flags={'no-writes'}}\n"
            + "redis.register_function('pause_rw', function() return 'rw' end)";

    @Test
    void pauseWrite_holdsWritesMayReplicateAndWritingScripts_runsTheRest() throws Exception {
        assertThat(transcript(tide().port(), this::commandsUnderPauseWrite))
                .containsExactlyElementsOf(transcript(redis().port(), this::commandsUnderPauseWrite));
    }

    @Test
    void pauseWrite_runsReadOnlyTransactionsAtOnce_holdsWritingOnes_andStartsAfterTheTransactionThatPaused()
            throws Exception {
        assertThat(transcript(tide().port(), this::transactionsUnderPauseWrite))
                .containsExactlyElementsOf(transcript(redis().port(), this::transactionsUnderPauseWrite));
    }

    @Test
    void pause_keepsExpiredKeys_untilUnpause_whileReadsSeeThemAbsent() throws Exception {
        assertThat(transcript(tide().port(), this::expiryUnderPause))
                .containsExactlyElementsOf(transcript(redis().port(), this::expiryUnderPause));
    }

    @Test
    void pauseAll_holdsEveryCommand_andCountsThemBlocked() throws Exception {
        assertThat(transcript(tide().port(), this::commandsUnderPauseAll))
                .containsExactlyElementsOf(transcript(redis().port(), this::commandsUnderPauseAll));
    }

    private interface Scenario {
        void run(int port, RawClient admin, List<String> out, List<RawClient> open) throws Exception;
    }

    /** Runs {@code s} against the server on {@code port}, always ending the pause and closing its connections. */
    private List<String> transcript(int port, Scenario s) throws Exception {
        List<String> out = new ArrayList<>();
        List<RawClient> open = new ArrayList<>();
        try (RawClient admin = new RawClient(port)) {
            try {
                s.run(port, admin, out, open);
            } finally {
                admin.call("CLIENT", "UNPAUSE");
                for (RawClient c : open) c.close();
            }
        }
        return out;
    }

    private void commandsUnderPauseWrite(int port, RawClient admin, List<String> out, List<RawClient> open)
            throws Exception {
        String x = k("x");
        admin.call("SET", x, "y");
        admin.call("FUNCTION", "LOAD", "REPLACE", LIB);
        out.add("pause " + admin.call("CLIENT", "PAUSE", "100000", "WRITE"));
        String[][] atOnce = {
            {"GET", x},
            {"PING"},
            {"SET", x}, // an arity error is answered at once
            {"EVAL_RO", "return redis.call('get', KEYS[1])", "1", x},
            {"EVAL", "#!lua flags=no-writes\nreturn redis.call('get', KEYS[1])", "1", x},
            {"EVAL_RO", "return redis.call('publish', 'ch', 'm')", "0"},
            {"FCALL", "pause_ro", "0"},
            {"FCALL_RO", "pause_ro", "0"},
            {"FCALL_RO", "pause_nosuch", "0"},
        };
        for (String[] c : atOnce) {
            RawClient rc = connect(port, open);
            rc.timeout(3000);
            out.add(String.join(" ", c) + " -> " + rc.call(c));
        }
        out.add("blocked " + blocked(admin));
        String[][] waiting = {
            {"SET", x, "z"},
            {"PUBLISH", "ch", "m"},
            {"SPUBLISH", "ch", "m"},
            {"PFCOUNT", k("hll")},
            {"EVAL", "return 1", "0"},
            {"EVAL", "#!lua\nreturn 2", "0"},
            {"EVAL_RO", "#!lua\nreturn 3", "0"},
            {"EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"},
            {"FCALL", "pause_rw", "0"},
            {"FCALL_RO", "pause_rw", "0"},
            {"FCALL", "pause_nosuch", "0"},
        };
        holdAndRelease(port, admin, out, open, waiting);
    }

    /**
     * Under ALL even INFO and CLIENT UNPAUSE wait (on both servers), so this one only times the replies. The write
     * goes to a key of its own: with several shards, clients homed on different shards resume concurrently.
     */
    private void commandsUnderPauseAll(int port, RawClient admin, List<String> out, List<RawClient> open)
            throws Exception {
        String x = k("x");
        admin.call("SET", x, "y");
        List<RawClient> held = new ArrayList<>();
        String[][] waiting = {
            {"GET", x},
            {"PING"},
            {"EVAL_RO", "return redis.call('get', KEYS[1])", "1", x},
            {"SET", k("other"), "z"},
            {"CLIENT", "UNPAUSE"},
        };
        for (int i = 0; i < waiting.length; i++) held.add(connect(port, open));
        long t0 = System.nanoTime();
        out.add("pause " + admin.call("CLIENT", "PAUSE", "1000", "ALL"));
        for (int i = 0; i < waiting.length; i++) held.get(i).sendCommand(waiting[i]);
        for (int i = 0; i < waiting.length; i++) {
            String reply = held.get(i).readReply();
            long ms = (System.nanoTime() - t0) / 1_000_000;
            out.add(String.join(" ", waiting[i]) + " -> " + reply + (ms >= 900 ? " at the pause's end" : " early"));
        }
        out.add("blocked after " + awaitBlocked(admin, 0));
    }

    /**
     * Sends each command on a connection of its own and waits until INFO counts it blocked; records the CLIENT LIST
     * fields of each waiting client; then unpauses and records each reply.
     */
    private void holdAndRelease(int port, RawClient admin, List<String> out, List<RawClient> open, String[][] cmds)
            throws Exception {
        List<RawClient> held = new ArrayList<>();
        List<String> ids = new ArrayList<>();
        int before = blocked(admin);
        for (String[] c : cmds) {
            RawClient rc = connect(port, open);
            ids.add(rc.call("CLIENT", "ID").substring(1).trim());
            rc.sendCommand(c);
            held.add(rc);
            out.add(String.join(" ", c) + " waits: blocked_clients=" + awaitBlocked(admin, before + held.size()));
        }
        for (String id : ids) out.add("client list " + listFields(admin.call("CLIENT", "LIST", "ID", id)));
        out.add("unpause " + admin.call("CLIENT", "UNPAUSE"));
        for (int i = 0; i < held.size(); i++) out.add(String.join(" ", cmds[i]) + " -> " + held.get(i).readReply());
        out.add("blocked after " + awaitBlocked(admin, before));
    }

    private void transactionsUnderPauseWrite(int port, RawClient admin, List<String> out, List<RawClient> open)
            throws Exception {
        String foo = k("foo");
        admin.call("SET", foo, "bar");
        RawClient writer = connect(port, open);
        String writerId = writer.call("CLIENT", "ID").substring(1).trim();
        out.add("writer " + writer.call("MULTI") + writer.call("SET", foo, "v2"));
        out.add("pause " + admin.call("CLIENT", "PAUSE", "100000", "WRITE"));

        RawClient reader = connect(port, open);
        reader.timeout(3000);
        out.add("reader " + reader.call("MULTI") + reader.call("PING") + reader.call("GET", foo)
                + reader.call("EVAL", "#!lua flags=no-writes\nreturn 12", "0") + reader.call("CLIENT", "GETNAME"));
        out.add("reader EXEC -> " + reader.call("EXEC"));
        out.add("blocked " + blocked(admin));

        writer.sendCommand("EXEC");
        out.add("writer EXEC waits: blocked_clients=" + awaitBlocked(admin, 1));
        RawClient queuer = connect(port, open);
        String queuerId = queuer.call("CLIENT", "ID").substring(1).trim();
        out.add("queuer " + queuer.call("MULTI"));
        queuer.sendCommand("SET", foo, "v3"); // a write waits already when it is queued
        out.add("queuer SET waits: blocked_clients=" + awaitBlocked(admin, 2));
        out.add("client list writer " + listFields(admin.call("CLIENT", "LIST", "ID", writerId)));
        out.add("client list queuer " + listFields(admin.call("CLIENT", "LIST", "ID", queuerId)));
        out.add("get " + admin.call("GET", foo));
        out.add("unpause " + admin.call("CLIENT", "UNPAUSE"));
        out.add("writer EXEC -> " + writer.readReply());
        out.add("queuer -> " + queuer.readReply() + queuer.call("EXEC"));
        out.add("get " + admin.call("GET", foo));

        // The pause a transaction starts holds others from its end on; the rest of the transaction runs.
        String a = k("a");
        String b = k("b");
        String c = k("c");
        RawClient pauser = connect(port, open);
        pauser.timeout(3000);
        out.add("pauser " + pauser.call("MULTI") + pauser.call("SET", a, "1")
                + pauser.call("CLIENT", "PAUSE", "100000", "WRITE") + pauser.call("SET", b, "2"));
        out.add("pauser EXEC -> " + pauser.call("EXEC"));
        RawClient late = connect(port, open);
        late.sendCommand("SET", c, "3");
        out.add("late SET waits: blocked_clients=" + awaitBlocked(admin, 1));
        out.add("get " + admin.call("GET", a) + admin.call("GET", b) + admin.call("GET", c));
        out.add("unpause " + admin.call("CLIENT", "UNPAUSE"));
        out.add("late -> " + late.readReply());
    }

    private void expiryUnderPause(int port, RawClient admin, List<String> out, List<RawClient> open)
            throws Exception {
        admin.call("SELECT", "9");
        admin.call("FLUSHDB");
        String a = k("a");
        String b = k("b");
        long expired0 = stat(admin, "expired_keys");
        out.add("tx " + admin.call("MULTI") + admin.call("SET", a, "1", "PX", "10") + admin.call("SET", b, "2", "PX", "10")
                + admin.call("CLIENT", "PAUSE", "100000", "WRITE") + admin.call("EXEC"));
        Thread.sleep(300); // several cron runs of both servers (hz 10)
        for (String[] c : new String[][] {
            {"GET", a}, {"EXISTS", a, b}, {"TTL", a}, {"PTTL", b}, {"TYPE", a}, {"STRLEN", b}, {"KEYS", "*"},
            {"SCAN", "0"}, {"RANDOMKEY"}, {"DBSIZE"}, {"GET", b}, {"DBSIZE"},
        }) {
            if (c[0].equals("RANDOMKEY")) continue; // Redis 7.0 loops forever when every key is expired and kept
            out.add(String.join(" ", c) + " -> " + admin.call(c));
        }
        out.add("keyspace " + keyspaceCounts(admin.call("INFO", "keyspace")));
        out.add("expired while paused " + (stat(admin, "expired_keys") - expired0));
        out.add("unpause " + admin.call("CLIENT", "UNPAUSE"));
        out.add("get " + admin.call("GET", a) + admin.call("GET", b));
        out.add("expired after " + (stat(admin, "expired_keys") - expired0));
        out.add("dbsize " + admin.call("DBSIZE"));
    }

    private static RawClient connect(int port, List<RawClient> open) throws IOException {
        RawClient c = new RawClient(port);
        open.add(c);
        return c;
    }

    private static int blocked(RawClient admin) throws IOException {
        return (int) stat(admin, "blocked_clients");
    }

    private static long stat(RawClient admin, String field) throws IOException {
        Matcher m = Pattern.compile("\r\n" + field + ":(\\d+)\r\n").matcher(admin.call("INFO"));
        if (!m.find()) throw new AssertionError("no " + field + " in INFO");
        return Long.parseLong(m.group(1));
    }

    /** Waits (up to 3 s) for INFO blocked_clients to reach {@code n}; returns the last value seen. */
    private static int awaitBlocked(RawClient admin, int n) throws Exception {
        long deadline = System.nanoTime() + 3_000_000_000L;
        int seen;
        while ((seen = blocked(admin)) != n && System.nanoTime() < deadline) Thread.sleep(5);
        return seen;
    }

    /** The CLIENT LIST fields that describe a waiting client: its flags, its MULTI count and its command. */
    private static String listFields(String reply) {
        StringBuilder sb = new StringBuilder();
        for (String f : new String[] {"flags", "multi", "cmd"}) {
            Matcher m = Pattern.compile(" " + f + "=(\\S*)").matcher(reply);
            sb.append(f).append('=').append(m.find() ? m.group(1) : "?").append(' ');
        }
        return sb.toString().trim();
    }

    /** {@code keys=..,expires=..} of db9 in INFO keyspace (avg_ttl is an estimate each server makes its own way). */
    private static String keyspaceCounts(String info) {
        Matcher m = Pattern.compile("db9:(keys=\\d+,expires=\\d+)").matcher(info);
        return m.find() ? m.group(1) : "no db9";
    }
}
