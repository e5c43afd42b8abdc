package io.tide.replication;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Thread-safe as described below. One replica connection as the primary sees it: what its handshake announced (REPLCONF listening-port, ip-address,
 * capa) and, once PSYNC made it a replica, its state in the sync, its acknowledged offset and the bytes queued for
 * it. The handshake fields are written on the connection's home shard before PSYNC hands the link to the replication
 * thread (the hand-over through the primary's queue publishes them); from then on the state is the replication
 * thread's, except the volatile fields INFO reads and the unsent-byte counters, which the socket's completions update.
 */
public final class ReplicaLink {

    /** Where the link's bytes go: the replica's socket. Thread-safe. */
    public interface Channel {
        /** Writes {@code bytes} after everything written before; {@code done} gets whether they reached the socket. */
        void write(byte[] bytes, Consumer<Boolean> done);

        /** Closes the connection. */
        void close();
    }

    /** The replica states Redis shows in INFO replication. */
    enum State {
        WAIT_BGSAVE_START("wait_bgsave"), WAIT_BGSAVE_END("wait_bgsave"), SEND_BULK("send_bulk"), ONLINE("online");

        final String info;

        State(String info) {
            this.info = info;
        }
    }

    final long clientId;
    /** The peer's address as the connection sees it. */
    final String peerIp;
    // The handshake (home shard, before PSYNC).
    private volatile int listeningPort;
    private volatile String announcedIp;
    private volatile boolean capaEof;
    private volatile boolean capaPsync2;
    private volatile boolean rdbOnly;

    // Set by PSYNC, then the replication thread's.
    Channel channel;
    volatile State state = State.WAIT_BGSAVE_START;
    volatile long ackOffset;
    /** The last REPLCONF ACK's FACK: the stream offset the replica's AOF fsynced (-1: never sent, a Redis 7.0). */
    volatile long aofAckOffset = -1;
    volatile long ackTimeMs = System.currentTimeMillis();
    long waitingSinceMs;
    /** Set by the replication thread; read by the snapshot's writer too. */
    volatile boolean closed;
    /** Online after a disk-less sync: the stream is held until the replica's first ACK. */
    boolean awaitingFirstAck;
    /** PSYNC (not the old SYNC): the full sync opens with +FULLRESYNC. */
    boolean psync;
    /** Stream bytes kept for the replica while its RDB is being produced and sent (Redis's output buffer then). */
    final ArrayDeque<byte[]> held = new ArrayDeque<>();
    long heldBytes;
    /** Bytes of the stream (not of the RDB) handed to the socket and not yet written. */
    final AtomicLong streamUnsent = new AtomicLong();
    /** Bytes of the RDB handed to the socket and not yet written. */
    final AtomicLong rdbUnsent = new AtomicLong();
    long overSoftSinceMs;

    public ReplicaLink(long clientId, String peerIp) {
        this.clientId = clientId;
        this.peerIp = peerIp;
    }

    public void listeningPort(int port) { listeningPort = port; }
    public void announcedIp(String ip) { announcedIp = ip; }
    public void capa(String capa) {
        if (capa.equalsIgnoreCase("eof")) capaEof = true;
        else if (capa.equalsIgnoreCase("psync2")) capaPsync2 = true;
    }
    public void rdbOnly(boolean on) { rdbOnly = on; }

    int listeningPort() { return listeningPort; }
    String ip() { return announcedIp != null ? announcedIp : peerIp; }
    boolean capaEof() { return capaEof; }
    boolean capaPsync2() { return capaPsync2; }
    boolean rdbOnly() { return rdbOnly; }

    /** Bytes that count against the replica class of client-output-buffer-limit: the stream, not the RDB. */
    long outputBytes() {
        return heldBytes + streamUnsent.get();
    }

    /** Writes stream bytes. */
    void writeStream(byte[] b, Primary primary) {
        streamUnsent.addAndGet(b.length);
        channel.write(b, ok -> {
            streamUnsent.addAndGet(-b.length);
            if (ok) primary.replicated(b.length);
            else primary.linkLost(this);
        });
    }

    /** Writes RDB (or handshake) bytes. */
    void writeRdb(byte[] b, Primary primary) {
        rdbUnsent.addAndGet(b.length);
        channel.write(b, ok -> {
            rdbUnsent.addAndGet(-b.length);
            if (ok) primary.replicated(b.length);
            else primary.linkLost(this);
        });
    }
}
