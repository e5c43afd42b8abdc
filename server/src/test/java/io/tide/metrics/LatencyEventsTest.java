package io.tide.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** The latency monitor's events that only Tide has: coordinator-park and gc-pause. */
class LatencyEventsTest {

    /** LATENCY LATEST's event names. */
    @SuppressWarnings("unchecked")
    private static List<String> latest(Jedis j) {
        List<String> names = new ArrayList<>();
        for (Object e : (List<Object>) j.sendCommand(() -> "LATENCY".getBytes(), "LATEST")) {
            names.add(new String((byte[]) ((List<Object>) e).get(0)));
        }
        return names;
    }

    @Test
    void coordinatorPark_isRecordedForASlowCrossShardScript() throws InterruptedException {
        try (Server tide = TestServers.start(4); Jedis j = TestServers.jedis(tide.port(), 2)) {
            j.configSet("latency-monitor-threshold", "5");
            // Keys on different shards: the script runs on the coordinator with their shards parked for its 30 ms.
            j.eval("local t = redis.call('TIME'); local s = t[1] * 1000000 + t[2]; "
                    + "repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - s > 30000; "
                    + "redis.call('SET', KEYS[1], 1); redis.call('SET', KEYS[2], 2); return 1", 2, "a", "b");
            // The coordinator records the batch's park time after it has run, on its own thread: the script's reply
            // (and the shards' release) may reach the client first.
            long deadline = System.currentTimeMillis() + 2000;
            while (!latest(j).contains("coordinator-park") && System.currentTimeMillis() < deadline) {
                Thread.sleep(10);
            }
            assertThat(latest(j)).contains("coordinator-park");
        }
    }

    @Test
    void gcPause_isRecordedWhenTheJvmCollects() throws Exception {
        try (Server tide = TestServers.start(1); Jedis j = TestServers.jedis(tide.port(), 2)) {
            j.configSet("latency-monitor-threshold", "1");
            byte[][] garbage = new byte[64][];
            for (int attempt = 0; attempt < 20 && !latest(j).contains("gc-pause"); attempt++) {
                for (int i = 0; i < garbage.length; i++) garbage[i] = new byte[1 << 20];
                System.gc(); // a full collection: stop-the-world under G1 and Parallel; ZGC's pause beans report too
                Thread.sleep(50);
            }
            assertThat(garbage[0]).isNotNull();
            assertThat(latest(j)).contains("gc-pause");
        }
    }
}
