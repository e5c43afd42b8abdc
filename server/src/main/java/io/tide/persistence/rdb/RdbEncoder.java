package io.tide.persistence.rdb;

import static io.tide.persistence.rdb.RdbVersion.*;

import io.tide.store.HashValue;
import io.tide.store.ListValue;
import io.tide.store.RawString;
import io.tide.store.SetValue;
import io.tide.store.StreamGroup;
import io.tide.store.StreamId;
import io.tide.store.StreamValue;
import io.tide.store.ZSetValue;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;

/**
 * Thread-safe (stateless). Serializes keyspace values in Redis's RDB format, choosing the oldest encoding the
 * target version holds, as Redis 7.0 writes RDB 10: strings with integer encodings (and LZF when the output
 * compresses), lists as quicklist 2 (a listpack-encoded list as one node), hashes as listpack or plain hash,
 * sets as intset, plain set or (from version 11) listpack, sorted sets as listpack or ZSET_2, streams as
 * STREAM_LISTPACKS_2 with their consumer groups, PELs and consumers. A hash with field TTLs needs version 12
 * ({@link #needsVersion12}) and is written as HASH_LISTPACK_EX or HASH_METADATA.
 */
public final class RdbEncoder {

    private static final int FLAG_SAME_FIELDS = 2;

    private RdbEncoder() {}

    /** Whether {@code value} can only be written at RDB version 12 (a hash with field TTLs). */
    public static boolean needsVersion12(Object value) {
        return value instanceof HashValue h && h.hasFieldTtls();
    }

    /** Writes the type byte and the payload of {@code value}; returns the type code. */
    public static int writeValue(RdbOutput out, Object value, int rdbVersion) {
        int type = typeOf(value, rdbVersion);
        out.writeByte(type);
        writePayload(out, value, type);
        return type;
    }

    /**
     * Writes one keyspace entry: {@code EXPIRETIME_MS} when {@code expireAtMs > 0}, then the type byte, the key
     * and the value.
     */
    public static void writeEntry(RdbOutput out, byte[] key, Object value, long expireAtMs, int version) {
        writeEntry(out, key, 0, key.length, java.util.Objects.requireNonNull(value), 0, 0, expireAtMs, version);
    }

    /**
     * {@link #writeEntry(RdbOutput, byte[], Object, long, int)} of a key that lies in {@code b} at {@code [keyOff,
     * keyOff + keyLen)}, its value {@code value}, or when that is null the string at {@code [valueOff, valueOff +
     * valueLen)} of {@code b}: a snapshot's entries read where the database keeps them.
     */
    public static void writeEntry(RdbOutput out, byte[] b, int keyOff, int keyLen, Object value, int valueOff,
                                  int valueLen, long expireAtMs, int version) {
        if (expireAtMs > 0) {
            out.writeByte(OPCODE_EXPIRETIME_MS);
            out.writeMillis(expireAtMs);
        }
        int type = value == null ? TYPE_STRING : typeOf(value, version);
        out.writeByte(type);
        out.writeString(b, keyOff, keyLen);
        if (value == null) out.writeString(b, valueOff, valueLen);
        else writePayload(out, value, type);
    }

    /** The type code {@code value} is written with at {@code version}. */
    public static int typeOf(Object value, int version) {
        if (version < WRITE || version > MAX_READ) throw new IllegalArgumentException("Tide writes RDB versions 10..12, not " + version);
        return switch (value) {
            case byte[] b -> TYPE_STRING;
            case Long l -> TYPE_STRING;
            case RawString r -> TYPE_STRING;
            case ListValue l -> TYPE_LIST_QUICKLIST_2;
            case HashValue h -> {
                if (h.hasFieldTtls()) {
                    if (version < 12) throw new IllegalArgumentException("a hash with field TTLs needs RDB version 12");
                    yield h.isCompact() ? TYPE_HASH_LISTPACK_EX : TYPE_HASH_METADATA;
                }
                yield h.isCompact() ? TYPE_HASH_LISTPACK : TYPE_HASH;
            }
            case SetValue s -> s.isIntset() ? TYPE_SET_INTSET : s.isListpack() && version >= 11 ? TYPE_SET_LISTPACK : TYPE_SET;
            case ZSetValue z -> z.isListpack() ? TYPE_ZSET_LISTPACK : TYPE_ZSET_2;
            case StreamValue s -> TYPE_STREAM_LISTPACKS_2;
            default -> throw new IllegalArgumentException("no RDB encoding for " + value.getClass().getName());
        };
    }

    private static void writePayload(RdbOutput out, Object value, int type) {
        switch (type) {
            case TYPE_STRING -> {
                if (value instanceof Long l) out.writeIntegerString(l);
                else if (value instanceof RawString r) out.writeString(r.bytes());
                else out.writeString((byte[]) value);
            }
            case TYPE_LIST_QUICKLIST_2 -> writeList(out, (ListValue) value);
            case TYPE_HASH, TYPE_HASH_LISTPACK, TYPE_HASH_METADATA, TYPE_HASH_LISTPACK_EX -> writeHash(out, (HashValue) value, type);
            case TYPE_SET_INTSET -> writeIntset(out, (SetValue) value);
            case TYPE_SET_LISTPACK -> {
                Listpack.Builder lp = new Listpack.Builder();
                ((SetValue) value).forEach(lp::add);
                out.writeString(lp.build());
            }
            case TYPE_SET -> {
                SetValue s = (SetValue) value;
                out.writeLength(s.size());
                s.forEach(out::writeString);
            }
            case TYPE_ZSET_LISTPACK -> {
                Listpack.Builder lp = new Listpack.Builder();
                ((ZSetValue) value).forEach(false, (m, score) -> {
                    lp.add(m);
                    addScore(lp, score);
                    return true;
                });
                out.writeString(lp.build());
            }
            case TYPE_ZSET_2 -> {
                ZSetValue z = (ZSetValue) value;
                out.writeLength(z.size());
                // Highest score first, as Redis writes it (so that loading inserts at the head).
                z.forEach(true, (m, score) -> {
                    out.writeString(m);
                    out.writeBinaryDouble(score);
                    return true;
                });
            }
            case TYPE_STREAM_LISTPACKS_2 -> writeStream(out, (StreamValue) value, false);
            default -> throw new IllegalStateException("type " + type);
        }
    }

    private static void writeList(RdbOutput out, ListValue l) {
        out.writeLength(l.nodeCount());
        l.forEachNode(new ListValue.NodeVisitor() {
            @Override
            public void packed(byte[] entries, int from, int to, int count) {
                out.writeLength(QUICKLIST_NODE_PACKED);
                out.writeString(new Listpack.Builder().addEntries(entries, from, to, count).build());
            }

            @Override
            public void plain(byte[] element) {
                out.writeLength(QUICKLIST_NODE_PLAIN);
                out.writeString(element);
            }
        });
    }

    private static void writeHash(RdbOutput out, HashValue h, int type) {
        switch (type) {
            case TYPE_HASH_LISTPACK -> {
                Listpack.Builder lp = new Listpack.Builder();
                h.forEach((f, v) -> {
                    lp.add(f);
                    lp.add(v);
                });
                out.writeString(lp.build());
            }
            case TYPE_HASH -> {
                out.writeLength(h.size());
                h.forEach((f, v) -> {
                    out.writeString(f);
                    out.writeString(v);
                });
            }
            case TYPE_HASH_LISTPACK_EX -> {
                out.writeMillis(minFieldExpiry(h));
                Listpack.Builder lp = new Listpack.Builder();
                h.forEachWithExpiry((f, v, at) -> {
                    lp.add(f);
                    lp.add(v);
                    lp.add(at);
                });
                out.writeString(lp.build());
            }
            default -> { // TYPE_HASH_METADATA
                long min = minFieldExpiry(h);
                out.writeMillis(min);
                out.writeLength(h.size());
                h.forEachWithExpiry((f, v, at) -> {
                    out.writeLength(at == 0 ? 0 : at - min + 1);
                    out.writeString(f);
                    out.writeString(v);
                });
            }
        }
    }

    private static long minFieldExpiry(HashValue h) {
        long[] min = {Long.MAX_VALUE};
        h.forEachWithExpiry((f, v, at) -> {
            if (at != 0 && at < min[0]) min[0] = at;
        });
        return min[0];
    }

    private static void writeIntset(RdbOutput out, SetValue s) {
        long[] v = new long[s.size()];
        int[] n = {0};
        s.forEach(m -> v[n[0]++] = Long.parseLong(new String(m, StandardCharsets.US_ASCII)));
        Arrays.sort(v);
        int width = 2;
        for (long x : v) {
            if (x != (short) x) width = Math.max(width, x == (int) x ? 4 : 8);
        }
        byte[] blob = new byte[8 + width * v.length];
        putLe(blob, 0, width, 4);
        putLe(blob, 4, v.length, 4);
        for (int i = 0; i < v.length; i++) putLe(blob, 8 + i * width, v[i], width);
        out.writeString(blob);
    }

    private static void putLe(byte[] b, int p, long v, int n) {
        for (int i = 0; i < n; i++) b[p + i] = (byte) (v >>> (8 * i));
    }

    /** A score as Redis's listpack holds it: an integer when integral, else its shortest exact text. */
    static void addScore(Listpack.Builder lp, double score) {
        if (score == Math.rint(score) && Math.abs(score) < 9.2e18 && !(score == 0 && 1 / score < 0)) {
            lp.add((long) score);
        } else {
            lp.add(scoreText(score));
        }
    }

    static byte[] scoreText(double d) {
        String s;
        if (d == Double.POSITIVE_INFINITY) s = "inf";
        else if (d == Double.NEGATIVE_INFINITY) s = "-inf";
        else if (d == 0) s = 1 / d < 0 ? "-0" : "0";
        else s = Double.toString(d);
        return s.getBytes(StandardCharsets.US_ASCII);
    }

    // ---------------------------------------------------------------- streams

    private static byte[] streamKey(StreamId id) {
        byte[] k = new byte[16];
        for (int i = 0; i < 8; i++) {
            k[i] = (byte) (id.ms() >>> (56 - 8 * i));
            k[8 + i] = (byte) (id.seq() >>> (56 - 8 * i));
        }
        return k;
    }

    private static void writeStream(RdbOutput out, StreamValue s, boolean v3) {
        out.writeLength(s.nodeCount());
        s.forEachNode((master, names, entries) -> {
            out.writeString(streamKey(master));
            Listpack.Builder lp = new Listpack.Builder();
            lp.add(entries.size());
            lp.add(0); // deleted
            lp.add(names.length);
            for (byte[] f : names) lp.add(f);
            lp.add(0); // master terminator
            for (StreamValue.Entry e : entries) {
                byte[][] fv = e.fieldsAndValues();
                int n = fv.length / 2;
                boolean same = n == names.length;
                for (int i = 0; same && i < n; i++) same = Arrays.equals(fv[2 * i], names[i]);
                lp.add(same ? FLAG_SAME_FIELDS : 0);
                lp.add(e.id().ms() - master.ms());
                lp.add(e.id().seq() - master.seq());
                if (same) {
                    for (int i = 0; i < n; i++) lp.add(fv[2 * i + 1]);
                    lp.add(n + 3);
                } else {
                    lp.add(n);
                    for (byte[] x : fv) lp.add(x);
                    lp.add(2L * n + 4);
                }
            }
            out.writeString(lp.build());
        });
        out.writeLength(s.length());
        out.writeLength(s.lastId().ms());
        out.writeLength(s.lastId().seq());
        out.writeLength(s.firstId().ms());
        out.writeLength(s.firstId().seq());
        out.writeLength(s.maxDeletedId().ms());
        out.writeLength(s.maxDeletedId().seq());
        out.writeLength(s.entriesAdded());
        out.writeLength(s.groupCount());
        for (StreamGroup g : s.groups()) {
            out.writeString(g.name());
            out.writeLength(g.lastId().ms());
            out.writeLength(g.lastId().seq());
            out.writeLength(g.entriesRead());
            out.writeLength(g.pendingCount());
            for (Map.Entry<StreamId, StreamGroup.Pending> p : g.pending().entrySet()) {
                out.writeStreamIdRaw(p.getKey().ms(), p.getKey().seq());
                out.writeMillis(p.getValue().deliveryTime());
                out.writeLength(p.getValue().deliveryCount());
            }
            out.writeLength(g.consumerCount());
            for (StreamGroup.Consumer c : g.consumers()) {
                out.writeString(c.name());
                out.writeMillis(c.seenTime());
                if (v3) out.writeMillis(c.seenTime());
                out.writeLength(c.pendingCount());
                for (StreamId id : c.pending().keySet()) out.writeStreamIdRaw(id.ms(), id.seq());
            }
        }
    }

    /** {@code SELECTDB db}: the entries that follow belong to database {@code db}. */
    public static void writeSelectDb(RdbOutput out, int db) {
        out.writeByte(OPCODE_SELECTDB);
        out.writeLength(db);
    }

    /** {@code RESIZEDB}: a sizing hint for the database selected last (keys, and keys with an expiry). */
    public static void writeResizeDb(RdbOutput out, long dbSize, long expiresSize) {
        out.writeByte(OPCODE_RESIZEDB);
        out.writeLength(dbSize);
        out.writeLength(expiresSize);
    }
}
