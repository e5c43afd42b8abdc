package io.tide.pubsub;

import io.tide.protocol.Reply;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One client's side of pub/sub: its subscriptions and the queue of messages on their way to it.
 * The subscription sets are confined to the client's home shard thread; {@link #offer} is
 * thread-safe (any publishing shard calls it) and {@link #drain} runs on the home thread, writing every
 * queued message and flushing once, so a burst of publishes reaches the socket in one write.
 *
 * <p>Memory stays bounded: a message is queued only while the bytes queued plus the client's output
 * buffer (as last seen by a drain) stay under the hard limit of the client's class (pubsub while it has a
 * subscription, else normal: a MONITOR client, as Redis classes it); past it the client is marked dead, later
 * messages are dropped, and its home loop closes it, as Redis does.
 */
public final class Subscriber {

    /** The client connection as the subscriber sees it. Called on the home thread only. */
    public interface Sink {
        /** Encodes one message or confirmation into the output buffer, in the client's protocol. */
        void write(Reply r);

        void flush();

        boolean isClosed();

        /** Bytes in the output buffer and the transport's queue. */
        long outputBytes();

        /** Closes the client for overcoming the pubsub output buffer limit. */
        void closeForLimit(long bytes);

        /** The client's protocol version now. */
        int protocol();

        /** Whether the client has an active subscription. */
        boolean inPubSubMode();
    }

    private final PubSub registry;
    private final Executor home;
    private final Sink sink;
    private final LinkedHashSet<PubSub.Name> channels = new LinkedHashSet<>();
    private final LinkedHashSet<PubSub.Name> patterns = new LinkedHashSet<>();
    private final LinkedHashSet<PubSub.Name> shardChannels = new LinkedHashSet<>();

    private final ConcurrentLinkedQueue<Queued> queue = new ConcurrentLinkedQueue<>();
    /** Invalidations of the client's own writes, waiting for the command's reply to leave. */
    private final ConcurrentLinkedQueue<Reply> afterReply = new ConcurrentLinkedQueue<>();
    private final AtomicLong queuedBytes = new AtomicLong();
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private final Runnable drainTask = this::drain;
    private volatile long lastOutputBytes;
    private volatile boolean dead;
    /**
     * Bumped by {@link #unsubscribeAll} (home thread): a message queued under an older generation was sent by a
     * publisher or monitored command that still saw this client subscribed or monitoring, and is dropped.
     */
    private volatile int generation;
    /** {@link #active()} as of the last change, for the limit check on publishing threads. */
    private volatile boolean subscribed;
    /** The MONITOR registry while this client monitors, else null. Home thread. */
    private Monitor monitor;
    /**
     * {@link #generation} when MONITOR registered this client: a feeding thread that found it in the registry queues
     * under this one, so a line fed after RESET from a registry snapshot taken before it is dropped however late it
     * reads the generation.
     */
    private volatile int monitorGeneration = -1;

    /** A message with its estimated encoded size; an invalidation is shaped on delivery, by protocol. */
    private record Queued(Reply reply, long size, boolean invalidation, int generation) {}

    private static final Reply INVALIDATE = Reply.bulk("invalidate");
    private static final Reply MESSAGE = Reply.bulk("message");
    private static final Reply INVALIDATE_CHANNEL = Reply.bulk("__redis__:invalidate");

    public Subscriber(PubSub registry, Executor home, Sink sink) {
        this.registry = registry;
        this.home = home;
        this.sink = sink;
    }

    private LinkedHashSet<PubSub.Name> set(PubSub.Kind k) {
        return switch (k) {
            case CHANNEL -> channels;
            case PATTERN -> patterns;
            case SHARD -> shardChannels;
        };
    }

    /** Subscribes; returns false when already subscribed. Home thread. */
    public boolean subscribe(PubSub.Kind kind, byte[] name) {
        PubSub.Name n = new PubSub.Name(name);
        if (!set(kind).add(n)) return false;
        registry.add(kind, n, this);
        subscribed = true;
        return true;
    }

    /** Unsubscribes; returns false when not subscribed. Home thread. */
    public boolean unsubscribe(PubSub.Kind kind, byte[] name) {
        PubSub.Name n = new PubSub.Name(name);
        if (!set(kind).remove(n)) return false;
        registry.remove(kind, n, this);
        subscribed = active();
        return true;
    }

    /** The names subscribed to, in subscription order. Home thread. */
    public List<byte[]> names(PubSub.Kind kind) {
        List<byte[]> out = new ArrayList<>();
        for (PubSub.Name n : set(kind)) out.add(n.bytes());
        return out;
    }

    public int count(PubSub.Kind kind) {
        return set(kind).size();
    }

    /** Channels plus patterns: the count SUBSCRIBE and PSUBSCRIBE confirmations carry. */
    public int channelsAndPatterns() {
        return channels.size() + patterns.size();
    }

    /** Whether any subscription is active (the client is a pubsub client). */
    public boolean active() {
        return !channels.isEmpty() || !patterns.isEmpty() || !shardChannels.isEmpty();
    }

    void monitor(Monitor m) {
        monitorGeneration = generation; // before the registry add that publishes this client to feeders
        monitor = m;
    }

    /** Whether the client is in MONITOR mode (CLIENT LIST flag O). */
    public boolean isMonitor() {
        return monitor != null;
    }

    /**
     * Drops every subscription and MONITOR mode (RESET, disconnect). Home thread. What is queued now was sent while
     * the client still listened: it is written first, so it comes before RESET's reply, as in Redis; what racing
     * publishers and monitored commands queue from now on is dropped, so no line or message follows {@code +RESET}.
     */
    public void unsubscribeAll() {
        drain();
        generation++;
        if (monitor != null) {
            monitor.remove(this);
            monitor = null;
        }
        for (PubSub.Kind k : PubSub.Kind.values()) {
            for (PubSub.Name n : set(k)) registry.remove(k, n, this);
            set(k).clear();
        }
        subscribed = false;
    }

    /** Queues a message for delivery; any thread, never blocks. */
    void offer(Reply message, long size) {
        offer(message, size, generation);
    }

    /** Queues a MONITOR line, under the generation the client registered in; any thread. */
    void offerMonitorLine(Reply line, long size) {
        offer(line, size, monitorGeneration);
    }

    private void offer(Reply message, long size, int gen) {
        if (dead) return;
        long queued = queuedBytes.addAndGet(size);
        long hard = registry.hardLimit(subscribed);
        if (hard > 0 && queued + lastOutputBytes >= hard) {
            dead = true;
            long total = queued + lastOutputBytes;
            home.execute(() -> {
                queue.clear();
                queuedBytes.set(0);
                if (!sink.isClosed()) sink.closeForLimit(total);
            });
            return;
        }
        queue.offer(new Queued(message, size, false, gen));
        if (scheduled.compareAndSet(false, true)) home.execute(drainTask);
    }

    /**
     * Queues a client-tracking invalidation ({@code keys} an array of keys, or null for "everything"): a RESP3
     * client gets an {@code invalidate} push, a RESP2 client in subscribe mode (a REDIRECT target) a message on
     * {@code __redis__:invalidate}, anyone else nothing, as in Redis. Any thread.
     */
    public void offerInvalidation(Reply keys) {
        if (dead) return;
        queue.offer(new Queued(keys, 0, true, generation));
        if (scheduled.compareAndSet(false, true)) home.execute(drainTask);
    }

    /**
     * Holds an invalidation for the client's own write until the replies due so far have left
     * ({@link #repliesSent}), so it follows the reply of the command that caused it, as in Redis. Any thread; the
     * command's reply is sent after this call.
     */
    public void offerInvalidationAfterReply(Reply keys) {
        if (dead) return;
        afterReply.offer(keys);
    }

    /** Every reply due has been written: held invalidations go out behind them. Home thread. */
    public void repliesSent() {
        if (afterReply.isEmpty()) return;
        for (Reply r; (r = afterReply.poll()) != null; ) queue.offer(new Queued(r, 0, true, generation));
        drain();
    }

    /** Queues {@code tracking-redir-broken}: sent only if the client speaks RESP3 when it is delivered. Any thread. */
    void offerRedirectBroken(long redirectId) {
        if (dead) return;
        queue.offer(new Queued(new Reply.Push(new Reply[] {Reply.bulk("tracking-redir-broken"),
            Reply.integer(redirectId)}), 0, true, generation));
        if (scheduled.compareAndSet(false, true)) home.execute(drainTask);
    }

    /** Writes every queued message, then flushes once. Home thread. */
    private void drain() {
        scheduled.set(false);
        Queued q;
        long drained = 0;
        boolean wrote = false;
        while ((q = queue.poll()) != null) {
            drained += q.size;
            if (dead || sink.isClosed() || q.generation != generation) continue;
            if (q.invalidation && q.reply instanceof Reply.Push) {
                if (sink.protocol() != 3) continue;
                sink.write(q.reply);
            } else if (q.invalidation) {
                if (sink.protocol() == 3) {
                    sink.write(new Reply.Push(new Reply[] {INVALIDATE, q.reply == null ? Reply.NULL : q.reply}));
                } else if (sink.inPubSubMode()) {
                    sink.write(new Reply.Push(new Reply[] {MESSAGE, INVALIDATE_CHANNEL,
                        q.reply == null ? Reply.NULL : q.reply}));
                } else {
                    continue;
                }
            } else {
                sink.write(q.reply);
            }
            wrote = true;
        }
        if (wrote) sink.flush();
        queuedBytes.addAndGet(-drained);
        lastOutputBytes = sink.isClosed() ? 0 : sink.outputBytes();
    }
}
