package io.tide.store;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.NavigableMap;
import java.util.TreeMap;

/**
 * Confined to the shard thread that owns its stream. A consumer group of a {@link StreamValue}: its last
 * delivered ID, its logical read counter ({@code entries-read}), its pending entries list (PEL) and its
 * consumers, each with the part of the PEL delivered to it. A pending entry is shared by the group's PEL and
 * its consumer's, as in Redis. Consumers are ordered by name bytes (Redis's radix tree order). The stream
 * makes every change, so that it can keep its memory estimate current; this class exposes read-only views.
 */
public final class StreamGroup {

    /** {@code entries-read} when the counter is unknown (Redis's SCG_INVALID_ENTRIES_READ). */
    public static final long INVALID_ENTRIES_READ = -1;

    private final byte[] name;
    StreamId lastId;
    long entriesRead;
    final TreeMap<StreamId, Pending> pel = new TreeMap<>();
    final TreeMap<byte[], Consumer> consumers = new TreeMap<>(Arrays::compareUnsigned);

    StreamGroup(byte[] name, StreamId lastId, long entriesRead) {
        this.name = name;
        this.lastId = lastId;
        this.entriesRead = entriesRead;
    }

    public byte[] name() { return name; }
    public StreamId lastId() { return lastId; }
    /** The logical read counter, or {@link #INVALID_ENTRIES_READ}. */
    public long entriesRead() { return entriesRead; }
    public int pendingCount() { return pel.size(); }
    /** The group's PEL by entry ID, read-only. */
    public NavigableMap<StreamId, Pending> pending() { return Collections.unmodifiableNavigableMap(pel); }
    /** The consumers in name order, read-only. */
    public Collection<Consumer> consumers() { return Collections.unmodifiableCollection(consumers.values()); }
    public int consumerCount() { return consumers.size(); }
    public Consumer consumer(byte[] consumerName) { return consumers.get(consumerName); }

    /** Confined to the shard thread that owns its stream. A consumer of a group. */
    public static final class Consumer {
        private final byte[] name;
        long seenTime;
        final TreeMap<StreamId, Pending> pel = new TreeMap<>();

        Consumer(byte[] name, long seenTime) {
            this.name = name;
            this.seenTime = seenTime;
        }

        public byte[] name() { return name; }
        /** Unix ms of the consumer's last attempted interaction (XREADGROUP, XCLAIM, XAUTOCLAIM). */
        public long seenTime() { return seenTime; }
        public int pendingCount() { return pel.size(); }
        /** The entries delivered to this consumer and not yet acknowledged, read-only. */
        public NavigableMap<StreamId, Pending> pending() { return Collections.unmodifiableNavigableMap(pel); }
    }

    /** Confined to the shard thread that owns its stream. A delivered, unacknowledged entry (Redis's NACK). */
    public static final class Pending {
        long deliveryTime;
        long deliveryCount;
        /** Null only for an entry XCLAIM FORCE just created, until it is assigned. */
        Consumer consumer;

        Pending(long deliveryTime, long deliveryCount, Consumer consumer) {
            this.deliveryTime = deliveryTime;
            this.deliveryCount = deliveryCount;
            this.consumer = consumer;
        }

        /** Unix ms of the last delivery. */
        public long deliveryTime() { return deliveryTime; }
        public long deliveryCount() { return deliveryCount; }
        public Consumer consumer() { return consumer; }
    }
}
