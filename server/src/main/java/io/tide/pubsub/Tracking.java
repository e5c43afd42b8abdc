package io.tide.pubsub;

import io.tide.protocol.Reply;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * Server-assisted client-side caching (CLIENT TRACKING): which clients read which keys, the BCAST prefixes,
 * and the invalidation messages sent when a tracked key changes. Thread-safe: concurrent maps, immutable
 * per-client {@link Mode}s; messages reach each client through its {@link Subscriber}'s queue.
 */
public final class Tracking {

    /** One client's tracking options, fixed from CLIENT TRACKING ON until OFF. Immutable. */
    public record Mode(long redirect, boolean bcast, boolean optin, boolean optout, boolean noloop,
                       List<byte[]> prefixes) {}

    private final ConcurrentHashMap<PubSub.Name, Set<Long>> keys = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<PubSub.Name, Set<Long>> prefixes = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Long, Mode> modes = new ConcurrentHashMap<>();
    /** Clients whose redirect target was found gone when an invalidation was due (TRACKINGINFO, flag R). */
    private final Set<Long> brokenRedirects = ConcurrentHashMap.newKeySet();
    /** A connected client's subscriber by id (created if needed), or null when it is gone. */
    private final LongFunction<Subscriber> clients;

    public Tracking(LongFunction<Subscriber> clients) {
        this.clients = clients;
    }

    /** Whether any client tracks: the one check on the write path when nobody does. */
    public boolean active() {
        return !modes.isEmpty();
    }

    public void on(long clientId, Mode m) {
        brokenRedirects.remove(clientId);
        modes.put(clientId, m);
        for (byte[] p : m.prefixes()) {
            prefixes.computeIfAbsent(new PubSub.Name(p), n -> ConcurrentHashMap.newKeySet()).add(clientId);
        }
    }

    public void off(long clientId) {
        brokenRedirects.remove(clientId);
        Mode m = modes.remove(clientId);
        if (m == null) return;
        for (byte[] p : m.prefixes()) {
            prefixes.computeIfPresent(new PubSub.Name(p), (n, set) -> {
                set.remove(clientId);
                return set.isEmpty() ? null : set;
            });
        }
    }

    /** Whether an invalidation for {@code clientId} found its redirect target gone. */
    public boolean redirectBroken(long clientId) {
        return brokenRedirects.contains(clientId);
    }

    /** Whether {@code id} still exists as a client (a redirect target that went away breaks the redirect). */
    public boolean connected(long id) {
        return clients.apply(id) != null;
    }

    /** Remembers that {@code clientId} read {@code key} (default mode). */
    public void remember(long clientId, byte[] key) {
        keys.computeIfAbsent(new PubSub.Name(key), n -> ConcurrentHashMap.newKeySet()).add(clientId);
    }

    /** A key changed (by {@code originId}, 0 for the server itself): invalidates it for the clients tracking it. */
    public void invalidate(byte[] key, long originId) {
        if (modes.isEmpty()) return;
        Reply payload = null;
        Set<Long> readers = keys.remove(new PubSub.Name(key));
        if (readers != null) {
            payload = Reply.array(Reply.bulk(key));
            for (long id : readers) send(id, originId, payload);
        }
        if (!prefixes.isEmpty()) {
            for (var e : prefixes.entrySet()) {
                if (!startsWith(key, e.getKey().bytes())) continue;
                if (payload == null) payload = Reply.array(Reply.bulk(key));
                for (long id : e.getValue()) send(id, originId, payload);
            }
        }
    }

    /** FLUSHDB / FLUSHALL: every tracking client is told to drop everything (a null invalidation). */
    public void invalidateAll() {
        keys.clear();
        for (long id : modes.keySet()) send(id, 0, null);
    }

    private void send(long id, long originId, Reply payload) {
        Mode m = modes.get(id);
        if (m == null || (m.noloop() && id == originId)) return;
        Subscriber s = clients.apply(m.redirect() != 0 ? m.redirect() : id);
        if (s != null) {
            s.offerInvalidation(payload);
        } else if (m.redirect() != 0) {
            brokenRedirects.add(id);
            Subscriber self = clients.apply(id); // Redis tells a RESP3 client its redirect target is gone
            if (self != null) self.offerRedirectBroken(m.redirect());
        }
    }

    private static boolean startsWith(byte[] key, byte[] prefix) {
        return key.length >= prefix.length && Arrays.equals(key, 0, prefix.length, prefix, 0, prefix.length);
    }
}
