package io.tide.command.family;

import static io.tide.testing.TestServers.awaitBlocked;
import static io.tide.testing.TestServers.keysOnDifferentShards;
import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.KeyValue;
import io.lettuce.core.LMoveArgs;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.tide.testing.RawClient;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.args.ListDirection;

/**
 * The blocking list commands while they wait: BRPOP, BLMPOP, BRPOPLPUSH and BLMOVE woken by pushes (also from
 * other shards, and by moves that create their key), first blocked first served, fractional timeouts with
 * Redis's null replies, disconnects, and keys that come back with another type.
 */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class ListBlockingTest extends ServerPerShardCount {

    @Test
    void brpop_isServedFromTheTail_byAPushOnAnotherShard() throws Exception {
        String[] k = keysOnDifferentShards(server, "brpop");
        try (Jedis admin = jedis(2)) {
            Future<List<String>> f = pool.submit(() -> {
                try (Jedis j = jedis(2)) {
                    return j.brpop(0, k[0], k[1]);
                }
            });
            awaitBlocked(admin, 1);
            admin.lpush(k[1], "a", "b", "c"); // [c b a]: the tail is "a"
            assertThat(f.get(10, TimeUnit.SECONDS)).containsExactly(k[1], "a");
            assertThat(admin.lrange(k[1], 0, -1)).containsExactly("c", "b");
            admin.del(k[1]);
        }
    }

    @Test
    void waitersOnOneKey_areServedInBlockingOrder_oneElementEach() throws Exception {
        String key = "order";
        try (Jedis admin = jedis(2)) {
            List<Future<List<String>>> waiters = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                waiters.add(pool.submit(() -> {
                    try (Jedis j = jedis(2)) {
                        return j.brpop(0, key);
                    }
                }));
                awaitBlocked(admin, i + 1);
            }
            admin.rpush(key, "1", "2", "3", "4");
            assertThat(waiters.get(0).get(10, TimeUnit.SECONDS)).containsExactly(key, "4");
            assertThat(waiters.get(1).get(10, TimeUnit.SECONDS)).containsExactly(key, "3");
            assertThat(waiters.get(2).get(10, TimeUnit.SECONDS)).containsExactly(key, "2");
            assertThat(admin.lrange(key, 0, -1)).containsExactly("1");
            admin.del(key);
        }
    }

    @Test
    void blmpop_withCount_takesUpToCountFromTheFirstKeyThatGetsElements() throws Exception {
        String[] k = keysOnDifferentShards(server, "blmpop");
        try (Jedis admin = jedis(3)) {
            Future<redis.clients.jedis.util.KeyValue<String, List<String>>> f = pool.submit(() -> {
                try (Jedis j = jedis(3)) {
                    return j.blmpop(0, ListDirection.LEFT, 3, k[0], k[1]);
                }
            });
            awaitBlocked(admin, 1);
            admin.rpush(k[1], "a", "b", "c", "d");
            var got = f.get(10, TimeUnit.SECONDS);
            assertThat(got.getKey()).isEqualTo(k[1]);
            assertThat(got.getValue()).containsExactly("a", "b", "c");
            assertThat(admin.lrange(k[1], 0, -1)).containsExactly("d");
            admin.del(k[1]);
        }
    }

    @Test
    void brpoplpush_movesAcrossShards_andItsPushWakesTheNextWaiter() throws Exception {
        String[] k = keysOnDifferentShards(server, "relay");
        try (Jedis admin = jedis(2)) {
            Future<List<String>> last = pool.submit(() -> {
                try (Jedis j = jedis(2)) {
                    return j.blpop(0, k[1]);
                }
            });
            awaitBlocked(admin, 1);
            Future<String> mover = pool.submit(() -> {
                try (Jedis j = jedis(2)) {
                    return j.brpoplpush(k[0], k[1], 0);
                }
            });
            awaitBlocked(admin, 2);
            admin.rpush(k[0], "x", "y");
            assertThat(mover.get(10, TimeUnit.SECONDS)).isEqualTo("y");
            assertThat(last.get(10, TimeUnit.SECONDS)).containsExactly(k[1], "y");
            assertThat(admin.lrange(k[0], 0, -1)).containsExactly("x");
            assertThat(admin.exists(k[1])).isFalse();
            admin.del(k[0]);
        }
    }

    /**
     * Redis serves a waiter right after the command that pushed to its key, before anything else runs: the pusher's
     * next command finds the element moved, never still in the source for it to take. A BLMOVE across shards was
     * served later by the coordinator, and the pusher's LPOP took the element about a third of the time (the waiter
     * then kept waiting). The push comes plain (inline on the source's shard or hopped there: each round opens a new
     * connection, whose home shard alternates), in a transaction and from a script (both coordinated).
     */
    @Test
    void aWaiterWhoseKeysSpanShards_isServedBeforeThePushersNextCommand() throws Exception {
        String[] k = keysOnDifferentShards(server, "served");
        String[] ways = {"plain", "multi", "eval"};
        for (int round = 0; round < 30; round++) {
            String way = ways[round % 3];
            String v = "v" + round;
            try (Jedis admin = jedis(2)) {
                Future<String> f = pool.submit(() -> {
                    try (Jedis j = jedis(2)) {
                        return j.blmove(k[0], k[1], ListDirection.LEFT, ListDirection.RIGHT, 0);
                    }
                });
                awaitBlocked(admin, 1);
                try {
                    switch (way) {
                        case "plain" -> admin.rpush(k[0], v);
                        case "multi" -> {
                            redis.clients.jedis.Transaction t = admin.multi();
                            t.rpush(k[0], v);
                            t.exec();
                        }
                        default -> admin.eval("return redis.call('RPUSH', KEYS[1], ARGV[1])", List.of(k[0]),
                                List.of(v));
                    }
                    assertThat(admin.lpop(k[0])).as("round %d, %s push", round, way).isNull();
                    assertThat(admin.lrange(k[1], 0, -1)).as("round %d, %s push", round, way).containsExactly(v);
                    assertThat(f.get(10, TimeUnit.SECONDS)).isEqualTo(v);
                } finally {
                    if (!f.isDone()) admin.rpush(k[0], "release"); // leave no waiter behind for the next tests
                    f.get(10, TimeUnit.SECONDS);
                    admin.del(k[0], k[1]);
                }
            }
        }
    }

    /**
     * A script (and a transaction) that pushes to keys of two shards has the waiters served key by key in the order it
     * pushed, as Redis's one list of ready keys has them: the first key's BLMOVE puts its element at the head of the
     * second key before that key's BLPOP pops. The coordinator served the shards by their number instead, so with the
     * second key on the lower-numbered shard the BLPOP took the script's own element first. redis-server 7.0.15 answers
     * as asserted here (found by a differential run of random blocking programs on both servers).
     */
    @Test
    void waitersOnKeysOfTwoShards_areServedInTheOrderTheKeysWerePushed() throws Exception {
        String[] k = keysOnDifferentShards(server, "signalled");
        io.tide.shard.ShardSet set = server.context().shards();
        if (set.shardOf(k[0].getBytes()).id() < set.shardOf(k[1].getBytes()).id()) k = new String[] {k[1], k[0]};
        String first = k[0], second = k[1];
        for (String way : new String[] {"eval", "multi"}) {
            try (Jedis admin = jedis(2)) {
                Future<String> mover = pool.submit(() -> {
                    try (Jedis j = jedis(2)) {
                        return j.blmove(first, second, ListDirection.LEFT, ListDirection.LEFT, 0);
                    }
                });
                awaitBlocked(admin, 1);
                Future<List<String>> popper = pool.submit(() -> {
                    try (Jedis j = jedis(2)) {
                        return j.blpop(0, second);
                    }
                });
                awaitBlocked(admin, 2);
                if (way.equals("eval")) {
                    admin.eval("redis.call('RPUSH', KEYS[1], 'e'); return redis.call('RPUSH', KEYS[2], 'f')",
                            List.of(first, second), List.of());
                } else {
                    redis.clients.jedis.Transaction t = admin.multi();
                    t.rpush(first, "e");
                    t.rpush(second, "f");
                    t.exec();
                }
                assertThat(mover.get(10, TimeUnit.SECONDS)).isEqualTo("e");
                assertThat(popper.get(10, TimeUnit.SECONDS)).as(way).containsExactly(second, "e");
                assertThat(admin.lrange(second, 0, -1)).as(way).containsExactly("f");
                admin.del(first, second);
            }
        }
    }

    /**
     * A waiter is run again on a key's signal only while that key holds a list (Redis 7's handleClientsBlockedOnKey).
     * Here the push to {@code src} feeds a BRPOPLPUSH that moves the element on to {@code dst}, whose first waiter
     * moves it back to {@code src}, where the last waiter (blocked on both keys) pops it: each gets it in turn, as from
     * redis-server 7.0.15. Tide ran the last waiter again on {@code src}'s signal once {@code src} was empty and served
     * it from {@code dst}, ahead of {@code dst}'s own earlier waiter, which then waited on.
     */
    @Test
    void aWaiterIsRunAgainOnlyWhileTheSignalledKeyHoldsAList_soOtherKeysKeepTheirOrder() throws Exception {
        String src = "fifo:src", dst = "fifo:dst";
        try (Jedis admin = jedis(2)) {
            Future<String> back = pool.submit(() -> {
                try (Jedis j = jedis(2)) {
                    return j.blmove(dst, src, ListDirection.RIGHT, ListDirection.RIGHT, 0);
                }
            });
            awaitBlocked(admin, 1);
            Future<String> on = pool.submit(() -> {
                try (Jedis j = jedis(2)) {
                    return j.brpoplpush(src, dst, 0);
                }
            });
            awaitBlocked(admin, 2);
            Future<redis.clients.jedis.util.KeyValue<String, List<String>>> last = pool.submit(() -> {
                try (Jedis j = jedis(2)) {
                    return j.blmpop(0, ListDirection.LEFT, src, dst);
                }
            });
            awaitBlocked(admin, 3);
            try {
                admin.lpush(src, "a");
                assertThat(on.get(10, TimeUnit.SECONDS)).isEqualTo("a");
                assertThat(back.get(10, TimeUnit.SECONDS)).isEqualTo("a");
                redis.clients.jedis.util.KeyValue<String, List<String>> popped = last.get(10, TimeUnit.SECONDS);
                assertThat(popped.getKey()).isEqualTo(src);
                assertThat(popped.getValue()).containsExactly("a");
            } finally {
                for (int i = 0; i < 3 && !(on.isDone() && back.isDone() && last.isDone()); i++) {
                    admin.rpush(dst, "release"); // leave no waiter behind for the next tests
                    Thread.sleep(50);
                }
                admin.del(src, dst);
            }
        }
    }

    @Test
    void blpop_isWokenByAnLmoveThatCreatesItsKey() throws Exception {
        String[] k = keysOnDifferentShards(server, "created");
        try (Jedis admin = jedis(2)) {
            admin.rpush(k[0], "moved");
            Future<List<String>> f = pool.submit(() -> {
                try (Jedis j = jedis(2)) {
                    return j.blpop(0, k[1]);
                }
            });
            awaitBlocked(admin, 1);
            assertThat(admin.lmove(k[0], k[1], ListDirection.LEFT, ListDirection.LEFT)).isEqualTo("moved");
            assertThat(f.get(10, TimeUnit.SECONDS)).containsExactly(k[1], "moved");
            assertThat(admin.exists(k[0], k[1])).isZero();
        }
    }

    @Test
    void timeouts_areFractional_andReplyNullArrays_evenForBlmove() throws Exception {
        try (RawClient c = new RawClient(server.port())) {
            long t0 = System.nanoTime();
            assertThat(c.call("BRPOP", "t:none", "0.2")).isEqualTo("*-1\r\n");
            assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(190L, 5000L);
            t0 = System.nanoTime();
            assertThat(c.call("BLMOVE", "t:none", "t:dst", "LEFT", "RIGHT", "0.15")).isEqualTo("*-1\r\n");
            assertThat((System.nanoTime() - t0) / 1_000_000).isBetween(140L, 5000L);
            assertThat(c.call("BRPOPLPUSH", "t:none", "t:dst", "0.05")).isEqualTo("*-1\r\n");
            assertThat(c.call("BLMPOP", "0.05", "2", "t:none", "t:none2", "RIGHT")).isEqualTo("*-1\r\n");
            assertThat(c.call("HELLO", "3")).startsWith("%");
            assertThat(c.call("BLPOP", "t:none", "0.05")).isEqualTo("_\r\n");
            assertThat(c.call("BLMOVE", "t:none", "t:dst", "LEFT", "RIGHT", "0.05")).isEqualTo("_\r\n");
            assertThat(c.call("EXISTS", "t:dst")).isEqualTo(":0\r\n");
        }
    }

    @Test
    void disconnectingAWaitingBlmove_freesIt_andMovesNothing() throws Exception {
        String[] k = keysOnDifferentShards(server, "dc");
        try (Jedis admin = jedis(2)) {
            RawClient raw = new RawClient(server.port());
            raw.sendCommand("BLMOVE", k[0], k[1], "LEFT", "LEFT", "0");
            awaitBlocked(admin, 1);
            raw.close();
            awaitBlocked(admin, 0);
            admin.rpush(k[0], "stays");
            assertThat(admin.lrange(k[0], 0, -1)).containsExactly("stays");
            assertThat(admin.exists(k[1])).isFalse();
            admin.del(k[0]);
        }
    }

    @Test
    void aKeyThatComesBackAsAString_doesNotWakeTheWaiter_butAListLaterDoes() throws Exception {
        String key = "retype";
        try (Jedis admin = jedis(2)) {
            Future<List<String>> f = pool.submit(() -> {
                try (Jedis j = jedis(2)) {
                    return j.blpop(0, key);
                }
            });
            awaitBlocked(admin, 1);
            admin.set(key, "not a list");
            Thread.sleep(100);
            assertThat(f.isDone()).isFalse(); // Redis keeps waiting: the key does not hold a list
            awaitBlocked(admin, 1);
            admin.del(key);
            admin.rpush(key, "now");
            assertThat(f.get(10, TimeUnit.SECONDS)).containsExactly(key, "now");
            awaitBlocked(admin, 0);
        }
    }

    @Test
    void blmove_whoseDestinationBecameAString_repliesWrongTypeWhenServed() throws Exception {
        String[] k = keysOnDifferentShards(server, "wtdst");
        try (Jedis admin = jedis(2); RawClient raw = new RawClient(server.port())) {
            raw.sendCommand("BLMOVE", k[0], k[1], "LEFT", "LEFT", "0");
            awaitBlocked(admin, 1);
            admin.set(k[1], "string");
            admin.rpush(k[0], "x");
            assertThat(raw.readReply()).isEqualTo("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
            assertThat(admin.lrange(k[0], 0, -1)).containsExactly("x");
            admin.del(k[0], k[1]);
        }
    }

    @Test
    void lettuce_blockingPopsAndMoves_resp3() throws Exception {
        String[] k = keysOnDifferentShards(server, "lt");
        RedisClient client = TestServers.lettuce(server.port(), 3);
        try (StatefulRedisConnection<String, String> waiter = client.connect();
             StatefulRedisConnection<String, String> mover = client.connect();
             Jedis admin = jedis(3)) {
            RedisAsyncCommands<String, String> w = waiter.async();
            var popped = w.blpop(5.0, k[0]);
            awaitBlocked(admin, 1);
            var moved = mover.async().blmove(k[1], k[0], LMoveArgs.Builder.rightLeft(), 5.0);
            awaitBlocked(admin, 2);
            admin.rpush(k[1], "first", "second");
            assertThat(moved.get(10, TimeUnit.SECONDS)).isEqualTo("second");
            KeyValue<String, String> kv = popped.get(10, TimeUnit.SECONDS);
            assertThat(kv.getKey()).isEqualTo(k[0]);
            assertThat(kv.getValue()).isEqualTo("second");
            assertThat(w.brpop(0.05, k[0]).get(10, TimeUnit.SECONDS)).isNull();
            admin.del(k[1]);
        } finally {
            client.shutdown();
        }
    }
}
