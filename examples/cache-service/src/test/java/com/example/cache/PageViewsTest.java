package com.example.cache;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.lettuce.core.RedisClient;
import io.tide.junit5.TideExtension;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class PageViewsTest {

    @RegisterExtension
    static TideExtension tide = TideExtension.builder().shards(2).build();

    @Test
    void countsHits_andDegradesWhenRedisIsSlow() {
        RedisClient client = RedisClient.create(tide.uri().toString());
        try (var connection = client.connect()) {
            PageViews views = new PageViews(connection, 200);
            views.hit("/home");
            views.hit("/home");
            assertEquals(2, views.viewsOrUnknown("/home"));
            tide.faults().delayReplies(Duration.ofSeconds(1));
            assertEquals(-1, views.viewsOrUnknown("/home"));
        } finally {
            client.shutdown();
        }
    }
}
