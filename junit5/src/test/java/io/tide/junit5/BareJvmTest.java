package io.tide.junit5;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.Tide;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** This module's surefire JVM has none of the flags Tide's launcher gives (see the pom): Tide works without them. */
class BareJvmTest {

    @Test
    void thisJvm_lacksTheFlags() {
        assertThat(Boolean.getBoolean("tide.junit5.bareJvm")).as("run by this module's surefire").isTrue();
        assertThat(io.netty.channel.epoll.Epoll.class.getModule().isNativeAccessEnabled()).isFalse();
        assertThat(io.netty.util.internal.PlatformDependent.hasUnsafe()).isFalse();
        assertThat(io.tide.util.Continuations.available()).as("no jdk.internal.vm export").isFalse();
    }

    @Test
    void tideStart_servesWithoutTheFlags_onNio() {
        try (Server s = Tide.start("--port", "0", "--save", "");
             Jedis j = new Jedis("127.0.0.1", s.port())) {
            assertThat(s.ioDriver()).isEqualTo("nio");
            j.set("k", "v");
            assertThat(j.get("k")).isEqualTo("v");
            // Scripts run on the coordinator here (no continuations, decision 0022), with the same replies.
            assertThat(j.eval("return redis.call('GET', KEYS[1])", 1, "k")).isEqualTo("v");
        }
    }
}
