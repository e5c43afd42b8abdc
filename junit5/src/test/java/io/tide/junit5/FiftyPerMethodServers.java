package io.tide.junit5;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.RepeatedTest;
import redis.clients.jedis.Jedis;

/**
 * Not part of the suite (its name is no test class name surefire picks up): the workload {@code bin/bench-embedded
 * --per-method} times, a test class of 50 methods each with a server of its own, run one after another, each method
 * writing and reading a key through Jedis.
 */
@TideServer(lifecycle = TideServer.Lifecycle.PER_METHOD)
class FiftyPerMethodServers {

    @RepeatedTest(50)
    void aMethodWithItsOwnServer(@TidePort int port) {
        try (Jedis j = new Jedis("127.0.0.1", port)) {
            assertThat(j.dbSize()).isZero();
            assertThat(j.set("k", "v")).isEqualTo("OK");
            assertThat(j.get("k")).isEqualTo("v");
        }
    }
}
