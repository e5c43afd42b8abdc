package io.tide.replication;

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
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/**
 * A differential fuzz of the replication stream: seeded random commands (those of {@link RandomCommands}, plus the
 * ones whose effect is not their text: SPOP, XADD with clock IDs, relative TTLs, XREADGROUP and XAUTOCLAIM, served
 * blocking pops, MOVE, COPY to another database, SWAPDB, scripts that pop at random) go to a Tide primary, and a real
 * redis-server replicates from it. Every ten commands, once the replica has caught up, both hold the same
 * data: every key of databases 0 and 1 with its type, absolute expiry and content (a stream with its groups,
 * consumers and pending entries). A difference names the seed, the command count and the last commands.
 */
class ReplicationFuzzVsRedisTest {

    private static final int COMMANDS = 2000;
    /** Often: a key a divergent command wrote is soon overwritten (six keys), and the difference with it. */
    private static final int CHECK_EVERY = 10;

    @ParameterizedTest(name = "{0} shards")
    @ValueSource(ints = {1, 2})
    void aRedisReplicaOfTide_holdsTheSameData_afterRandomCommands(int shards) throws Exception {
        if (RealRedis.binary() == null) Assumptions.abort("redis-server is not installed");
        try (Server tide = TestServers.start(shards, "--repl-diskless-sync-delay", "0");
             RealRedis replica = RealRedis.startWith("--replicaof", "127.0.0.1", Integer.toString(tide.port()));
             Jedis tj = TestServers.jedis(tide.port(), 2);
             Jedis rj = TestServers.jedis(replica.port(), 2);
             RawClient t = new RawClient(tide.port())) {
            awaitLinkUp(rj);
            for (int seed = 1; seed <= 3; seed++) {
                Random rnd = new Random(shards * 1000 + seed);
                for (String[] reset : new String[][] {{"DISCARD"}, {"UNWATCH"}, {"FLUSHALL"}}) t.call(reset);
                RandomCommands rc = new RandomCommands(rnd);
                List<Supplier<String[]>> gen = new ArrayList<>(rc.commands());
                List<Supplier<String[]>> effects = rc.effects();
                for (int w = 0; w < 3; w++) gen.addAll(effects); // weighed up: about half the commands
                List<String> recent = new ArrayList<>();
                for (int i = 1; i <= COMMANDS; i++) {
                    String[] cmd = gen.get(rnd.nextInt(gen.size())).get();
                    t.call(cmd);
                    recent.add(String.join(" ", cmd));
                    if (recent.size() > 20) recent.remove(0);
                    if (i % CHECK_EVERY == 0) {
                        assertSameData(tj, rj, "seed " + (shards * 1000 + seed) + ", after command " + i
                                + " (the last: " + recent + ")");
                    }
                }
            }
            assertThat(field(rj, "replication", "master_link_status")).isEqualTo("up");
        }
    }

    private static void assertSameData(Jedis tide, Jedis replica, String where) throws InterruptedException {
        // WAIT on a connection that wrote nothing: Tide's target is the whole stream at that point (decision 0010),
        // so the replica has applied every command the test sent. (INFO's master_repl_offset may trail the
        // replies by a few milliseconds: the replication thread numbers the stream after the shards record it.)
        assertThat(tide.waitReplicas(1, 20_000)).as("the replica acknowledged everything (%s)", where).isEqualTo(1);
        for (int db = 0; db <= 1; db++) {
            tide.select(db);
            replica.select(db);
            assertThat(Datasets.dump(replica)).as("database %d, %s", db, where).isEqualTo(Datasets.dump(tide));
        }
        tide.select(0);
        replica.select(0);
    }
}
