package com.example.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.tide.junit5.TideServer;
import io.tide.network.Faults;
import java.net.URI;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.UnifiedJedis;

@TideServer(flushBetweenMethods = true)
class SessionStoreTest {

    @Test
    void storesSessions(URI tide) {
        try (UnifiedJedis jedis = new UnifiedJedis(tide)) {
            SessionStore store = new SessionStore(jedis);
            store.put("s1", "ada", 60);
            assertEquals("ada", store.user("s1").orElseThrow());
            assertTrue(store.user("s2").isEmpty());
        }
    }

    @Test
    void losesSessions_whenRedisDropsTheConnection(URI tide, Faults faults) {
        try (UnifiedJedis jedis = new UnifiedJedis(tide)) {
            SessionStore store = new SessionStore(jedis);
            store.put("s1", "ada", 60);
            faults.refuseConnections(true);
            faults.dropConnections();
            assertTrue(store.user("s1").isEmpty());
        }
    }
}
