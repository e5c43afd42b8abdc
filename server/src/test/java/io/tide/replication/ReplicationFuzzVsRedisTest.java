package io.tide.replication;

import static io.tide.replication.RedisReplicaOfTideTest.awaitCaughtUp;
import static io.tide.replication.RedisReplicaOfTideTest.awaitLinkUp;
import static io.tide.replication.RedisReplicaOfTideTest.field;
import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.Datasets;
import io.tide.testing.RandomCommands;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * A differential fuzz of the replication stream: seeded random commands (those of {@link RandomCommands}, with the ones
 * whose effect is not their text weighed up: SPOP, XADD with clock IDs, relative TTLs, XREADGROUP and XAUTOCLAIM,
 * served blocking pops, MOVE, COPY to another database, SWAPDB, scripts that pop at random) go to a primary and a
 * replica follows it: a redis-server replica of Tide (one and two shards), Tide replicating a redis-server (Redis's
 * own rewritten stream applied by Tide), and Tide of Tide. Every ten commands, once the replica has caught up, both
 * hold the same data: every key of databases 0 and 1 with its type, absolute expiry and content (a stream with its
 * groups, consumers and pending entries). A difference names the pair, the seed, the command count and the last
 * commands.
 */
class ReplicationFuzzVsRedisTest {

    /** Per seed; {@code -Dtide.fuzz.commands=N} on the bin/test command line for longer runs. */
    private static final int COMMANDS = Integer.getInteger("tide.fuzz.commands", 1500);
    /** Seeds per pair; {@code -Dtide.fuzz.seeds=N}, and {@code -Dtide.fuzz.first=S} to start elsewhere. */
    private static final int SEEDS = Integer.getInteger("tide.fuzz.seeds", 2);
    private static final int FIRST = Integer.getInteger("tide.fuzz.first", 1);
    /** Often: a key a divergent command wrote is soon overwritten (six keys), and the difference with it. */
    private static final int CHECK_EVERY = 10;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"tide:1 > redis", "tide:2 > redis", "redis > tide:2", "tide:1 > tide:2"})
    void theReplicaHoldsThePrimarysData_afterRandomCommands(String pair) throws Exception {
        if (RealRedis.binary() == null) Assumptions.abort("redis-server is not installed");
        String[] sides = pair.split(" > ");
        List<AutoCloseable> open = new ArrayList<>();
        try {
            int primary = start(sides[0], null, open);
            int replica = start(sides[1], primary, open);
            boolean tidePrimary = sides[0].startsWith("tide");
            int seedBase = Math.abs(pair.hashCode() % 1000) * 10;
            try (Jedis pj = TestServers.jedis(primary, 2);
                 Jedis rj = TestServers.jedis(replica, 2);
                 RawClient t = new RawClient(primary)) {
                awaitLinkUp(rj);
                for (int seed = seedBase + FIRST; seed < seedBase + FIRST + SEEDS; seed++) {
                    Random rnd = new Random(seed);
                    for (String[] reset : new String[][] {{"DISCARD"}, {"UNWATCH"}, {"FLUSHALL"}}) t.call(reset);
                    RandomCommands rc = new RandomCommands(rnd);
                    List<Supplier<String[]>> gen = rc.withEffects();
                    List<String> recent = new ArrayList<>();
                    for (int i = 1; i <= COMMANDS; i++) {
                        String[] cmd = gen.get(rnd.nextInt(gen.size())).get();
                        t.call(cmd);
                        recent.add(String.join(" ", cmd));
                        if (recent.size() > 20) recent.remove(0);
                        if (i % CHECK_EVERY == 0) {
                            assertSameData(pj, rj, tidePrimary, pair + ", seed " + seed + ", after command " + i
                                    + " (the last: " + recent + ")");
                        }
                    }
                }
                assertThat(field(rj, "replication", "master_link_status")).isEqualTo("up");
            }
        } finally {
            for (int k = open.size() - 1; k >= 0; k--) open.get(k).close();
        }
    }

    /** Starts "redis" or "tide:N" (N shards), replicating from {@code primaryPort} unless null; its port. */
    private static int start(String side, Integer primaryPort, List<AutoCloseable> open) throws Exception {
        if (side.equals("redis")) {
            List<String> args = new ArrayList<>(List.of("--repl-diskless-sync-delay", "0"));
            if (primaryPort != null) args.addAll(List.of("--replicaof", "127.0.0.1", primaryPort.toString()));
            RealRedis r = RealRedis.startWith(args.toArray(String[]::new));
            open.add(r);
            return r.port();
        }
        int shards = Integer.parseInt(side.substring("tide:".length()));
        List<String> args = new ArrayList<>(List.of("--repl-diskless-sync-delay", "0"));
        if (primaryPort != null) args.addAll(List.of("--replicaof", "127.0.0.1 " + primaryPort));
        Server s = TestServers.start(shards, args.toArray(String[]::new));
        open.add(s);
        return s.port();
    }

    private static void assertSameData(Jedis primary, Jedis replica, boolean tidePrimary, String where)
            throws InterruptedException {
        if (tidePrimary) {
            // WAIT on a connection that wrote nothing: Tide's target is the whole stream at that point (decision
            // 0010), so the replica has applied every command the test sent. (INFO's master_repl_offset may trail
            // the replies by a few milliseconds: the replication thread numbers the stream after the shards record
            // it.)
            assertThat(primary.waitReplicas(1, 20_000)).as("the replica acknowledged everything (%s)", where)
                    .isEqualTo(1);
        } else {
            // Redis's WAIT waits for the connection's own writes only; its master_repl_offset is exact.
            awaitCaughtUp(primary, replica);
        }
        for (int db = 0; db <= 1; db++) {
            primary.select(db);
            replica.select(db);
            Map<String, String> expected = Datasets.dump(primary);
            Map<String, String> actual = Datasets.dump(replica);
            if (!tidePrimary) {
                // Redis 7.0 propagates a consumer group's delivery as XCLAIM ... LASTID without its entries-read,
                // so its replicas (its own as Tide) hold none: 7.2 added XGROUP SETID ... ENTRIESREAD to the stream.
                expected.replaceAll((k, v) -> v.replaceAll(" read \\S+", ""));
                actual.replaceAll((k, v) -> v.replaceAll(" read \\S+", ""));
            }
            assertThat(actual).as("database %d, %s", db, where).isEqualTo(expected);
        }
        primary.select(0);
        replica.select(0);
    }
}
