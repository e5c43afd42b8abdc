package io.tide.network;

import io.tide.command.ClientSession;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** The connections whose home is one shard. Confined to that shard's thread. */
final class ShardClients {

    private final Set<ConnectionHandler> connections = new LinkedHashSet<>();

    void add(ConnectionHandler c) {
        connections.add(c);
    }

    void remove(ConnectionHandler c) {
        connections.remove(c);
    }

    private long peaksSampledSec;

    /** Once a second: each client's recent buffer peaks into the shard's (INFO client_recent_max_*_buffer). */
    void samplePeaks(long nowMs) {
        long sec = nowMs / 1000;
        if (sec == peaksSampledSec) return;
        peaksSampledSec = sec;
        for (ConnectionHandler c : connections) c.sampleBufferPeaks(sec);
    }

    /** Closes every connection now, pending replies dropped ({@link Faults#dropConnections}). */
    void dropAll() {
        for (ConnectionHandler c : new ArrayList<>(connections)) c.drop();
    }

    /** Closes clients idle for longer than {@code timeoutSeconds} (0 = never), as Redis's {@code timeout}. */
    void closeIdle(int timeoutSeconds, long nowMs) {
        if (timeoutSeconds <= 0 || connections.isEmpty()) return;
        List<ConnectionHandler> idle = new ArrayList<>();
        for (ConnectionHandler c : connections) {
            ClientSession s = c.session();
            if (s != null && s.pendingReplies() == 0 && s.deferredRequests() == 0
                    && nowMs - s.lastInteractionMs() > timeoutSeconds * 1000L) {
                idle.add(c);
            }
        }
        for (ConnectionHandler c : idle) c.close();
    }
}
