package io.tide.command;

import io.tide.protocol.Reply;
import io.tide.shard.Shard;
import io.tide.shard.ShardSet;
import io.tide.shard.Waiter;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Thread-safe through {@link Waiter}'s state word: a client parked by a blocking command. Created and
 * registered on the thread that ran the command (its keys' shard, or the coordinator); served by that
 * shard or the coordinator; timed out and cancelled on the client's home shard. Whoever finishes it
 * posts the reply home, where {@link #deliver} completes the client's reserved reply slot.
 */
final class BlockedCommand extends Waiter {

    final ClientSession client;
    final CommandSpec spec;
    final byte[][] argv;
    final ClientSession.Slot slot;
    final Reply timeoutReply;
    final long deadlineMs;
    final boolean noTouch;
    private final ShardSet shards;
    private final Dispatcher dispatcher;
    /** The timeout timer; set and read on the home shard only. */
    private ScheduledFuture<?> timer;

    BlockedCommand(Dispatcher dispatcher, ShardSet shards, ClientSession client, CommandSpec spec, BlockRequest r,
                   ClientSession.Slot slot, int db, long shardMask) {
        super(db, r.keys(), shardMask);
        this.dispatcher = dispatcher;
        this.shards = shards;
        this.client = client;
        this.spec = spec;
        this.argv = r.retryArgv();
        this.slot = slot;
        this.timeoutReply = r.timeoutReply();
        this.deadlineMs = r.deadlineMs();
        this.noTouch = client.noTouch;
    }

    /**
     * Whether a signal of one of its keys, which now holds {@code value} (null: none), is worth running this command
     * again. As Redis 7 (handleClientsBlockedOnKey): only when the key holds the type the command waits for, and for
     * XREADGROUP also when the stream is gone or retyped (it then answers an error). Otherwise a waiter whose other key
     * has data would be served from that key on this key's signal, ahead of the clients waiting on that key: a BLMOVE
     * served first empties this key by moving its element to another, and the next waiter here, which also waits on
     * that other key, took the element before the other key's own earlier waiter.
     */
    @Override
    public boolean retriedOn(Object value) {
        return switch (spec.group()) {
            case "list" -> value instanceof io.tide.store.ListValue;
            case "sorted-set" -> value instanceof io.tide.store.ZSetValue;
            case "stream" -> value instanceof io.tide.store.StreamValue || toldOfDeletion();
            default -> true;
        };
    }

    @Override
    public boolean toldOfDeletion() {
        return spec.fullName().equals("xreadgroup");
    }

    /** Queues this waiter on each of its keys; runs where those keys' shards are owned or parked. */
    void register() {
        for (byte[] key : keys()) shards.shardOf(key).blocking().add(this, db(), key);
    }

    /** Removes this waiter from its keys' queues; runs where those keys' shards are owned or parked. */
    void unregister() {
        for (Shard s : shards.all()) {
            if ((shardMask() & (1L << s.id())) != 0) s.blocking().remove(this, shards, s);
        }
    }

    /** On the home shard, once the client knows it is blocked: arms the timeout. */
    void armTimer(long nowMs) {
        if (deadlineMs == 0 || isDone()) return;
        scheduleTimeout(Math.max(0, deadlineMs - nowMs));
    }

    private void scheduleTimeout(long delayMs) {
        timer = client.home().loop().schedule(this::timeout, delayMs, TimeUnit.MILLISECONDS);
    }

    /** On the home shard at the deadline. */
    private void timeout() {
        if (finish()) {
            unregisterFromHome();
            deliver(timeoutReply);
        } else if (isServing()) {
            scheduleTimeout(1); // an attempt to serve is under way: look again once it has settled
        }
    }

    /** On the home shard: the client disconnected, or CLIENT UNBLOCK; true if it was still waiting. */
    boolean cancel(Reply reply) {
        if (!finish()) return false;
        unregisterFromHome();
        if (reply != null) deliver(reply);
        else dispatcher.unblocked(this);
        return true;
    }

    /** On the home shard, after another thread finished this waiter (CLIENT UNBLOCK): unregister and answer. */
    void cancelled(Reply reply) {
        unregisterFromHome();
        deliver(reply);
    }

    /** Posts the removal to the shards that own the keys (the coordinator is not needed: only queues change). */
    private void unregisterFromHome() {
        for (Shard s : shards.all()) {
            if ((shardMask() & (1L << s.id())) != 0) s.executeOnData(() -> s.blocking().remove(this, shards, s));
        }
    }

    /** On the home shard: completes the reply slot and lets the client's queued requests run. */
    void deliver(Reply reply) {
        if (timer != null) timer.cancel(false);
        client.complete(slot, reply);
        dispatcher.unblocked(this);
    }
}
