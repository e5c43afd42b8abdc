package io.tide.pubsub;

import io.tide.protocol.Reply;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongFunction;

/**
 * Server-assisted client-side caching (CLIENT TRACKING): which clients read which keys, the BCAST prefixes,
 * and the invalidation messages sent when a tracked key changes. Thread-safe: concurrent maps, immutable
 * per-client {@link Mode}s, and a per-thread batch for the command running on that thread; messages reach each
 * client through its {@link Subscriber}'s queue.
 *
 * <p>As Redis 7.0 does, a key tracked in default mode is invalidated by a message of its own as it changes, while
 * BCAST prefixes collect the keys they match until the command (a whole EXEC or script included) ends: then each
 * prefix sends its clients one message listing its keys once each, in byte order, leaving out for a NOLOOP client
 * the keys it changed itself. Changes made outside a command (active expiry) are sent at once.
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
    /** The BCAST keys changed by the command running on each thread; only touched while a prefix exists. */
    private final ThreadLocal<Batch> batches = ThreadLocal.withInitial(Batch::new);
    /** A connected client's subscriber by id (created if needed), or null when it is gone. */
    private final LongFunction<Subscriber> clients;

    public Tracking(LongFunction<Subscriber> clients) {
        this.clients = clients;
    }

    /** INFO tracking_clients: clients with tracking on. */
    public int clientCount() {
        return modes.size();
    }

    /** INFO tracking_total_keys: keys some client is told about in default mode. */
    public int keyCount() {
        return keys.size();
    }

    /** INFO tracking_total_items: (key, client) pairs of the default mode's table. */
    public long itemCount() {
        long n = 0;
        for (Set<Long> s : keys.values()) n += s.size();
        return n;
    }

    /** INFO tracking_total_prefixes: BCAST prefixes in use. */
    public int prefixCount() {
        return prefixes.size();
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

    /**
     * Remembers that {@code clientId} read {@code key} (default mode). What the table keeps is a copy: a request's
     * argument arrays may be filled again by a later request (decision 0028).
     */
    public void remember(long clientId, byte[] key) {
        Set<Long> ids = keys.get(new PubSub.Name(key));
        if (ids == null) ids = keys.computeIfAbsent(new PubSub.Name(key.clone()), n -> ConcurrentHashMap.newKeySet());
        ids.add(clientId);
    }

    /** A key changed (by {@code originId}, 0 for the server itself): invalidates it for the clients tracking it. */
    public void invalidate(byte[] key, long originId) {
        if (modes.isEmpty()) return;
        Reply payload = null;
        Set<Long> readers = keys.remove(new PubSub.Name(key));
        // What goes into messages and batches is a copy: the caller's key may be a request's argument (decision 0028).
        byte[] kept = null;
        if (readers != null) {
            payload = Reply.array(Reply.bulk(kept = key.clone()));
            for (long id : readers) send(id, originId, payload);
        }
        if (!prefixes.isEmpty()) {
            Batch b = batches.get();
            for (var e : prefixes.entrySet()) {
                if (!startsWith(key, e.getKey().bytes())) continue;
                if (b.depth > 0) {
                    // Redis's trackingRememberKeyToBroadcast: the first change of a key names its origin.
                    b.byPrefix.computeIfAbsent(e.getKey().bytes(), p -> new TreeMap<>(Arrays::compareUnsigned))
                            .putIfAbsent(kept != null ? kept : (kept = key.clone()), originId);
                    continue;
                }
                if (payload == null) payload = Reply.array(Reply.bulk(kept != null ? kept : (kept = key.clone())));
                for (long id : e.getValue()) send(id, originId, payload);
            }
        }
    }

    /**
     * Takes this thread's batch (of the command running on it) away and leaves a fresh one: the command goes on on
     * another thread, which {@link #attachBatch attaches} it (a busy script moving to the coordinator, decision 0022).
     */
    public Object detachBatch() {
        Batch b = batches.get();
        batches.set(new Batch());
        return b;
    }

    /** This thread's batch becomes {@code batch}, one {@link #detachBatch} took from another thread. */
    public void attachBatch(Object batch) {
        batches.set((Batch) batch);
    }

    /** A command starts on this thread: BCAST invalidations wait for its {@link #endCommand}. Nests. */
    public void beginCommand(long originId) {
        Batch b = batches.get();
        if (b.depth++ == 0) b.origin = originId;
    }

    /** The command begun on this thread ended: each BCAST prefix sends what it collected, one message a client. */
    public void endCommand() {
        Batch b = batches.get();
        if (--b.depth > 0) return;
        b.depth = 1; // still open: the running client's own messages below wait for its reply
        try {
            flush(b);
        } finally {
            b.depth = 0;
        }
    }

    private void flush(Batch b) {
        for (var e : b.byPrefix.entrySet()) {
            Set<Long> ids = prefixes.get(new PubSub.Name(e.getKey()));
            if (ids == null) continue;
            Reply all = null;
            for (long id : ids) {
                Mode m = modes.get(id);
                if (m == null) continue;
                Reply payload;
                if (m.noloop()) {
                    payload = keysNotFrom(e.getValue(), id);
                    if (payload == null) continue;
                } else {
                    if (all == null) all = keysNotFrom(e.getValue(), Long.MIN_VALUE);
                    payload = all;
                }
                send(id, b.origin, payload, false);
            }
        }
        b.byPrefix.clear();
        if (b.own != null) {
            for (Reply r : b.ownPayloads) b.own.offerInvalidationAfterReply(r);
            b.ownPayloads.clear();
            b.own = null;
        }
    }

    /** The keys of {@code changed} whose origin is not {@code except}, as an array; null when none is left. */
    private static Reply keysNotFrom(Map<byte[], Long> changed, long except) {
        Reply[] out = new Reply[changed.size()];
        int n = 0;
        for (var k : changed.entrySet()) {
            if (k.getValue() != except) out[n++] = Reply.bulk(k.getKey());
        }
        return n == 0 ? null : Reply.array(n == out.length ? out : Arrays.copyOf(out, n));
    }

    /** FLUSHDB / FLUSHALL: every tracking client is told to drop everything (a null invalidation). */
    public void invalidateAll() {
        keys.clear();
        for (long id : modes.keySet()) send(id, 0, null);
    }

    private void send(long id, long originId, Reply payload) {
        send(id, originId, payload, true);
    }

    /** {@code loop}: whether NOLOOP drops it when {@code id} is the origin (a BCAST batch has filtered already). */
    private void send(long id, long originId, Reply payload, boolean loop) {
        Mode m = modes.get(id);
        if (m == null || (loop && m.noloop() && id == originId)) return;
        long target = m.redirect() != 0 ? m.redirect() : id;
        Subscriber s = clients.apply(target);
        if (s != null) {
            if (target == originId && originId != 0) {
                Batch b = batches.get();
                if (b.depth > 0) { // the running client's own: after its reply, as Redis's tracking_pending_keys
                    b.own = s;
                    b.ownPayloads.add(payload);
                    return;
                }
            }
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

    /**
     * Confined to its thread: the running command's BCAST keys (prefix, then key to the client that first changed
     * it) and the messages for the running client's own writes.
     */
    private static final class Batch {
        int depth;
        /** The client running the command (0 for the server), whose own invalidations follow its reply. */
        long origin;
        Subscriber own;
        final List<Reply> ownPayloads = new java.util.ArrayList<>();
        final TreeMap<byte[], TreeMap<byte[], Long>> byPrefix = new TreeMap<>(Arrays::compareUnsigned);
    }
}
