package com.example.cache;

import java.util.Optional;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.params.SetParams;

/** Sessions with a time to live, kept in Redis through Jedis. Thread-safe (the Jedis client is). */
public final class SessionStore {

    private final UnifiedJedis redis;

    public SessionStore(UnifiedJedis redis) {
        this.redis = redis;
    }

    public void put(String id, String user, long ttlSeconds) {
        redis.set("session:" + id, user, SetParams.setParams().ex(ttlSeconds));
    }

    /** The session's user; empty when it expired, or when Redis cannot be reached (sessions are then lost). */
    public Optional<String> user(String id) {
        try {
            return Optional.ofNullable(redis.get("session:" + id));
        } catch (JedisConnectionException e) {
            return Optional.empty();
        }
    }
}
