package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;

/**
 * The hops of one batch share their shard's clock as a read's requests do (decision 0024): a slow hop keeps its time
 * to itself, and the hops after it run at the time after it (keys expire from when they were written).
 */
class HopTimingTest {

    @AfterEach
    void clearHook() {
        Dispatcher.hopFaultForTests = null;
    }

    private static Object call(Jedis j, String... args) {
        return j.sendCommand(() -> args[0].getBytes(StandardCharsets.US_ASCII),
                java.util.Arrays.copyOfRange(args, 1, args.length));
    }

    @Test
    @SuppressWarnings("unchecked")
    void aSlowHop_keepsItsTimeToItself_andTheHopsAfterItRunAtTheTimeAfterIt() {
        // A hop on a "slow" key takes 150 ms on its target (the hook runs inside the hop's timing).
        Dispatcher.hopFaultForTests = argv -> {
            if (argv.length > 1 && new String(argv[1], StandardCharsets.UTF_8).endsWith("slow")) {
                try {
                    Thread.sleep(150);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        try (Server server = TestServers.start(2); Jedis j = new Jedis("127.0.0.1", server.port())) {
            j.configSet("slowlog-log-slower-than", "0");
            j.configSet("slowlog-max-len", "1000");
            call(j, "SLOWLOG", "RESET");
            // Ten hash tags: about half of them are the other shard's, whose four commands travel as one batch of
            // hops (one write, so one read); the home shard's run inline, where the hook is not called.
            Pipeline p = j.pipelined();
            List<Response<Long>> ttls = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                String tag = "{t" + i + "}";
                p.get(tag + "slow");
                p.psetex(tag + "k", 200, "v");
                ttls.add(p.pttl(tag + "k"));
                p.get(tag + "fast");
            }
            p.sync();
            // Expiry counts from when PSETEX ran, after the slow hop: from the batch's start, 50 ms would be left.
            for (Response<Long> t : ttls) assertThat(t.get()).isBetween(100L, 200L);

            Map<String, Long> micros = new HashMap<>();
            for (Object e : (List<Object>) call(j, "SLOWLOG", "GET", "-1")) {
                List<Object> entry = (List<Object>) e;
                List<Object> args = (List<Object>) entry.get(3);
                if (args.size() < 2) continue;
                micros.put(new String((byte[]) args.get(0), StandardCharsets.UTF_8).toLowerCase() + " "
                        + new String((byte[]) args.get(1), StandardCharsets.UTF_8), (Long) entry.get(2));
            }
            int hopped = 0;
            String lastHopped = null;
            for (int i = 0; i < 10; i++) {
                String tag = "{t" + i + "}";
                if (micros.get("get " + tag + "slow") < 150_000) continue; // inline on the home shard
                hopped++;
                lastHopped = tag;
                assertThat(micros.get("psetex " + tag + "k")).as(tag).isLessThan(100_000L);
                assertThat(micros.get("pttl " + tag + "k")).as(tag).isLessThan(100_000L);
                assertThat(micros.get("get " + tag + "fast")).as(tag).isLessThan(100_000L);
            }
            assertThat(hopped).isPositive(); // all ten on the home shard: 2^-9
            // Read now, outside the batch: the last hopped key was written a few milliseconds ago, so most of its 200
            // ms are left. Written at a time taken before its batch's slow hop, 50 ms at most would be.
            assertThat(j.pttl(lastHopped + "k")).isGreaterThanOrEqualTo(100L);
        }
    }
}
