package io.tide.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * LATENCY GRAPH and LATENCY DOCTOR of events made on a real redis-server 7.0 and on Tide by the same DEBUG SLEEPs, a
 * second apart. The sleeps' lengths are chosen so that each sample lands in the middle of one of the graph's 12
 * steps, so a millisecond of difference between the servers moves no mark; the figures that depend on time (the
 * header's milliseconds, the averages) are compared in shape.
 */
class LatencyGraphVsRedisTest {

    private static Object call(Jedis j, String... args) {
        return j.sendCommand(() -> args[0].getBytes(StandardCharsets.UTF_8),
                java.util.Arrays.copyOfRange(args, 1, args.length));
    }

    private static String text(Object o) {
        return new String((byte[]) o, StandardCharsets.UTF_8);
    }

    @Test
    void graphAndDoctor_ofTheSameSleepsAsRedis() throws Exception {
        // 20 ms up to 620 ms: the steps are 50 ms wide; 145, 295 and 445 ms sit in the middle of steps 2, 5 and 8, so a
        // sample (or the highest, which sets the scale) may be some 20 ms late on a busy machine without moving a mark.
        long[] sleepsMs = {20, 295, 145, 620, 445};
        try (RealRedis redis = RealRedis.startWith("--enable-debug-command", "yes");
             Server tide = TestServers.start(1, "--enable-debug-command", "yes");
             Jedis r = new Jedis("127.0.0.1", redis.port());
             Jedis t = TestServers.jedis(tide.port(), 2)) {
            for (Jedis j : List.of(r, t)) {
                call(j, "CONFIG", "SET", "latency-monitor-threshold", "15");
                call(j, "LATENCY", "RESET");
            }
            for (long ms : sleepsMs) {
                long second = System.currentTimeMillis() / 1000;
                while (System.currentTimeMillis() / 1000 == second) Thread.sleep(5);
                // Both at once, so that each server's sample falls in the same second.
                String seconds = String.format(java.util.Locale.ROOT, "%.3f", ms / 1000.0);
                var onTide = java.util.concurrent.CompletableFuture.runAsync(() -> call(t, "DEBUG", "SLEEP", seconds));
                call(r, "DEBUG", "SLEEP", seconds);
                onTide.join();
            }
            String redisGraph = text(call(r, "LATENCY", "GRAPH", "command"));
            String tideGraph = text(call(t, "LATENCY", "GRAPH", "command"));
            String redisDoctor = text(call(r, "LATENCY", "DOCTOR"));
            String tideDoctor = text(call(t, "LATENCY", "DOCTOR"));

            List<String> rg = redisGraph.lines().toList();
            List<String> tg = tideGraph.lines().toList();
            String header = "command - high (\\d+) ms, low (\\d+) ms \\(all time high \\1 ms\\)";
            assertThat(rg.get(0)).matches(header);
            assertThat(tg.get(0)).matches(header);
            assertThat(tg.get(1)).isEqualTo(rg.get(1)).isEqualTo("-".repeat(80));
            // The marks, byte for byte; then the empty row; then the ages (a second may pass between the calls).
            assertThat(tg.subList(2, 7)).isEqualTo(rg.subList(2, 7));
            assertThat(rg.subList(2, 6)).containsExactly("   # ", "   |#", " # ||", "_|#||");
            assertThat(String.join("\n", tg.subList(7, tg.size())).replaceAll("\\d", "N"))
                    .isEqualTo(String.join("\n", rg.subList(7, rg.size())).replaceAll("\\d", "N"));
            assertThat(tg).hasSameSizeAs(rg);

            // DOCTOR: the greeting, the command event's line in shape, the slow log advice word for word.
            String line = "\\d+\\. command: 5 latency spikes \\(average \\d+ms, mean deviation \\d+ms, period \\d+\\.\\d\\d"
                    + " sec\\)\\. Worst all time event \\d+ms\\.";
            for (String d : List.of(redisDoctor, tideDoctor)) {
                assertThat(d).startsWith("Dave, I have observed latency spikes in this Redis instance. You don't mind"
                        + " talking about it, do you Dave?\n\n");
                assertThat(d.lines().filter(l -> l.matches(line)).count()).as(d).isEqualTo(1);
            }
            List<String> shared = new ArrayList<>();
            for (String l : redisDoctor.lines().toList()) {
                if (l.startsWith("- Check your Slow Log") || l.startsWith("- Your current Slow Log")) shared.add(l);
            }
            // slowlog-log-slower-than 10000 us is under the 15 ms threshold: the inspect advice alone.
            assertThat(shared).hasSize(1);
            assertThat(tideDoctor.lines().toList()).containsAll(shared);
            assertThat(tideDoctor).contains("\nI have a few advices for you:\n\n");
        }
    }
}
