package io.tide.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** Embedded (this test JVM never calls exitTheProcess): an OutOfMemoryError closes the server, never the host JVM. */
class OutOfMemoryTest {

    @Test
    void embedded_anOomeInTheCauseChain_closesTheServer_andOtherErrorsAreLeftAlone() throws Exception {
        CountDownLatch closed = new CountDownLatch(1);
        boolean handled = OutOfMemory.handle(new RuntimeException("decoder", new OutOfMemoryError("Java heap space")),
                "connection test", closed::countDown);
        assertThat(handled).isTrue();
        assertThat(closed.await(5, TimeUnit.SECONDS)).isTrue();
        assertThat(OutOfMemory.handle(new IllegalStateException("no"), "connection test", () -> {
            throw new AssertionError("closed on a plain error");
        })).isFalse();
    }
}
