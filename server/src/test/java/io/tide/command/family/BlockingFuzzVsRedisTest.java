package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A differential fuzz of blocked clients: one random program of blocking and plain commands, sent by five clients to
 * redis-server 7.0 and to Tide (two shards), must give each client the same replies at the same steps, and leave the
 * same data. A client whose command blocks stays blocked until the program serves it (a push, a move, a transaction,
 * a script, RENAME, COPY, SWAPDB, a deletion or a retype that concerns it) or unblocks it (CLIENT UNBLOCK, with or
 * without ERROR, when every client is blocked).
 *
 * <p>Redis runs the program first; after each step, CLIENT LIST on a separate connection tells which clients are
 * still blocked (Redis has written every reply of a step before it reads the next command). Tide then runs the same
 * program and, at each step, reads the replies Redis gave there (waiting up to 10 s for each, since a client served
 * across shards hears from its home shard) and nothing else.
 *
 * <p>Every blocking command here waits on one key: where a command waits on several and one step readies more than
 * one of them, Redis 7.0 serves it from the key that was readied first, where Redis 7.2 and Tide run it again from
 * its first key. Streams are never trimmed, as an empty stream whose last ID is past a waiting XREAD's answers it with
 * no entries in 7.0 (not in 7.2). A sorted set or list stored over a key of another type by SORT STORE or ZUNIONSTORE
 * goes to a key no one waits on: after such an overwrite Redis leaves the waiters blocked even when later pushes
 * come (only a key created again readies them), which Tide does not copy.
 *
 * <p>The same generator with waits on several keys, run by hand against redis-server for some 300 programs, found
 * the bugs of {@link ListBlockingTest}'s {@code aWaiterWhoseKeysSpanShards_...}, {@code waitersOnKeysOfTwoShards_...}
 * and {@code aWaiterIsRunAgainOnlyWhile...} and of {@link BlockingVsRedisTest}'s overwrite scenarios, each of which
 * now has its own test. This one goes red (one program of the twenty) when the coordinator serves the ready keys of
 * its shards by shard number instead of in the order they were signalled.
 */
class BlockingFuzzVsRedisTest extends VsRedis {

    private static final int WORKERS = 5;
    private static final int STEPS = 200;

    BlockingFuzzVsRedisTest() {
        super("bfz");
    }

    @ParameterizedTest(name = "seed {0}")
    @ValueSource(ints = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20})
    void blockedClients_getWhatRedisSends(int seed) throws Exception {
        List<Step> program = program(new Random(seed));
        List<String> expected = new ArrayList<>();
        List<Set<Integer>> servedAt = new ArrayList<>();
        run(redis().port(), program, expected, servedAt, null);
        List<String> actual = new ArrayList<>();
        run(tide().port(), program, actual, new ArrayList<>(), servedAt);
        for (int i = 0; i < Math.min(expected.size(), actual.size()); i++) {
            if (!expected.get(i).equals(actual.get(i))) {
                List<String> context = expected.subList(Math.max(0, i - 15), i);
                assertThat(actual.get(i)).as("seed %d, line %d, after:%n%s", seed, i, String.join("\n", context))
                        .isEqualTo(expected.get(i));
            }
        }
        assertThat(actual).as("seed %d", seed).hasSameSizeAs(expected);
    }

    /** A step: the worker that sends, and its command (a MULTI step sends MULTI, its commands and EXEC). */
    private record Step(int worker, List<String> command, boolean multi) {}

    private List<Step> program(Random r) {
        String[] lists = {k("l1"), k("l2")};
        String[] zsets = {k("z1"), k("z2")};
        String[] streams = {k("s1"), k("s2")};
        String spare = k("x");
        List<Step> out = new ArrayList<>();
        int[] id = {0};
        Supplier<String> l = () -> lists[r.nextInt(lists.length)];
        Supplier<String> z = () -> zsets[r.nextInt(zsets.length)];
        Supplier<String> s = () -> streams[r.nextInt(streams.length)];
        Supplier<String> el = () -> String.valueOf("abc12".charAt(r.nextInt(5)));
        Supplier<String> side = () -> r.nextBoolean() ? "LEFT" : "RIGHT";
        List<Supplier<List<String>>> blocking = List.of(
                () -> List.of(r.nextBoolean() ? "BLPOP" : "BRPOP", l.get(), "0"),
                () -> List.of("BLMOVE", l.get(), l.get(), side.get(), side.get(), "0"),
                () -> List.of("BLMOVE", l.get(), l.get(), side.get(), side.get(), "0"),
                () -> List.of("BRPOPLPUSH", l.get(), l.get(), "0"),
                () -> r.nextBoolean() ? List.of("BLMPOP", "0", "1", l.get(), side.get())
                        : List.of("BLMPOP", "0", "1", l.get(), side.get(), "COUNT", "" + (1 + r.nextInt(3))),
                () -> List.of(r.nextBoolean() ? "BZPOPMIN" : "BZPOPMAX", z.get(), "0"),
                () -> List.of("BZMPOP", "0", "1", z.get(), r.nextBoolean() ? "MIN" : "MAX", "COUNT",
                        "" + (1 + r.nextInt(2))),
                () -> List.of("XREAD", "BLOCK", "0", "STREAMS", s.get(), "$"),
                () -> List.of("XREADGROUP", "GROUP", "g", "c" + r.nextInt(2), "COUNT", "1", "BLOCK", "0", "STREAMS",
                        s.get(), ">"));
        List<Supplier<List<String>>> plain = List.of(
                () -> List.of(r.nextBoolean() ? "LPUSH" : "RPUSH", l.get(), el.get(), el.get()),
                () -> List.of(r.nextBoolean() ? "LPUSH" : "RPUSH", l.get(), el.get()),
                () -> List.of(r.nextBoolean() ? "LPUSH" : "RPUSH", l.get(), el.get()),
                () -> List.of(r.nextBoolean() ? "LPOP" : "RPOP", l.get()),
                () -> List.of(r.nextBoolean() ? "LPOP" : "RPOP", l.get()),
                () -> List.of("LMOVE", l.get(), l.get(), side.get(), side.get()),
                () -> List.of("LRANGE", l.get(), "0", "-1"),
                () -> List.of("ZADD", z.get(), "" + r.nextInt(5), el.get()),
                () -> List.of(r.nextBoolean() ? "ZPOPMIN" : "ZPOPMAX", z.get()),
                () -> List.of("XADD", s.get(), (++id[0]) + "-1", "f", el.get()),
                () -> List.of("XGROUP", "CREATE", s.get(), "g", "$", "MKSTREAM"),
                () -> List.of("XGROUP", "DESTROY", s.get(), "g"),
                () -> List.of("DEL", r.nextBoolean() ? l.get() : r.nextBoolean() ? z.get() : s.get()),
                () -> List.of("SET", r.nextBoolean() ? l.get() : s.get(), "v"),
                () -> List.of("RENAME", l.get(), l.get()),
                () -> List.of("COPY", s.get(), s.get(), "REPLACE"),
                () -> List.of("SORT", l.get(), "ALPHA", "STORE", spare),
                () -> List.of("ZUNIONSTORE", spare, "2", z.get(), z.get()),
                () -> List.of("RENAME", spare, r.nextBoolean() ? l.get() : z.get()),
                () -> List.of("SWAPDB", "0", "1"),
                () -> List.of("EVAL", "redis.call('RPUSH', KEYS[1], 'e'); return redis.call('LPUSH', KEYS[2], 'f')",
                        "2", l.get(), l.get()),
                () -> List.of("EVAL", "redis.call('ZADD', KEYS[1], 1, 'e'); return redis.call('XADD', KEYS[2], '"
                        + (++id[0]) + "-1', 'f', 'v')", "2", z.get(), s.get()));
        for (int i = 0; i < STEPS; i++) {
            int w = r.nextInt(WORKERS);
            if (r.nextDouble() < 0.35) {
                out.add(new Step(w, blocking.get(r.nextInt(blocking.size())).get(), false));
            } else if (r.nextDouble() < 0.12) {
                List<String> inner = new ArrayList<>();
                int n = 1 + r.nextInt(3);
                for (int j = 0; j < n; j++) {
                    List<String> c = plain.get(r.nextInt(plain.size())).get();
                    inner.add(String.join("\u0000", c));
                }
                out.add(new Step(w, inner, true));
            } else {
                out.add(new Step(w, plain.get(r.nextInt(plain.size())).get(), false));
            }
        }
        return out;
    }

    /**
     * Runs {@code program} on the server at {@code port} and writes its transcript to {@code out}: each command's
     * reply (or BLOCKED) and each reply a blocked client got at that step. A step whose worker is blocked goes to the
     * next worker that is not; when all are, the step unblocks one instead. With {@code expectServed} (Redis's
     * record of who was served at each step) it waits for exactly those; without, it asks CLIENT LIST and records
     * who was served in {@code servedAt}.
     */
    private void run(int port, List<Step> program, List<String> out, List<Set<Integer>> servedAt,
                     List<Set<Integer>> expectServed) throws Exception {
        try (RawClient ctl = new RawClient(port)) {
            ctl.call("FLUSHALL");
            RawClient[] w = new RawClient[WORKERS];
            long[] ids = new long[WORKERS];
            boolean[] blocked = new boolean[WORKERS];
            try {
                for (int i = 0; i < WORKERS; i++) {
                    w[i] = new RawClient(port);
                    ids[i] = Long.parseLong(w[i].call("CLIENT", "ID").trim().substring(1));
                }
                for (int n = 0; n < program.size(); n++) {
                    Step st = program.get(n);
                    int x = st.worker();
                    for (int k = 0; k < WORKERS && blocked[x]; k++) x = (x + 1) % WORKERS;
                    if (blocked[x]) {
                        String[] unblock = n % 3 == 0
                                ? new String[] {"CLIENT", "UNBLOCK", "" + ids[x], "ERROR"}
                                : new String[] {"CLIENT", "UNBLOCK", "" + ids[x]};
                        out.add(n + " unblock w" + x + " " + ctl.call(unblock));
                        out.add(n + "   w" + x + " <- " + w[x].readReply());
                        blocked[x] = false;
                    } else if (st.multi()) {
                        StringBuilder replies = new StringBuilder(w[x].call("MULTI"));
                        for (String c : st.command()) replies.append(w[x].call(c.split("\u0000", -1)));
                        out.add(n + " w" + x + " MULTI " + st.command() + " -> " + replies + w[x].call("EXEC"));
                    } else {
                        w[x].sendCommand(st.command().toArray(new String[0]));
                        String reply = awaitReplyOrBlocked(ctl, w[x], ids[x], expectServed != null);
                        if (reply == null) blocked[x] = true;
                        out.add(n + " w" + x + " " + String.join(" ", st.command()) + " -> "
                                + (reply == null ? "BLOCKED" : reply));
                    }
                    Set<Integer> served = new HashSet<>();
                    if (expectServed != null) {
                        for (int i : expectServed.get(n)) {
                            if (blocked[i]) served.add(i); // waits for the reply below
                        }
                        for (int i = 0; i < WORKERS; i++) {
                            if (blocked[i] && !served.contains(i) && w[i].socket().getInputStream().available() > 0) {
                                served.add(i); // served where Redis was not: the transcripts differ here
                            }
                        }
                    } else {
                        Set<Long> still = blockedIds(ctl);
                        for (int i = 0; i < WORKERS; i++) {
                            if (blocked[i] && !still.contains(ids[i])) served.add(i);
                        }
                    }
                    servedAt.add(served);
                    for (int i = 0; i < WORKERS; i++) {
                        if (!served.contains(i)) continue;
                        try {
                            out.add(n + "   w" + i + " <- " + w[i].readReply());
                        } catch (java.net.SocketTimeoutException e) {
                            out.add(n + "   w" + i + " <- (nothing within 10 s)");
                            return;
                        }
                        blocked[i] = false;
                    }
                }
                for (int i = 0; i < WORKERS; i++) {
                    if (blocked[i]) {
                        ctl.call("CLIENT", "UNBLOCK", "" + ids[i]);
                        out.add("end w" + i + " <- " + w[i].readReply());
                    }
                }
                for (String db : new String[] {"0", "1"}) {
                    ctl.call("SELECT", db);
                    for (String key : new String[] {k("l1"), k("l2"), k("z1"), k("z2"), k("s1"), k("s2"), k("x")}) {
                        String type = ctl.call("TYPE", key).trim();
                        String value = switch (type) {
                            case "+list" -> ctl.call("LRANGE", key, "0", "-1");
                            case "+zset" -> ctl.call("ZRANGE", key, "0", "-1", "WITHSCORES");
                            case "+stream" -> ctl.call("XRANGE", key, "-", "+") + ctl.call("XINFO", "GROUPS", key);
                            case "+string" -> ctl.call("GET", key);
                            default -> "";
                        };
                        out.add("db" + db + " " + key + " " + type + " " + value);
                    }
                }
                ctl.call("FLUSHALL");
            } finally {
                for (RawClient c : w) {
                    if (c != null) c.close();
                }
            }
        }
    }

    /** The reply to the command just sent, or null once CLIENT LIST shows its client blocked. */
    private static String awaitReplyOrBlocked(RawClient ctl, RawClient c, long id, boolean tide)
            throws IOException, InterruptedException {
        java.io.InputStream in = c.socket().getInputStream();
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline) {
            if (in.available() > 0) return c.readReply();
            if (blockedIds(ctl).contains(id)) {
                return in.available() > 0 ? c.readReply() : null;
            }
            Thread.sleep(1);
        }
        throw new AssertionError((tide ? "Tide" : "Redis") + ": no reply and not blocked after 10 s");
    }

    private static Set<Long> blockedIds(RawClient ctl) throws IOException {
        Set<Long> ids = new HashSet<>();
        for (String line : ctl.call("CLIENT", "LIST").split("\n")) {
            int i = line.indexOf("id=");
            int f = line.indexOf(" flags=");
            if (i < 0 || f < 0) continue;
            String flags = line.substring(f + 7, line.indexOf(' ', f + 7));
            if (flags.contains("b")) ids.add(Long.parseLong(line.substring(i + 3, line.indexOf(' ', i))));
        }
        return ids;
    }
}
