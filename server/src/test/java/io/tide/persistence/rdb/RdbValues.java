package io.tide.persistence.rdb;

import io.tide.store.EncodingLimits;
import io.tide.store.HashValue;
import io.tide.store.ListValue;
import io.tide.store.SetValue;
import io.tide.store.StreamGroup;
import io.tide.store.StreamId;
import io.tide.store.StreamValue;
import io.tide.store.ZSetValue;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/** Thread-safe (stateless). Builds store values for codec tests and describes their contents for comparisons. */
final class RdbValues {

    static final EncodingLimits L = EncodingLimits.DEFAULTS;

    private RdbValues() {}

    static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    static String s(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    static ListValue list(int n, int size) {
        ListValue l = new ListValue();
        for (int i = 0; i < n; i++) {
            byte[] e = i % 3 == 0 ? b(Integer.toString(i * 7 - 50)) : b("e" + i + "x".repeat(size));
            l.beforeAdding(L.listMaxListpackSize, 0, e.length, 1);
            l.push(e, false);
        }
        return l;
    }

    static HashValue hash(int n, int size) {
        HashValue h = new HashValue();
        for (int i = 0; i < n; i++) h.put(b("f" + i), b(i % 2 == 0 ? Integer.toString(i) : "v" + "y".repeat(size) + i), false, L);
        return h;
    }

    static SetValue set(int n, boolean ints) {
        SetValue s = null;
        for (int i = 0; i < n; i++) {
            byte[] m = ints ? b(Long.toString(i * 100_003L - 70_000 + (i == 5 ? 5_000_000_000L : 0))) : b("m" + i);
            if (s == null) s = SetValue.create(m, n, L);
            s.add(m, L);
        }
        return s;
    }

    static ZSetValue zset(int n) {
        ZSetValue z = ZSetValue.create(n, 5, L);
        for (int i = 0; i < n; i++) z.add(i % 4 == 0 ? i : i / 3.0 - 7, b("z" + i), 0, L, new double[1]);
        z.add(Double.POSITIVE_INFINITY, b("top"), 0, L, new double[1]);
        z.add(Double.NEGATIVE_INFINITY, b("bottom"), 0, L, new double[1]);
        return z;
    }

    static StreamValue stream(int n, boolean groups) {
        StreamValue s = new StreamValue();
        for (int i = 0; i < n; i++) {
            byte[][] argv = i % 5 == 4 ? new byte[][] {b("other"), b("v" + i), b("n"), b(Integer.toString(i))}
                    : new byte[][] {b("a"), b("x" + i), b("b"), b(Integer.toString(i * 1000))};
            s.add(new StreamId(1_700_000_000_000L + i / 3, 0), false, 0, argv, 0, 2, L.streamNodeMaxBytes, L.streamNodeMaxEntries);
        }
        if (n > 3) s.delete(new StreamId[] {new StreamId(1_700_000_000_000L, 1)});
        if (groups) {
            StreamGroup g = s.createGroup(b("g1"), StreamId.ZERO, 0);
            StreamGroup.Consumer c1 = s.createConsumer(g, b("alice"), 1_700_000_000_500L);
            StreamGroup.Consumer c2 = s.createConsumer(g, b("bob"), 1_700_000_000_600L);
            s.readGroup(g, c1, StreamId.ZERO, 3, false, 1_700_000_001_000L);
            s.readGroup(g, c2, g.lastId(), 2, false, 1_700_000_002_000L);
            s.createGroup(b("empty"), s.lastId(), s.entriesAdded());
            s.createConsumer(g, b("idle"), 1_700_000_003_000L);
        }
        return s;
    }

    /** A comparable text of a value's contents (TTL-free). */
    static String describe(Object v) {
        return switch (v) {
            case byte[] x -> "string:" + s(x);
            case Long x -> "string:" + x;
            case ListValue l -> {
                List<String> out = new ArrayList<>();
                for (byte[] e : l.range(0, (int) l.size(), false)) out.add(s(e));
                yield "list:" + out;
            }
            case HashValue h -> {
                TreeMap<String, String> m = new TreeMap<>();
                h.forEachWithExpiry((f, val, at) -> m.put(s(f), s(val) + (at != 0 ? "@" + at : "")));
                yield "hash:" + m;
            }
            case SetValue st -> {
                TreeSet<String> m = new TreeSet<>();
                st.forEach(x -> m.add(s(x)));
                yield "set:" + m;
            }
            case ZSetValue z -> {
                List<String> out = new ArrayList<>();
                z.forEach(false, (m, sc) -> out.add(s(m) + "=" + sc));
                yield "zset:" + out;
            }
            case StreamValue st -> {
                StringBuilder sb = new StringBuilder("stream:");
                for (StreamValue.Entry e : st.range(StreamId.ZERO, StreamId.MAX, 0, false)) {
                    sb.append(e.id()).append('{');
                    for (byte[] x : e.fieldsAndValues()) sb.append(s(x)).append(',');
                    sb.append('}');
                }
                sb.append(" len=").append(st.length()).append(" last=").append(st.lastId()).append(" first=").append(st.firstId())
                        .append(" maxdel=").append(st.maxDeletedId()).append(" added=").append(st.entriesAdded());
                for (StreamGroup g : st.groups()) {
                    sb.append(" group ").append(s(g.name())).append(' ').append(g.lastId()).append(" read=").append(g.entriesRead());
                    for (Map.Entry<StreamId, StreamGroup.Pending> p : g.pending().entrySet()) {
                        sb.append(" pel ").append(p.getKey()).append(' ').append(p.getValue().deliveryTime()).append(' ')
                                .append(p.getValue().deliveryCount()).append(' ').append(s(p.getValue().consumer().name()));
                    }
                    for (StreamGroup.Consumer c : g.consumers()) {
                        sb.append(" consumer ").append(s(c.name())).append(' ').append(c.seenTime()).append(' ').append(c.pending().keySet());
                    }
                }
                yield sb.toString();
            }
            default -> throw new IllegalArgumentException(v.getClass().getName());
        };
    }
}
