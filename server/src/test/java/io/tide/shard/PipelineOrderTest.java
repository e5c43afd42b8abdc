package io.tide.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/** Pipelined replies leave in request order, even when commands hop to other shards or run coordinated. */
class PipelineOrderTest {

    private static Server server;

    @BeforeAll
    static void start() {
        server = TestServers.start(4);
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    @Test
    void pipelineOfHops_repliesInRequestOrder() {
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            Pipeline p = j.pipelined();
            List<Response<String>> gets = new ArrayList<>();
            for (int i = 0; i < 5000; i++) {
                p.set("order:" + i, Integer.toString(i));
                gets.add(p.get("order:" + i));
            }
            p.sync();
            for (int i = 0; i < 5000; i++) assertThat(gets.get(i).get()).isEqualTo(Integer.toString(i));
        }
    }

    @Test
    void commandAfterCoordinatedOne_seesItsEffect() {
        try (Jedis j = TestServers.jedis(server.port(), 3)) {
            for (int round = 0; round < 200; round++) {
                Pipeline p = j.pipelined();
                String a = "co:a" + round;
                String b = "co:b" + round;
                p.set(a, "1");
                p.mset(a, "2", b, "2");
                Response<String> ga = p.get(a);
                Response<String> gb = p.get(b);
                Response<Long> inc = p.incr(a);
                Response<List<String>> both = p.mget(a, b);
                p.sync();
                assertThat(ga.get()).isEqualTo("2");
                assertThat(gb.get()).isEqualTo("2");
                assertThat(inc.get()).isEqualTo(3L);
                assertThat(both.get()).containsExactly("3", "2");
            }
        }
    }

    /**
     * A GET's reply is written from the stored entry without a copy only when it leaves at once; behind a reply still
     * on its way from another shard it must be a copy, since the SET after it rewrites the entry in place. Over every
     * ordered pair of shards, so that one round has the first key off the connection's home shard and the second on it.
     */
    @Test
    void getQueuedBehindAHop_keepsTheValueItRead() {
        String[] keyOn = keyPerShard("inplace:");
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            for (int x = 0; x < keyOn.length; x++) {
                for (int y = 0; y < keyOn.length; y++) {
                    if (x == y) continue;
                    j.set(keyOn[x], "first-value-" + x);
                    j.set(keyOn[y], "older-value-" + y);
                    Pipeline p = j.pipelined();
                    Response<String> gx = p.get(keyOn[x]);
                    Response<String> gy = p.get(keyOn[y]);
                    p.set(keyOn[y], "newer-value-" + y); // same length: rewritten in place
                    Response<String> gy2 = p.get(keyOn[y]);
                    p.sync();
                    assertThat(gx.get()).isEqualTo("first-value-" + x);
                    assertThat(gy.get()).as("GET behind a hop, shards %d then %d", x, y).isEqualTo("older-value-" + y);
                    assertThat(gy2.get()).isEqualTo("newer-value-" + y);
                }
            }
        }
    }

    /** The same for HGET, whose reply is written from the packed hash: behind a hop it is a copy. */
    @Test
    void hgetQueuedBehindAHop_keepsTheValueItRead() {
        String[] keyOn = keyPerShard("inplace-hash:");
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            for (int x = 0; x < keyOn.length; x++) {
                for (int y = 0; y < keyOn.length; y++) {
                    if (x == y) continue;
                    j.hset(keyOn[y], "f", "older-" + y);
                    Pipeline p = j.pipelined();
                    p.get(keyOn[x]);
                    Response<String> before = p.hget(keyOn[y], "f");
                    p.hset(keyOn[y], "f", "newer-" + y);
                    Response<String> after = p.hget(keyOn[y], "f");
                    p.sync();
                    assertThat(List.of(before.get(), after.get())).as("shards %d then %d", x, y)
                            .containsExactly("older-" + y, "newer-" + y);
                }
            }
        }
    }

    /** The same for INCR's reusable integer reply: each INCR queued behind a hop answers its own value. */
    @Test
    void incrsQueuedBehindAHop_answerTheirOwnValues() {
        String[] keyOn = keyPerShard("inplace-incr:");
        try (Jedis j = TestServers.jedis(server.port(), 2)) {
            for (int x = 0; x < keyOn.length; x++) {
                for (int y = 0; y < keyOn.length; y++) {
                    if (x == y) continue;
                    j.set(keyOn[y], "5000");
                    Pipeline p = j.pipelined();
                    p.get(keyOn[x]);
                    Response<Long> first = p.incr(keyOn[y]);
                    Response<Long> second = p.incr(keyOn[y]);
                    p.sync();
                    assertThat(List.of(first.get(), second.get())).as("shards %d then %d", x, y).containsExactly(5001L, 5002L);
                }
            }
        }
    }

    /** A key of the form {@code prefix + i} for each shard: element s lives on shard s. */
    private String[] keyPerShard(String prefix) {
        ShardSet shards = server.context().shards();
        String[] keyOn = new String[shards.size()];
        for (int i = 0; java.util.Arrays.asList(keyOn).contains(null); i++) {
            String k = prefix + i;
            int s = shards.shardOf(k.getBytes()).id();
            if (keyOn[s] == null) keyOn[s] = k;
        }
        return keyOn;
    }
}
