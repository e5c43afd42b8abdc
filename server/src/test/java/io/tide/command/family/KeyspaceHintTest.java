package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;

/** {@code initial-keyspace-hint}: database 0's tables are sized at startup, so a bulk load does not resize them. */
class KeyspaceHintTest {

    private static final Pattern MAIN = Pattern.compile("overhead\\.hashtable\\.main\\r\\n:(\\d+)");

    /** Database 0's table bytes (MEMORY STATS lists only databases with keys, so one is stored first). */
    static long mainTableBytes(int port) throws Exception {
        try (RawClient c = new RawClient(port)) {
            c.call("SET", "key:0", "v");
            Matcher m = MAIN.matcher(c.call("MEMORY", "STATS"));
            assertThat(m.find()).isTrue();
            return Long.parseLong(m.group(1));
        }
    }

    static void load(int port, int n) {
        try (Jedis j = TestServers.jedis(port, 2)) {
            Pipeline p = j.pipelined();
            for (int i = 0; i < n; i++) p.set("key:" + i, "v");
            p.sync();
            assertThat(j.dbSize()).isEqualTo(n);
        }
    }

    @Test
    void aLoadOfTheHintedSizeNeverResizes() throws Exception {
        try (Server s = TestServers.start(2, "--initial-keyspace-hint", "100000")) {
            long before = mainTableBytes(s.port());
            load(s.port(), 100_000);
            assertThat(mainTableBytes(s.port())).isEqualTo(before);
        }
        try (Server s = TestServers.start(2)) {
            long before = mainTableBytes(s.port());
            load(s.port(), 100_000);
            assertThat(mainTableBytes(s.port())).isGreaterThan(before * 100);
        }
    }
}
