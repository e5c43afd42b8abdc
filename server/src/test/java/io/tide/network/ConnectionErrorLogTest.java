package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.netty.channel.embedded.EmbeddedChannel;
import io.tide.protocol.ProtocolLimits;
import io.tide.shard.Shard;
import java.io.IOException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * An exception that reaches a client connection's handler closes that connection. A fault of the server's own (an
 * exception of its code) is logged at WARN with its stack, so that a client dropped by a bug shows in the log; a peer
 * that reset its connection is not a fault, and stays at DEBUG.
 */
class ConnectionErrorLogTest {

    private final ch.qos.logback.classic.Logger logger =
            (ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger(ConnectionHandler.class);
    private final ListAppender<ILoggingEvent> events = new ListAppender<>();

    @BeforeEach
    void capture() {
        events.start();
        logger.addAppender(events);
        logger.setAdditive(false); // the warning this test causes stays out of the build's output
    }

    @AfterEach
    void release() {
        logger.setAdditive(true);
        logger.detachAppender(events);
    }

    private static EmbeddedChannel connection() {
        EmbeddedChannel ch = new EmbeddedChannel();
        Shard home = new Shard(0, ch.eventLoop(), 1);
        ch.pipeline().addLast(new ConnectionHandler(
                new ShardClients(null, null, home, null, null, new ProtocolLimits())));
        return ch;
    }

    @Test
    void anExceptionOfTheServersOwnClosesTheConnectionWithAWarningAndItsStack() {
        EmbeddedChannel ch = connection();
        IllegalStateException bug = new IllegalStateException("a bug");
        ch.pipeline().fireExceptionCaught(bug);
        assertThat(ch.isOpen()).isFalse();
        assertThat(events.list).anySatisfy(e -> {
            assertThat(e.getLevel()).isEqualTo(Level.WARN);
            assertThat(e.getFormattedMessage()).contains("closed after an unexpected error");
            assertThat(e.getThrowableProxy()).isNotNull();
            assertThat(e.getThrowableProxy().getMessage()).isEqualTo("a bug");
        });
    }

    @Test
    void aPeerResetClosesTheConnectionWithoutAWarning() {
        EmbeddedChannel ch = connection();
        ch.pipeline().fireExceptionCaught(new IOException("Connection reset by peer"));
        assertThat(ch.isOpen()).isFalse();
        assertThat(events.list).noneMatch(e -> e.getLevel().isGreaterOrEqual(Level.WARN));
    }
}
