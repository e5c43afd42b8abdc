package com.example.cache;

import io.lettuce.core.api.StatefulRedisConnection;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Page view counters in a Redis hash, through Lettuce. Thread-safe (a Lettuce connection is). */
public final class PageViews {

    private final StatefulRedisConnection<String, String> redis;
    private final long timeoutMs;

    public PageViews(StatefulRedisConnection<String, String> redis, long timeoutMs) {
        this.redis = redis;
        this.timeoutMs = timeoutMs;
    }

    public long hit(String page) {
        return redis.sync().hincrby("views", page, 1);
    }

    /** The count, or -1 when Redis does not answer within the timeout (the page renders without it). */
    public long viewsOrUnknown(String page) {
        try {
            String v = redis.async().hget("views", page).get(timeoutMs, TimeUnit.MILLISECONDS);
            return v == null ? 0 : Long.parseLong(v);
        } catch (TimeoutException | ExecutionException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
