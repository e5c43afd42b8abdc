package io.tide.journal;

import io.tide.Server;
import io.tide.shard.Shard;
import java.util.ArrayList;
import java.util.List;

/**
 * A journal sink for tests that keeps copies of everything one shard journals. Thread-safe: the shard's thread
 * (or the coordinator) appends, the test reads {@link #records()} once the server is quiet.
 */
public final class CapturingSink implements JournalSink {

    /** One journal record: a lone effect ({@code tx} false, one effect) or a transaction (a group's part when seq > 0). */
    public record Rec(boolean tx, long seq, int parts, List<Effect> effects) {}

    private final List<Rec> records = new ArrayList<>();

    @Override
    public synchronized void command(Effect e) {
        records.add(new Rec(false, 0, 1, List.of(copy(e))));
    }

    @Override
    public synchronized void transaction(long groupSeq, int parts, List<Effect> effects) {
        List<Effect> l = new ArrayList<>(effects.size());
        for (Effect e : effects) l.add(copy(e));
        records.add(new Rec(true, groupSeq, parts, List.copyOf(l)));
    }

    public synchronized List<Rec> records() {
        return List.copyOf(records);
    }

    public synchronized void clear() {
        records.clear();
    }

    private static Effect copy(Effect e) {
        byte[][] a = new byte[e.argv().length][];
        for (int i = 0; i < a.length; i++) a[i] = e.argv()[i].clone();
        return new Effect(e.db(), a);
    }

    /** Adds one capturing sink to each shard's journal (on each shard's thread) and returns them by shard id. */
    public static CapturingSink[] attach(Server server) throws Exception {
        Shard[] all = server.context().shards().all();
        CapturingSink[] sinks = new CapturingSink[all.length];
        for (int i = 0; i < all.length; i++) {
            Shard s = all[i];
            CapturingSink sink = new CapturingSink();
            sinks[i] = sink;
            s.loop().submit(() -> s.writes().journal().addSink(sink)).get();
        }
        return sinks;
    }
}
