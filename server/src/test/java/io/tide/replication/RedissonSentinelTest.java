package io.tide.replication;

import static io.tide.replication.RedisReplicaOfTideTest.await;
import static io.tide.replication.RedisReplicaOfTideTest.awaitLinkUp;
import static io.tide.replication.RedisReplicaOfTideTest.field;
import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;
import org.redisson.client.codec.StringCodec;
import org.redisson.config.Config;
import org.redisson.config.ReadMode;
import redis.clients.jedis.Jedis;

/**
 * Redisson in Sentinel mode, as teams deploy it: a Tide primary, a real redis-server replicating from it, and Redis
 * Sentinel watching both. Redisson finds the primary and the replica through Sentinel (which learns of the replica
 * from Tide's INFO replication), writes to Tide and, with {@code readMode SLAVE}, reads from the Redis replica.
 */
class RedissonSentinelTest {

    @Test
    void redissonThroughSentinel_writesToTide_andReadsFromItsRedisReplica() throws Exception {
        String bin = RealRedis.binary();
        if (bin == null) Assumptions.abort("redis-server is not installed");
        Path dir = Files.createTempDirectory("tide-redisson-sentinel");
        Process sentinel = null;
        RedissonClient client = null;
        try (Server primary = TestServers.start(2, "--repl-diskless-sync-delay", "0");
             RealRedis replica = RealRedis.startWith("--replicaof", "127.0.0.1", Integer.toString(primary.port()));
             Jedis rj = TestServers.jedis(replica.port(), 2)) {
            awaitLinkUp(rj);
            int sport = RealRedis.freePort();
            Files.writeString(dir.resolve("sentinel.conf"), String.join("\n",
                    "port " + sport, "bind 127.0.0.1", "dir " + dir,
                    "sentinel monitor mymaster 127.0.0.1 " + primary.port() + " 1",
                    "sentinel down-after-milliseconds mymaster 30000", ""));
            sentinel = new ProcessBuilder(bin, dir.resolve("sentinel.conf").toString(), "--sentinel")
                    .redirectErrorStream(true).redirectOutput(dir.resolve("sentinel.log").toFile()).start();
            await("sentinel to see the replica", 20_000, () -> {
                try (Jedis sj = new Jedis("127.0.0.1", sport, 1000)) {
                    List<Map<String, String>> reps = sj.sentinelReplicas("mymaster");
                    return reps.size() == 1 && reps.get(0).get("flags").equals("slave")
                            && reps.get(0).get("port").equals(Integer.toString(replica.port()));
                } catch (Exception e) {
                    return false;
                }
            });

            Config config = new Config();
            config.useSentinelServers().setMasterName("mymaster").addSentinelAddress("redis://127.0.0.1:" + sport)
                    .setCheckSentinelsList(false).setReadMode(ReadMode.SLAVE).setTimeout(10_000);
            client = Redisson.create(config);
            long getsBefore = getCalls(rj);

            client.getBucket("greeting", StringCodec.INSTANCE).set("hello");
            client.getMap("m", StringCodec.INSTANCE).put("f", "v");
            var lock = client.getLock("lock");
            assertThat(lock.tryLock(1, 10, TimeUnit.SECONDS)).isTrue();
            lock.unlock();
            assertThat(client.getAtomicLong("n").addAndGet(5)).isEqualTo(5);

            // Reads go to the replica: it has the writes once it has caught up.
            RedissonClient c = client;
            await("the replica to serve the write", 10_000,
                    () -> "hello".equals(c.getBucket("greeting", StringCodec.INSTANCE).get()));
            assertThat(c.getMap("m", StringCodec.INSTANCE).get("f")).isEqualTo("v");
            assertThat(getCalls(rj)).as("GETs served by the Redis replica").isGreaterThan(getsBefore);
            try (Jedis pj = TestServers.jedis(primary.port(), 2)) {
                assertThat(pj.get("greeting")).isEqualTo("hello");
            }
            assertThat(field(rj, "replication", "master_link_status")).isEqualTo("up");
            assertThat(sentinel.isAlive()).isTrue();
        } finally {
            if (client != null) client.shutdown();
            if (sentinel != null) {
                sentinel.destroy();
                if (!sentinel.waitFor(5, TimeUnit.SECONDS)) sentinel.destroyForcibly().waitFor();
            }
        }
    }

    /** The calls of GET that {@code j}'s server has run (INFO commandstats). */
    private static long getCalls(Jedis j) {
        for (String line : j.info("commandstats").split("\r\n")) {
            if (line.startsWith("cmdstat_get:")) {
                return Long.parseLong(line.substring(line.indexOf("calls=") + 6, line.indexOf(',')));
            }
        }
        return 0;
    }
}
