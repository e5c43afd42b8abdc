package io.tide.persistence.rdb;

import static io.tide.persistence.rdb.RdbVersion.*;

import io.tide.store.EncodingLimits;
import io.tide.store.HashValue;
import io.tide.store.ListValue;
import io.tide.store.SetValue;
import io.tide.store.SharedIntegers;
import io.tide.store.StreamGroup;
import io.tide.store.StreamId;
import io.tide.store.StreamValue;
import io.tide.store.ZSetValue;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Thread-safe (stateless). Reads one RDB value of a given type code into Tide's value classes, for every type
 * of RDB versions 1 to 12, the legacy encodings of old files included (zipmap, ziplists, linked lists,
 * quicklist 1, intset, streams v1 to v3). Each collection gets the encoding Redis would pick on load under the
 * given {@link EncodingLimits}: compact while within the thresholds, scalable beyond them.
 *
 * <p>Malformed data raises {@link RdbFormatException}: every count and length is checked against the input
 * left, duplicates (hash fields, set and sorted set members, stream IDs) are refused as Redis refuses them.
 * An empty collection (which Redis skips on load as an "empty key") reads as null.
 */
public final class RdbDecoder {

    private static final int FLAG_DELETED = 1;
    private static final int FLAG_SAME_FIELDS = 2;
    private static final String MODULE_CHARSET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

    private RdbDecoder() {}

    /**
     * The value of type {@code type} at the input's position: {@code byte[]} or {@link Long} for a string, a
     * collection value otherwise; null for an empty collection.
     */
    public static Object readValue(RdbInput in, int type, EncodingLimits limits) throws IOException {
        return switch (type) {
            case TYPE_STRING -> string(in.readStringValue());
            case TYPE_LIST -> list(readStrings(in), limits);
            case TYPE_LIST_ZIPLIST -> list(Ziplist.elements(in.readString()), limits);
            case TYPE_LIST_QUICKLIST, TYPE_LIST_QUICKLIST_2 -> quicklist(in, type == TYPE_LIST_QUICKLIST_2, limits);
            case TYPE_SET -> set(readStrings(in), limits);
            case TYPE_SET_INTSET -> intset(Ziplist.intset(in.readString()), limits);
            case TYPE_SET_LISTPACK -> set(listpackElements(in.readString()), limits);
            case TYPE_ZSET, TYPE_ZSET_2 -> zsetPlain(in, type == TYPE_ZSET_2, limits);
            case TYPE_ZSET_ZIPLIST -> zsetPairs(Ziplist.elements(in.readString()), limits);
            case TYPE_ZSET_LISTPACK -> zsetPairs(listpackElements(in.readString()), limits);
            case TYPE_HASH -> hash(readStrings(in, 2), null, limits);
            case TYPE_HASH_ZIPMAP -> hash(Ziplist.zipmap(in.readString()), null, limits);
            case TYPE_HASH_ZIPLIST -> hash(Ziplist.elements(in.readString()), null, limits);
            case TYPE_HASH_LISTPACK -> hash(listpackElements(in.readString()), null, limits);
            case TYPE_HASH_METADATA, TYPE_HASH_METADATA_PRE_GA -> hashMetadata(in, type == TYPE_HASH_METADATA, limits);
            case TYPE_HASH_LISTPACK_EX, TYPE_HASH_LISTPACK_EX_PRE_GA -> hashListpackEx(in, type == TYPE_HASH_LISTPACK_EX, limits);
            case TYPE_STREAM_LISTPACKS, TYPE_STREAM_LISTPACKS_2, TYPE_STREAM_LISTPACKS_3 -> stream(in, type, limits);
            case TYPE_MODULE_2 -> {
                long id = in.readLength();
                throw new RdbFormatException("cannot load a value of module '" + moduleName(id) + "' (RDB type 7): Tide has no modules");
            }
            case TYPE_MODULE_PRE_GA -> throw new RdbFormatException("cannot load a module value of the pre-GA format (RDB type 6)");
            default -> throw new RdbFormatException("unknown RDB value type " + type + " at offset " + (in.position() - 1) + " in " + in.name());
        };
    }

    /** The module name a 64-bit module type id encodes (9 characters of 6 bits, then 10 bits of encoding version). */
    static String moduleName(long id) {
        StringBuilder b = new StringBuilder(9);
        for (int i = 0; i < 9; i++) b.append(MODULE_CHARSET.charAt((int) ((id >>> (64 - 6 * (i + 1))) & 63)));
        return b.toString();
    }

    /** A string value as the keyspace holds it: a {@link Long} when canonical integer text, else the bytes. */
    static Object string(Object v) {
        if (v instanceof Long l) return SharedIntegers.valueOf(l);
        byte[] b = (byte[]) v;
        Long l = Listpack.canonicalInteger(b);
        return l != null ? SharedIntegers.valueOf(l) : b;
    }

    private static List<byte[]> readStrings(RdbInput in) throws IOException {
        return readStrings(in, 1);
    }

    /** A count (of groups of {@code per} strings) and those strings. */
    private static List<byte[]> readStrings(RdbInput in, int per) throws IOException {
        int n = in.readCount();
        List<byte[]> out = new ArrayList<>(Math.min(n * per, 1 << 16));
        for (long i = 0; i < (long) n * per; i++) out.add(in.readString());
        return out;
    }

    private static List<byte[]> listpackElements(byte[] blob) {
        Listpack.Reader r = new Listpack.Reader(blob);
        List<byte[]> out = new ArrayList<>();
        while (r.hasNext()) out.add(r.nextBytes());
        return out;
    }

    // ---------------------------------------------------------------- lists

    private static ListValue list(List<byte[]> elements, EncodingLimits limits) {
        if (elements.isEmpty()) return null;
        ListValue l = new ListValue();
        appendAll(l, elements, limits);
        return l;
    }

    private static void appendAll(ListValue l, List<byte[]> elements, EncodingLimits limits) {
        for (byte[] e : elements) {
            l.beforeAdding(limits, e.length, 1);
            l.push(e, false);
        }
    }

    private static ListValue quicklist(RdbInput in, boolean v2, EncodingLimits limits) throws IOException {
        int nodes = in.readCount();
        ListValue l = new ListValue();
        for (int i = 0; i < nodes; i++) {
            int container = QUICKLIST_NODE_PACKED;
            if (v2) {
                long c = in.readLength();
                if (c != QUICKLIST_NODE_PACKED && c != QUICKLIST_NODE_PLAIN) throw new RdbFormatException("quicklist node with unknown container " + c);
                container = (int) c;
            }
            byte[] blob = in.readString();
            if (container == QUICKLIST_NODE_PLAIN) {
                appendAll(l, List.of(blob), limits);
                continue;
            }
            List<byte[]> elements = v2 ? listpackElements(blob) : Ziplist.elements(blob);
            // An empty node is skipped, as Redis skips it.
            appendAll(l, elements, limits);
        }
        return l.size() == 0 ? null : l;
    }

    // ---------------------------------------------------------------- sets

    private static SetValue set(List<byte[]> members, EncodingLimits limits) {
        if (members.isEmpty()) return null;
        SetValue s = SetValue.create(members.get(0), members.size(), limits);
        for (byte[] m : members) {
            if (!s.add(m, limits)) throw new RdbFormatException("duplicate set member detected");
        }
        return s;
    }

    private static SetValue intset(long[] members, EncodingLimits limits) {
        if (members.length == 0) return null;
        SetValue s = members.length <= limits.setMaxIntsetEntries ? SetValue.newIntset() : SetValue.newHashtable(members.length);
        for (long v : members) s.add(Long.toString(v).getBytes(StandardCharsets.US_ASCII), limits);
        return s;
    }

    // ---------------------------------------------------------------- sorted sets

    private static ZSetValue zsetPlain(RdbInput in, boolean binary, EncodingLimits limits) throws IOException {
        int n = in.readCount();
        byte[][] members = new byte[Math.min(n, 1 << 16)][];
        double[] scores = new double[members.length];
        int k = 0;
        for (int i = 0; i < n; i++) {
            byte[] m = in.readString();
            double d = binary ? in.readBinaryDouble() : in.readAsciiDouble();
            if (k == members.length) {
                members = Arrays.copyOf(members, k * 2);
                scores = Arrays.copyOf(scores, k * 2);
            }
            members[k] = m;
            scores[k++] = d;
        }
        return zset(members, scores, k, limits);
    }

    private static ZSetValue zsetPairs(List<byte[]> elements, EncodingLimits limits) {
        if (elements.size() % 2 != 0) throw new RdbFormatException("sorted set listpack with an odd number of elements");
        int n = elements.size() / 2;
        byte[][] members = new byte[n][];
        double[] scores = new double[n];
        for (int i = 0; i < n; i++) {
            members[i] = elements.get(2 * i);
            scores[i] = RdbInput.parseDouble(new String(elements.get(2 * i + 1), StandardCharsets.ISO_8859_1));
        }
        return zset(members, scores, n, limits);
    }

    private static ZSetValue zset(byte[][] members, double[] scores, int n, EncodingLimits limits) {
        if (n == 0) return null;
        Integer[] order = new Integer[n];
        for (int i = 0; i < n; i++) {
            if (Double.isNaN(scores[i])) throw new RdbFormatException("sorted set score is NaN");
            order[i] = i;
        }
        Arrays.sort(order, (a, b) -> {
            int c = Double.compare(scores[a] == 0 ? 0.0 : scores[a], scores[b] == 0 ? 0.0 : scores[b]);
            return c != 0 ? c : Arrays.compareUnsigned(members[a], members[b]);
        });
        byte[][] m = new byte[n][];
        double[] s = new double[n];
        Set<java.nio.ByteBuffer> seen = new HashSet<>();
        for (int i = 0; i < n; i++) {
            m[i] = members[order[i]];
            s[i] = scores[order[i]];
            if (!seen.add(java.nio.ByteBuffer.wrap(m[i]))) throw new RdbFormatException("duplicate sorted set members detected");
        }
        return ZSetValue.fromSorted(m, s, n, limits);
    }

    // ---------------------------------------------------------------- hashes

    /** Fields and values alternating; {@code ttls} (unix ms, 0 = none) per field or null. */
    private static HashValue hash(List<byte[]> fv, long[] ttls, EncodingLimits limits) {
        if (fv.size() % 2 != 0) throw new RdbFormatException("hash with an odd number of fields and values");
        if (fv.isEmpty()) return null;
        HashValue h = new HashValue();
        for (int i = 0; i < fv.size(); i += 2) {
            if (!h.put(fv.get(i), fv.get(i + 1), false, limits)) throw new RdbFormatException("duplicate hash fields detected");
        }
        if (ttls != null) {
            for (int i = 0; i < ttls.length; i++) {
                if (ttls[i] != 0) h.setExpire(fv.get(2 * i), ttls[i], 0, Long.MIN_VALUE);
            }
        }
        return h;
    }

    private static HashValue hashMetadata(RdbInput in, boolean ga, EncodingLimits limits) throws IOException {
        long min = ga ? in.readMillis() : 0;
        int n = in.readCount();
        List<byte[]> fv = new ArrayList<>(Math.min(2 * n, 1 << 16));
        long[] ttls = new long[Math.min(n, 1 << 16)];
        for (int i = 0; i < n; i++) {
            long ttl = in.readLength();
            if (ga && ttl != 0) ttl = ttl + min - 1;
            if (i == ttls.length) ttls = Arrays.copyOf(ttls, i * 2);
            ttls[i] = ttl;
            fv.add(in.readString());
            fv.add(in.readString());
        }
        return hash(fv, Arrays.copyOf(ttls, n), limits);
    }

    private static HashValue hashListpackEx(RdbInput in, boolean ga, EncodingLimits limits) throws IOException {
        if (ga) in.readMillis();
        Listpack.Reader r = new Listpack.Reader(in.readString());
        List<byte[]> fv = new ArrayList<>();
        long[] ttls = new long[16];
        int n = 0;
        while (r.hasNext()) {
            fv.add(r.nextBytes());
            if (!r.hasNext()) throw new RdbFormatException("hash listpack with a field without value");
            fv.add(r.nextBytes());
            if (!r.hasNext()) throw new RdbFormatException("hash listpack with a field without TTL");
            if (n == ttls.length) ttls = Arrays.copyOf(ttls, n * 2);
            ttls[n++] = r.nextLong();
        }
        return hash(fv, Arrays.copyOf(ttls, n), limits);
    }

    // ---------------------------------------------------------------- streams

    private static StreamId id(long ms, long seq) {
        return new StreamId(ms, seq);
    }

    private static StreamValue stream(RdbInput in, int type, EncodingLimits limits) throws IOException {
        StreamValue s = new StreamValue();
        int nodes = in.readCount();
        StreamId prevMaster = null;
        for (int i = 0; i < nodes; i++) {
            byte[] key = in.readString();
            if (key.length != 16) throw new RdbFormatException("stream node key is not a 128-bit ID");
            StreamId master = id(be(key, 0), be(key, 8));
            if (prevMaster != null && master.compareTo(prevMaster) <= 0) throw new RdbFormatException("stream node keys out of order");
            prevMaster = master;
            byte[] blob = in.readString();
            readStreamNode(s, master, new Listpack.Reader(blob), limits);
        }
        long length = in.readLength();
        StreamId last = id(in.readLength(), in.readLength());
        long entriesAdded = s.length();
        StreamId maxDeleted = StreamId.ZERO;
        if (type >= TYPE_STREAM_LISTPACKS_2) {
            in.readLength(); // first ID: recomputed from the entries
            in.readLength();
            maxDeleted = id(in.readLength(), in.readLength());
            entriesAdded = in.readLength();
        }
        if (length != s.length()) throw new RdbFormatException("stream length " + length + " does not match its " + s.length() + " entries");
        if (s.length() > 0 && s.lastId().compareTo(last) > 0) throw new RdbFormatException("stream last ID is below its last entry");
        s.setId(last, entriesAdded, maxDeleted);
        int groups = in.readCount();
        for (int g = 0; g < groups; g++) {
            byte[] name = in.readString();
            StreamId gid = id(in.readLength(), in.readLength());
            long entriesRead = type >= TYPE_STREAM_LISTPACKS_2 ? in.readLength() : s.estimateDistance(gid);
            StreamGroup group = s.createGroup(name, gid, entriesRead);
            if (group == null) throw new RdbFormatException("duplicated consumer group name in stream");
            int pel = in.readCount();
            for (int p = 0; p < pel; p++) {
                long[] raw = in.readStreamIdRaw();
                long delivery = in.readMillis();
                long count = in.readLength();
                if (!s.addPending(group, id(raw[0], raw[1]), delivery, count)) throw new RdbFormatException("duplicated global PEL entry in stream");
            }
            int consumers = in.readCount();
            for (int c = 0; c < consumers; c++) {
                byte[] cname = in.readString();
                long seen = in.readMillis();
                if (type == TYPE_STREAM_LISTPACKS_3) in.readMillis(); // active time: Tide keeps only the seen time
                StreamGroup.Consumer consumer = s.createConsumer(group, cname, seen);
                if (consumer == null) throw new RdbFormatException("duplicate stream consumer detected");
                int cpel = in.readCount();
                for (int p = 0; p < cpel; p++) {
                    long[] raw = in.readStreamIdRaw();
                    if (!s.assignPending(group, consumer, id(raw[0], raw[1]))) {
                        throw new RdbFormatException("consumer PEL entry not found in the group's PEL");
                    }
                }
            }
        }
        return s;
    }

    private static long be(byte[] b, int p) {
        long v = 0;
        for (int i = 0; i < 8; i++) v = (v << 8) | (b[p + i] & 0xFF);
        return v;
    }

    /** Adds the live entries of one Redis stream listpack (master entry, then entries) to {@code s}. */
    private static void readStreamNode(StreamValue s, StreamId master, Listpack.Reader r, EncodingLimits limits) {
        if (!r.hasNext()) throw new RdbFormatException("empty listpack inside stream");
        long count = r.nextLong();
        long deleted = r.nextLong();
        long nfields = r.nextLong();
        if (count < 0 || deleted < 0 || nfields < 0 || nfields > Integer.MAX_VALUE / 2) throw new RdbFormatException("bad stream master entry");
        byte[][] names = new byte[(int) Math.min(nfields, 1 << 16)][];
        for (int i = 0; i < nfields; i++) {
            if (i == names.length) names = Arrays.copyOf(names, i * 2);
            names[i] = r.nextBytes();
        }
        names = Arrays.copyOf(names, (int) nfields);
        if (r.nextLong() != 0) throw new RdbFormatException("bad stream master entry terminator");
        long live = 0;
        long dead = 0;
        while (r.hasNext()) {
            int flags = (int) r.nextLong();
            long ms = master.ms() + r.nextLong();
            long seq = master.seq() + r.nextLong();
            boolean same = (flags & FLAG_SAME_FIELDS) != 0;
            int n = same ? names.length : (int) checkedCount(r.nextLong());
            byte[][] fv = new byte[2 * n][];
            for (int i = 0; i < n; i++) {
                fv[2 * i] = same ? names[i] : r.nextBytes();
                fv[2 * i + 1] = r.nextBytes();
            }
            long lpCount = r.nextLong();
            if (lpCount != (same ? n + 3L : 2L * n + 4)) throw new RdbFormatException("bad stream entry element count");
            if ((flags & FLAG_DELETED) != 0) {
                dead++;
                continue;
            }
            live++;
            if (n == 0) throw new RdbFormatException("stream entry without fields");
            StreamId id = id(ms, seq);
            if (s.length() > 0 && id.compareTo(s.lastId()) <= 0) throw new RdbFormatException("stream entry IDs out of order");
            if (s.add(id, true, 0, fv, 0, n, limits.streamNodeMaxBytes, limits.streamNodeMaxEntries) == null) {
                throw new RdbFormatException("invalid stream entry ID " + id);
            }
        }
        if (live != count || dead != deleted) throw new RdbFormatException("stream node counts do not match its entries");
    }

    private static long checkedCount(long n) {
        if (n <= 0 || n > Integer.MAX_VALUE / 4) throw new RdbFormatException("bad stream entry field count");
        return n;
    }
}
