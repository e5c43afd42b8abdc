package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisClient;
import io.lettuce.core.SortArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.SortingParams;

/** SORT and SORT_RO through Jedis and Lettuce, RESP2 and RESP3, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class SortCommandsTest extends ServerPerShardCount {

    @Test
    void jedis_sortsListsSetsAndSortedSets_inBothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = TestServers.jedis(server.port(), proto)) {
                j.del("jl", "js", "jz");
                j.rpush("jl", "5", "1", "3");
                assertThat(j.sort("jl")).containsExactly("1", "3", "5");
                assertThat(j.sort("jl", new SortingParams().desc().limit(0, 2))).containsExactly("5", "3");
                j.sadd("js", "b", "c", "a");
                assertThat(j.sort("js", new SortingParams().alpha())).containsExactly("a", "b", "c");
                j.zadd("jz", 2, "x");
                j.zadd("jz", 1, "y");
                assertThat(j.sort("jz", new SortingParams().by("nosort"))).containsExactly("y", "x");
                assertThat(j.sortReadonly("jl", new SortingParams().asc())).containsExactly("1", "3", "5");
            }
        }
    }

    /**
     * SORT turns a listpack sorted set into the tree, as Redis's does, and the seam books the new size: once the key
     * is deleted the dataset is back where it was (without the booking it ends below, by the tree's extra bytes).
     */
    @Test
    void sortingASortedSet_convertsIt_andBooksTheNewSize() {
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.zadd("acct", 1, "a");
            j.del("acct"); // the key's table slot stays: what follows changes the dataset by the value alone
            long before = dataset(j);
            j.zadd("acct", java.util.Map.of("a", 1.0, "b", 2.0, "c", 3.0));
            long asListpack = dataset(j);
            assertThat(j.objectEncoding("acct")).isEqualTo("listpack");
            assertThat(j.sort("acct", new SortingParams().by("nosort"))).containsExactly("a", "b", "c");
            assertThat(j.objectEncoding("acct")).isEqualTo("btree"); // Redis: skiplist (decision 0021)
            assertThat(dataset(j)).as("the tree's size booked").isGreaterThan(asListpack);
            j.del("acct");
            assertThat(dataset(j)).isEqualTo(before);
        }
    }

    private static long dataset(Jedis j) {
        for (String line : j.info("memory").split("\r\n")) {
            if (line.startsWith("used_memory_dataset:")) return Long.parseLong(line.substring(20));
        }
        throw new AssertionError("no used_memory_dataset");
    }

    @Test
    void byAndGetPatterns_readKeysOnEveryShard_andStoreWritesAList() {
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.del("ids", "sorted");
            j.rpush("ids", "1", "2", "3");
            j.mset("weight_1", "30", "weight_2", "10", "weight_3", "20");
            j.hset("obj_1", "name", "one");
            j.hset("obj_2", "name", "two");
            j.hset("obj_3", "name", "three");
            assertThat(j.sort("ids", new SortingParams().by("weight_*").get("#", "obj_*->name")))
                    .containsExactly("2", "two", "3", "three", "1", "one");
            assertThat(j.sort("ids", new SortingParams().by("weight_*").get("obj_*->name"), "sorted")).isEqualTo(3);
            assertThat(j.lrange("sorted", 0, -1)).containsExactly("two", "three", "one");
            assertThat(j.objectEncoding("sorted")).isEqualTo("listpack");
        }
    }

    @Test
    void errors_areRedis() {
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            j.set("sort:str", "x");
            assertThatThrownBy(() -> j.sort("sort:str"))
                    .isInstanceOf(JedisDataException.class).hasMessageStartingWith("WRONGTYPE");
            j.del("sort:words");
            j.rpush("sort:words", "a", "b");
            assertThatThrownBy(() -> j.sort("sort:words"))
                    .hasMessage("ERR One or more scores can't be converted into double");
        }
    }

    @Test
    void lettuce_resp3_sortAndStore() {
        RedisClient client = TestServers.lettuce(server.port(), 3);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            var cmd = c.sync();
            cmd.del("ll", "lldst");
            cmd.rpush("ll", "10", "9", "100");
            assertThat(cmd.sort("ll")).containsExactly("9", "10", "100");
            assertThat(cmd.sort("ll", SortArgs.Builder.alpha())).containsExactly("10", "100", "9");
            assertThat(cmd.sortStore("ll", SortArgs.Builder.desc(), "lldst")).isEqualTo(3);
            assertThat(cmd.lrange("lldst", 0, -1)).containsExactly("100", "10", "9");
        } finally {
            client.shutdown();
        }
    }

    @Test
    void sortStore_wakesAClientBlockedOnTheDestination() throws Exception {
        try (Jedis setup = TestServers.jedis(server.port(), 2)) {
            setup.del("src", "woken");
            setup.rpush("src", "2", "1");
            CompletableFuture<List<String>> popped = CompletableFuture.supplyAsync(() -> {
                try (Jedis j = TestServers.jedis(server.port(), 2)) {
                    return j.blpop(5, "woken");
                }
            });
            long deadline = System.currentTimeMillis() + 5000;
            while (!setup.info("clients").contains("blocked_clients:1") && System.currentTimeMillis() < deadline) {
                Thread.sleep(5);
            }
            assertThat(setup.sort("src", "woken")).isEqualTo(2);
            assertThat(popped.get(10, TimeUnit.SECONDS)).containsExactly("woken", "1");
            assertThat(setup.lrange("woken", 0, -1)).containsExactly("2");
        }
    }
}
