package io.tide.testing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;

/** The base class's inherited lifecycle and {@code @Parameter} field reach a subclass in another class. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 3})
class ServerPerShardCountTest extends ServerPerShardCount {

    @Test
    void startsOneServerWithTheInjectedShardCount() {
        assertThat(shards).isIn(1, 3);
        assertThat(server).isNotNull();
        assertThat(server.context().shards().size()).isEqualTo(shards);
        try (Jedis j = jedis(3)) {
            assertThat(j.ping()).isEqualTo("PONG");
        }
    }
}
