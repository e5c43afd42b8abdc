package io.tide.junit5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RegisterExtensionTest {

    @RegisterExtension
    static TideExtension tide = TideExtension.builder()
            .requirepass("s3cret")
            .configResource("tide-test.conf")
            .config("maxmemory-samples 7")
            .flushBetweenMethods()
            .build();

    private static Jedis connect() {
        Jedis j = new Jedis("127.0.0.1", tide.port());
        j.auth("s3cret");
        return j;
    }

    @Test
    @Order(1)
    void requirepass_isSet() {
        try (Jedis j = new Jedis("127.0.0.1", tide.port())) {
            assertThatThrownBy(j::ping).isInstanceOf(JedisDataException.class).hasMessageStartingWith("NOAUTH");
        }
    }

    @Test
    @Order(2)
    void configResource_thenLines_apply() {
        try (Jedis j = connect()) {
            assertThat(j.configGet("maxmemory")).containsEntry("maxmemory", Long.toString(32L << 20));
            assertThat(j.configGet("maxmemory-policy")).containsEntry("maxmemory-policy", "allkeys-lru");
            assertThat(j.configGet("maxmemory-samples")).containsEntry("maxmemory-samples", "7");
            j.set("left", "behind");
            j.select(3);
            j.set("also", "behind");
        }
    }

    @Test
    @Order(3)
    void flushBetweenMethods_emptiesEveryDatabase() {
        try (Jedis j = connect()) {
            assertThat(j.dbSize()).isZero();
            j.select(3);
            assertThat(j.dbSize()).isZero();
        }
    }

    @Test
    @Order(4)
    void faults_areClearedAfterEachMethod_part1() {
        tide.faults().refuseConnections(true);
        tide.faults().delayReplies(java.time.Duration.ofSeconds(5));
    }

    @Test
    @Order(5)
    void faults_areClearedAfterEachMethod_part2() {
        assertThat(tide.faults().refusingConnections()).isFalse();
        assertThat(tide.faults().replyDelay()).isZero();
        try (Jedis j = connect()) {
            assertThat(j.ping()).isEqualTo("PONG");
        }
    }
}
