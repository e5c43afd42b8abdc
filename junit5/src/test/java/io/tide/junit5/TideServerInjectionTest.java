package io.tide.junit5;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.network.Faults;
import java.net.URI;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

@TideServer(shards = 2, databases = 4, config = {"maxmemory 16mb", "notify-keyspace-events KEA"})
class TideServerInjectionTest {

    private static final Set<Server> SEEN = new HashSet<>();

    @TidePort
    static int staticPort;
    @TidePort
    int port;
    @TidePort
    Integer boxedPort;
    @TideInject
    Server server;
    @TideInject
    URI uri;
    @TideInject
    Faults faults;

    @Test
    void fields_areInjected_withOneServerForTheClass() {
        assertThat(port).isPositive().isEqualTo(staticPort).isEqualTo(boxedPort).isEqualTo(server.port());
        assertThat(uri).isEqualTo(URI.create("redis://127.0.0.1:" + port));
        assertThat(faults).isSameAs(server.faults());
        SEEN.add(server);
    }

    @Test
    void parameters_areInjected(@TidePort int p, Server s, URI u, Faults f) {
        assertThat(p).isEqualTo(port);
        assertThat(s).isSameAs(server);
        assertThat(u).isEqualTo(uri);
        assertThat(f).isSameAs(faults);
        SEEN.add(s);
    }

    @Test
    void attributes_configureTheServer() {
        assertThat(server.shardCount()).isEqualTo(2);
        try (Jedis j = new Jedis(uri)) {
            assertThat(j.configGet("databases")).containsEntry("databases", "4");
            assertThat(j.configGet("maxmemory")).containsEntry("maxmemory", Long.toString(16L << 20));
            assertThat(j.configGet("notify-keyspace-events").get("notify-keyspace-events")).contains("K", "E");
            assertThat(j.configGet("port")).containsEntry("port", "0"); // as configured: 0, an ephemeral one
        }
        SEEN.add(server);
    }

    @AfterAll
    static void oneServer_servedEveryMethod() {
        assertThat(SEEN).hasSize(1);
        assertThat(SEEN.iterator().next().isClosed()).isFalse(); // stopped after @AfterAll, not before
    }
}
