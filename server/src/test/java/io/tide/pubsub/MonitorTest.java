package io.tide.pubsub;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisMonitor;

/** MONITOR through Jedis on one, two and four shards: commands from every connection and shard are seen. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2, 4})
class MonitorTest extends ServerPerShardCount {

    @Test
    void jedisMonitor_seesCommandsOfEveryConnection_andResetEndsIt() throws Exception {
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch done = new CountDownLatch(1);
        CountDownLatch started = new CountDownLatch(1);
        Jedis m = TestServers.jedis(server.port(), 2);
        Thread t = new Thread(() -> m.monitor(new JedisMonitor() {
            @Override
            public void onCommand(String command) {
                lines.add(command);
                if (command.contains("\"started\"")) started.countDown();
                if (command.contains("\"done\"")) done.countDown();
            }
        }));
        t.setDaemon(true);
        t.setUncaughtExceptionHandler((th, e) -> { }); // Jedis's monitor loop ends by its socket closing
        t.start();
        try (Jedis probe = TestServers.jedis(server.port(), 2)) {
            long deadline = System.currentTimeMillis() + 5000;
            while (started.getCount() > 0 && System.currentTimeMillis() < deadline) {
                probe.echo("started");
                Thread.sleep(20);
            }
        }
        List<Jedis> clients = new ArrayList<>();
        for (int i = 0; i < 8; i++) clients.add(TestServers.jedis(server.port(), 2));
        for (int i = 0; i < 8; i++) clients.get(i).set("mon:" + i, "v" + i);
        clients.get(0).echo("done");
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        for (int i = 0; i < 8; i++) {
            String key = "\"mon:" + i + "\"";
            assertThat(lines).anyMatch(
                    l -> l.matches("\\d+\\.\\d{6} \\[0 127\\.0\\.0\\.1:\\d+\\] \"(?i:set)\" " + key + " .*"));
        }
        for (Jedis c : clients) c.close();
        m.close();
        t.join(5000);
        long deadline = System.currentTimeMillis() + 5000;
        while (server.context().monitor().size() > 0 && System.currentTimeMillis() < deadline) Thread.sleep(10);
        assertThat(server.context().monitor().size()).isZero();
    }
}
