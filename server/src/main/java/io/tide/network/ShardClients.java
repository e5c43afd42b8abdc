package io.tide.network;

import io.tide.command.ClientSession;
import io.tide.command.Dispatcher;
import io.tide.command.ServerContext;
import io.tide.protocol.ProtocolLimits;
import io.tide.protocol.RespDecoder;
import io.tide.shard.Shard;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The connections whose home is one shard, in no particular order, and what their decoders share.
 * Confined to that shard's thread. An array in which each connection knows its place
 * ({@link ConnectionHandler#clientsSlot}), not a hash set: a set's entry would be 32 B more of each idle connection's
 * heap.
 */
final class ShardClients {

    private static final int MIN = 16;
    /** What these connections' decoders share ({@link RespDecoder.Shared}). */
    final RespDecoder.Shared decoding = new RespDecoder.Shared();
    /** What these connections share, read through here (see {@link ConnectionHandler}'s registry). */
    final ServerContext server;
    final Dispatcher dispatcher;
    final Shard home;
    final OutputBufferLimit outputLimit;
    final Faults faults;
    final ProtocolLimits limits;
    private ConnectionHandler[] connections = new ConnectionHandler[MIN];
    private int size;

    ShardClients(ServerContext server, Dispatcher dispatcher, Shard home, OutputBufferLimit outputLimit, Faults faults,
                 ProtocolLimits limits) {
        this.server = server;
        this.dispatcher = dispatcher;
        this.home = home;
        this.outputLimit = outputLimit;
        this.faults = faults;
        this.limits = limits;
    }

    void add(ConnectionHandler c) {
        if (c.clientsSlot >= 0) return;
        if (size == connections.length) connections = Arrays.copyOf(connections, size * 2);
        connections[size] = c;
        c.clientsSlot = size++;
    }

    /** Removes {@code c} (if here): the last connection takes its place. */
    void remove(ConnectionHandler c) {
        int i = c.clientsSlot;
        if (i < 0 || i >= size || connections[i] != c) return;
        ConnectionHandler last = connections[--size];
        connections[i] = last;
        last.clientsSlot = i;
        connections[size] = null;
        c.clientsSlot = -1;
        if (connections.length > MIN && size < connections.length / 4) {
            connections = Arrays.copyOf(connections, connections.length / 2);
        }
    }

    /** The connections now, a copy (what runs over it may close some). */
    List<ConnectionHandler> snapshot() {
        return Arrays.asList(Arrays.copyOf(connections, size));
    }

    private long peaksSampledSec;

    /** Once a second: each client's recent buffer peaks into the shard's (INFO client_recent_max_*_buffer). */
    void samplePeaks(long nowMs) {
        long sec = nowMs / 1000;
        if (sec == peaksSampledSec) return;
        peaksSampledSec = sec;
        for (int i = 0; i < size; i++) connections[i].sampleBufferPeaks(sec);
    }

    /** Closes every connection now, pending replies dropped ({@link Faults#dropConnections}). */
    void dropAll() {
        for (ConnectionHandler c : snapshot()) c.drop();
    }

    /** Closes clients idle for longer than {@code timeoutSeconds} (0 = never), as Redis's {@code timeout}. */
    void closeIdle(int timeoutSeconds, long nowMs) {
        if (timeoutSeconds <= 0 || size == 0) return;
        List<ConnectionHandler> idle = new ArrayList<>();
        for (int i = 0; i < size; i++) {
            ConnectionHandler c = connections[i];
            ClientSession s = c.session();
            if (s != null && s.pendingReplies() == 0 && s.deferredRequests() == 0
                    && nowMs / 1000 - s.lastInteractionSec() > timeoutSeconds) {
                idle.add(c);
            }
        }
        for (ConnectionHandler c : idle) c.close();
    }
}
