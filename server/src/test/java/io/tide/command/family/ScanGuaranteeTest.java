package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.params.Parameter;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.ScanParams;
import redis.clients.jedis.resps.ScanResult;

/** Through the socket: SCAN returns every key present for the whole scan while the keyspace grows and shrinks. */
@ParameterizedClass
@ValueSource(ints = {1, 2})
class ScanGuaranteeTest {

    @Parameter
    int shards;

    @Test
    void scan_returnsEveryStableKey_whileTheTableGrowsAndShrinks() {
        try (Server server = TestServers.start(shards); Jedis j = TestServers.jedis(server.port(), 2)) {
            Set<String> stable = new HashSet<>();
            for (int i = 0; i < 2000; i++) {
                stable.add("stable:" + i);
                j.set("stable:" + i, "v");
            }
            Set<String> seen = new HashSet<>();
            String cursor = ScanParams.SCAN_POINTER_START;
            int round = 0;
            do {
                ScanResult<String> r = j.scan(cursor, new ScanParams().count(25));
                seen.addAll(r.getResult());
                cursor = r.getCursor();
                round++;
                if (round < 40) {
                    // grow: many temporary keys force several resizes
                    for (int k = 0; k < 1500; k++) j.set("tmp:" + round + ":" + k, "x");
                } else if (round < 80) {
                    // shrink: delete the temporaries again
                    for (int k = 0; k < 1500; k++) j.del("tmp:" + (round - 40) + ":" + k);
                }
            } while (!cursor.equals("0"));
            assertThat(round).isGreaterThan(40);
            Set<String> missing = new HashSet<>(stable);
            missing.removeAll(seen);
            assertThat(missing).isEmpty();
        }
    }
}
