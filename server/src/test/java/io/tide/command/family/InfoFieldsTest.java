package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.params.SetParams;

/** INFO fields that follow real state: tracking tables, the startup memory, what the last RDB load kept and skipped. */
class InfoFieldsTest {

    private static long field(Jedis j, String section, String name) {
        for (String line : j.info(section).split("\r\n")) {
            if (line.startsWith(name + ":")) return Long.parseLong(line.substring(name.length() + 1));
        }
        throw new AssertionError("no " + name + " in INFO " + section);
    }

    @Test
    void trackingFigures_followClientsKeysAndPrefixes() {
        try (Server tide = TestServers.start(2);
             Jedis a = TestServers.jedis(tide.port(), 3);
             Jedis b = TestServers.jedis(tide.port(), 3);
             Jedis j = TestServers.jedis(tide.port(), 2)) {
            assertThat(field(j, "clients", "tracking_clients")).isZero();
            a.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "TRACKING", "ON");
            a.get("k1");
            a.get("k2");
            b.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "TRACKING", "ON", "BCAST", "PREFIX", "p:",
                    "PREFIX", "q:");
            b.get("k1");
            assertThat(field(j, "clients", "tracking_clients")).isEqualTo(2);
            assertThat(field(j, "stats", "tracking_total_keys")).isEqualTo(2);
            assertThat(field(j, "stats", "tracking_total_items")).isEqualTo(2); // BCAST clients are not in the table
            assertThat(field(j, "stats", "tracking_total_prefixes")).isEqualTo(2);
            a.sendCommand(redis.clients.jedis.Protocol.Command.CLIENT, "TRACKING", "OFF");
            assertThat(field(j, "clients", "tracking_clients")).isEqualTo(1);
        }
    }

    @Test
    void usedMemoryStartup_isTheEmptyServersFigure() {
        try (Server tide = TestServers.start(1); Jedis j = TestServers.jedis(tide.port(), 2)) {
            long startup = field(j, "memory", "used_memory_startup");
            assertThat(startup).isPositive();
            for (int i = 0; i < 1000; i++) j.set("k" + i, "v".repeat(100));
            assertThat(field(j, "memory", "used_memory_startup")).isEqualTo(startup);
            assertThat(field(j, "memory", "used_memory")).isGreaterThan(startup + 100_000);
        }
    }

    /** A real redis-server's RDB with one key that expires before Tide loads it: loaded 5, expired 1, as Redis says. */
    @Test
    void rdbLastLoad_countsKeptAndExpiredKeys(@TempDir Path dir) throws Exception {
        try (RealRedis redis = RealRedis.startWithFile(dir, "dump.rdb"); Jedis r = TestServers.jedis(redis.port(), 2)) {
            for (int i = 0; i < 5; i++) r.set("k" + i, "v");
            r.set("soon", "v", SetParams.setParams().px(150));
            r.save();
        }
        Thread.sleep(300);
        try (Server tide = TestServers.start(2, "--dir", dir.toString()); Jedis j = TestServers.jedis(tide.port(), 2)) {
            assertThat(j.dbSize()).isEqualTo(5);
            assertThat(field(j, "persistence", "rdb_last_load_keys_loaded")).isEqualTo(5);
            assertThat(field(j, "persistence", "rdb_last_load_keys_expired")).isEqualTo(1);
        }
    }
}
