package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.Response;

/**
 * Client buffers handed out again by the event loops (decision 0020), through real sockets: many connections at once
 * write and read values of sizes across the buffer classes (tens of bytes to past the largest class), each its own
 * bytes, in pipelines; a buffer handed to one connection while another still used it would show as another
 * connection's bytes in a reply, or a command that never parsed.
 */
class LoopBuffersSocketTest {

    private static final int[] SIZES = {10, 200, 300, 1500, 5000, 40_000, 70_000};

    @ParameterizedTest(name = "shards={0}")
    @ValueSource(ints = {1, 2})
    void concurrentConnectionsEachGetTheirOwnBytes(int shards) throws Exception {
        int clients = 12;
        int rounds = 30;
        try (Server server = TestServers.start(shards)) {
            ExecutorService pool = Executors.newFixedThreadPool(clients);
            try {
                List<Future<Integer>> done = new ArrayList<>();
                for (int c = 0; c < clients; c++) {
                    int id = c;
                    done.add(pool.submit(() -> {
                        int checked = 0;
                        try (Jedis j = TestServers.jedis(server.port(), 2)) {
                            for (int r = 0; r < rounds; r++) {
                                Pipeline p = j.pipelined();
                                List<byte[]> keys = new ArrayList<>();
                                List<byte[]> values = new ArrayList<>();
                                for (int s = 0; s < SIZES.length; s++) {
                                    byte[] key = ("c" + id + ":r" + r + ":s" + s).getBytes(StandardCharsets.US_ASCII);
                                    byte[] value = new byte[SIZES[(s + r + id) % SIZES.length]];
                                    Arrays.fill(value, (byte) ('a' + (id + r + s) % 26));
                                    value[0] = (byte) ('A' + id % 26);
                                    keys.add(key);
                                    values.add(value);
                                    p.set(key, value);
                                }
                                List<Response<byte[]>> got = new ArrayList<>();
                                for (byte[] key : keys) got.add(p.get(key));
                                Response<Object> echo = p.sendCommand(Protocol.Command.ECHO, "client " + id + " round " + r);
                                p.sync();
                                for (int i = 0; i < keys.size(); i++) {
                                    assertThat(got.get(i).get()).as("client %d round %d value %d", id, r, i)
                                            .isEqualTo(values.get(i));
                                    checked++;
                                }
                                assertThat(new String((byte[]) echo.get(), StandardCharsets.US_ASCII))
                                        .isEqualTo("client " + id + " round " + r);
                            }
                        }
                        return checked;
                    }));
                }
                for (Future<Integer> f : done) assertThat(f.get()).isEqualTo(rounds * SIZES.length);
            } finally {
                pool.shutdownNow();
            }
        }
    }
}
