package io.tide.pubsub;

import io.tide.protocol.Reply;
import io.tide.util.Glob;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The server's pub/sub registry: channel, pattern and shard-channel subscriptions of every client, on
 * every shard. Thread-safe: concurrent maps whose per-name subscriber sets are created and dropped
 * atomically; a publish on any shard thread reads them and hands each message to its subscribers'
 * home loops through {@link Subscriber#offer}, never blocking.
 */
public final class PubSub {

    private static final byte[] MESSAGE = "message".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] PMESSAGE = "pmessage".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] SMESSAGE = "smessage".getBytes(StandardCharsets.US_ASCII);

    private final ConcurrentHashMap<Name, Set<Subscriber>> channels = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Name, Set<Subscriber>> patterns = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Name, Set<Subscriber>> shardChannels = new ConcurrentHashMap<>();
    /** The pubsub class's hard output limit in bytes (0 = none), checked when a message is queued. */
    private volatile long hardLimit;
    /** The normal class's: a monitor that subscribes to nothing is a normal client to Redis's limits. */
    private volatile long normalHardLimit;

    /** A channel or pattern name with value equality. */
    public record Name(byte[] bytes) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Name n && Arrays.equals(bytes, n.bytes);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(bytes);
        }
    }

    /** The kinds of subscription; each has its own namespace as in Redis. */
    public enum Kind { CHANNEL, PATTERN, SHARD }

    /**
     * The hard output limit for a client with an active subscription ({@code pubsub}), else the normal class's: as
     * Redis's getClientType, which counts a MONITOR client (flagged replica and monitor) as normal unless subscribed.
     */
    public long hardLimit(boolean pubsub) {
        return pubsub ? hardLimit : normalHardLimit;
    }

    /** Sets the pubsub and normal classes' hard limits from the canonical {@code client-output-buffer-limit} text. */
    public void limits(String canonical) {
        String[] w = canonical.trim().split("\\s+");
        long hard = 0;
        long normal = 0;
        for (int i = 0; i + 3 < w.length; i += 4) {
            if (w[i].equals("pubsub")) hard = Long.parseLong(w[i + 1]);
            if (w[i].equals("normal")) normal = Long.parseLong(w[i + 1]);
        }
        hardLimit = hard;
        normalHardLimit = normal;
    }

    private ConcurrentHashMap<Name, Set<Subscriber>> map(Kind k) {
        return switch (k) {
            case CHANNEL -> channels;
            case PATTERN -> patterns;
            case SHARD -> shardChannels;
        };
    }

    void add(Kind kind, Name name, Subscriber s) {
        map(kind).compute(name, (n, set) -> {
            Set<Subscriber> out = set == null ? ConcurrentHashMap.newKeySet() : set;
            out.add(s);
            return out;
        });
    }

    void remove(Kind kind, Name name, Subscriber s) {
        map(kind).computeIfPresent(name, (n, set) -> {
            set.remove(s);
            return set.isEmpty() ? null : set;
        });
    }

    /** PUBLISH: delivers to channel and pattern subscribers; returns how many received it. */
    public int publish(byte[] channel, byte[] message) {
        int receivers = 0;
        // No channel subscribed anywhere (a PUBLISH nobody hears): no hashing of the name, no lookup.
        Set<Subscriber> subs = channels.isEmpty() ? null : channels.get(new Name(channel));
        if (subs != null && !subs.isEmpty()) {
            Reply r = new Reply.Push(new Reply[] {new Reply.Bulk(MESSAGE), new Reply.Bulk(channel),
                new Reply.Bulk(message)});
            long size = 40L + channel.length + message.length;
            for (Subscriber s : subs) {
                s.offer(r, size);
                receivers++;
            }
        }
        if (!patterns.isEmpty()) {
            for (var e : patterns.entrySet()) {
                byte[] p = e.getKey().bytes();
                if (!Glob.matches(p, channel, false)) continue;
                Reply r = new Reply.Push(new Reply[] {new Reply.Bulk(PMESSAGE), new Reply.Bulk(p),
                    new Reply.Bulk(channel), new Reply.Bulk(message)});
                long size = 56L + p.length + channel.length + message.length;
                for (Subscriber s : e.getValue()) {
                    s.offer(r, size);
                    receivers++;
                }
            }
        }
        return receivers;
    }

    /** SPUBLISH: delivers to the shard channel's subscribers; returns how many received it. */
    public int spublish(byte[] channel, byte[] message) {
        Set<Subscriber> subs = shardChannels.get(new Name(channel));
        if (subs == null || subs.isEmpty()) return 0;
        Reply r = new Reply.Push(new Reply[] {new Reply.Bulk(SMESSAGE), new Reply.Bulk(channel),
            new Reply.Bulk(message)});
        long size = 40L + channel.length + message.length;
        int receivers = 0;
        for (Subscriber s : subs) {
            s.offer(r, size);
            receivers++;
        }
        return receivers;
    }

    /** PUBSUB CHANNELS / SHARDCHANNELS: active channels matching {@code pattern} (null = all). */
    public List<byte[]> active(Kind kind, byte[] pattern) {
        List<byte[]> out = new ArrayList<>();
        for (Name n : map(kind).keySet()) {
            if (pattern == null || Glob.matches(pattern, n.bytes(), false)) out.add(n.bytes());
        }
        return out;
    }

    /** PUBSUB NUMSUB / SHARDNUMSUB: subscribers of one channel. */
    public int count(Kind kind, byte[] channel) {
        Set<Subscriber> subs = map(kind).get(new Name(channel));
        return subs == null ? 0 : subs.size();
    }

    /** Number of distinct channels (INFO pubsub_channels), patterns (PUBSUB NUMPAT) or shard channels. */
    public int size(Kind kind) {
        return map(kind).size();
    }
}
