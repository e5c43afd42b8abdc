package io.tide.network;

import java.time.Duration;

/**
 * Thread-safe. Faults a test injects into a running server to exercise its clients' error handling: every connection
 * dropped at once, every request held for a while before it runs, new connections refused. They are real: clients see
 * closed sockets, late replies and refused connects, exactly as from a server that crashed, a slow link or a server
 * that is down.
 *
 * <p>Unused, they cost one volatile read per request (the delay) and nothing else. They are meant for tests; nothing
 * in the server sets them, and a server starts without any.
 */
public final class Faults {

    private final NetworkServer network;
    /** Read once per request on the shard threads; 0 when requests are not held. */
    private volatile long delayNanos;
    private boolean refusing;

    Faults(NetworkServer network) {
        this.network = network;
    }

    /**
     * Closes every client connection now, replicas and subscribers included, without sending the replies still
     * pending; returns once they are closed. The server goes on accepting new connections.
     */
    public void dropConnections() {
        network.dropConnections();
    }

    /**
     * Holds every request that arrives from now on {@code delay} before it runs, so its reply leaves that much later
     * (as over a slow link); requests keep their order on each connection. {@link Duration#ZERO} stops holding new
     * requests (those already held still wait their time).
     */
    public void delayReplies(Duration delay) {
        if (delay.isNegative()) throw new IllegalArgumentException("negative delay " + delay);
        delayNanos = delay.toNanos();
    }

    /** The delay set by {@link #delayReplies}; zero when none. */
    public Duration replyDelay() {
        return Duration.ofNanos(delayNanos);
    }

    /**
     * With {@code true}, closes the listening sockets, so that connecting gets "connection refused" while the open
     * connections go on being served; with {@code false}, listens again on the same addresses and port.
     *
     * @throws IllegalStateException when the port can no longer be bound (another socket took it meanwhile and kept
     *     it for more than five seconds; one that lets it go sooner is waited for)
     */
    public synchronized void refuseConnections(boolean refuse) {
        if (refuse == refusing) return;
        if (refuse) {
            network.closeListeners(2000);
        } else {
            network.listenAgain();
        }
        refusing = refuse;
    }

    /** Whether new connections are refused. */
    public synchronized boolean refusingConnections() {
        return refusing;
    }

    /** Clears every fault: no delay, connections accepted again. */
    public void clear() {
        delayReplies(Duration.ZERO);
        refuseConnections(false);
    }

    long delayNanos() {
        return delayNanos;
    }
}
