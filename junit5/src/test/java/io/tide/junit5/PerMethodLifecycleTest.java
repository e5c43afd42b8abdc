package io.tide.junit5;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import redis.clients.jedis.Jedis;

@TideServer(lifecycle = TideServer.Lifecycle.PER_METHOD)
@Execution(ExecutionMode.CONCURRENT) // a server each: methods may run at the same time
class PerMethodLifecycleTest {

    private static final List<Server> SEEN = new CopyOnWriteArrayList<>();

    @TideInject
    Server server;

    @RepeatedTest(4)
    void eachMethod_getsAFreshServer(@TidePort int port) {
        assertThat(server.port()).isEqualTo(port);
        try (Jedis j = new Jedis("127.0.0.1", port)) {
            assertThat(j.dbSize()).isZero(); // nothing from another repetition
            j.set("written-by", Thread.currentThread().getName());
        }
        SEEN.add(server);
    }

    @AfterAll
    static void everyServer_wasDistinct_andIsClosed() {
        assertThat(SEEN).hasSize(4).doesNotHaveDuplicates();
        assertThat(SEEN).allMatch(Server::isClosed);
    }
}
