package io.tide.store;

import static io.tide.store.Varints.readUVarint;
import static io.tide.store.Varints.uvarintLength;
import static io.tide.store.Varints.writeUVarint;

import java.util.Arrays;

/**
 * Confined to the shard thread that owns its stream. One node of a {@link StreamValue}: a run of
 * consecutive entries packed into one byte array, the counterpart of a listpack in Redis's radix tree of
 * listpacks. The node starts with a master entry (the field names of its first entry); each entry then
 * stores a flags byte, its ID as deltas from the node's master ID, and either its values alone (when its
 * field names equal the master's) or its field count and field/value pairs. Deleted entries stay in place,
 * flagged, as in Redis; the node goes when its last live entry goes.
 *
 * <p>Layout: {@code [nfields][len field]...} for the master entry, then per entry
 * {@code [flags][ms delta][seq delta (zigzag)]([nfields])([len field])[len value]...}, every number an
 * unsigned LEB128 varint.
 *
 * <p>The node also tracks how many bytes Redis's listpack for the same entries would take
 * ({@link #listpackBytes()}), because Redis decides when a node is full by that size and
 * {@code stream-node-max-bytes}: keeping the same node boundaries keeps approximate trimming and
 * {@code XINFO STREAM}'s node counts identical to Redis's.
 */
final class StreamNode {

    static final int FLAG_DELETED = 1;
    static final int FLAG_SAME_FIELDS = 2;
    /** Estimated bytes of the node object itself. */
    static final long OVERHEAD = 56;

    /** The master ID: the ID of the first entry ever added to the node (Redis's radix tree key). */
    final long masterMs;
    final long masterSeq;
    byte[] buf;
    int used;
    /** Offset of the first entry, just past the master entry. */
    final int entriesStart;
    final int masterFields;
    int live;
    int deleted;
    /** Redis listpack bytes of this node except its live and deleted counters, which vary in size. */
    private long listpackBody;

    /** A node whose master entry holds the field names of {@code argv[from], argv[from+2], ...}. */
    StreamNode(long masterMs, long masterSeq, byte[][] argv, int from, int nfields, int extraCapacity) {
        this.masterMs = masterMs;
        this.masterSeq = masterSeq;
        this.masterFields = nfields;
        int size = uvarintLength(nfields);
        long lp = 7 + listpackIntSize(nfields) + listpackIntSize(0); // header, EOF, num-fields, terminator
        for (int i = 0; i < nfields; i++) {
            byte[] f = argv[from + 2 * i];
            size += uvarintLength(f.length) + f.length;
            lp += listpackStringSize(f);
        }
        this.buf = new byte[size + Math.max(0, extraCapacity)];
        int p = writeUVarint(buf, 0, nfields);
        for (int i = 0; i < nfields; i++) p = writeBytes(buf, p, argv[from + 2 * i]);
        this.used = p;
        this.entriesStart = p;
        this.listpackBody = lp;
    }

    private StreamNode(StreamNode o) {
        this.masterMs = o.masterMs;
        this.masterSeq = o.masterSeq;
        this.buf = Arrays.copyOf(o.buf, o.used);
        this.used = o.used;
        this.entriesStart = o.entriesStart;
        this.masterFields = o.masterFields;
        this.live = o.live;
        this.deleted = o.deleted;
        this.listpackBody = o.listpackBody;
    }

    StreamNode copy() {
        return new StreamNode(this);
    }

    long memoryBytes() {
        return OVERHEAD + MemoryCost.bytes(buf.length);
    }

    /** Bytes Redis's listpack would take for this node (lpBytes). */
    long listpackBytes() {
        return listpackBody + listpackIntSize(live) + listpackIntSize(deleted);
    }

    /** Entries in the node, deleted ones included. */
    int total() {
        return live + deleted;
    }

    /** Whether the field names {@code argv[from], argv[from+2], ...} equal the master entry's. */
    boolean sameFields(byte[][] argv, int from, int nfields) {
        if (nfields != masterFields) return false;
        int p = uvarintLength(masterFields);
        for (int i = 0; i < nfields; i++) {
            long len = readUVarint(buf, p);
            p += uvarintLength(len);
            byte[] f = argv[from + 2 * i];
            if (f.length != len || !Arrays.equals(buf, p, p + (int) len, f, 0, f.length)) return false;
            p += (int) len;
        }
        return true;
    }

    /** Appends an entry (its ID is above every ID in the node). Returns the change of {@link #memoryBytes()}. */
    long append(long ms, long seq, byte[][] argv, int from, int nfields) {
        boolean same = sameFields(argv, from, nfields);
        int flags = same ? FLAG_SAME_FIELDS : 0;
        long msDelta = ms - masterMs;
        long seqDelta = seq - masterSeq;
        long zz = (seqDelta << 1) ^ (seqDelta >> 63);
        int size = 1 + uvarintLength(msDelta) + uvarintLength(zz) + (same ? 0 : uvarintLength(nfields));
        long lp = listpackIntSize(flags) + listpackIntSize(msDelta) + listpackIntSize(seqDelta);
        if (!same) lp += listpackIntSize(nfields);
        for (int i = 0; i < nfields; i++) {
            byte[] v = argv[from + 2 * i + 1];
            size += uvarintLength(v.length) + v.length;
            lp += listpackStringSize(v);
            if (!same) {
                byte[] f = argv[from + 2 * i];
                size += uvarintLength(f.length) + f.length;
                lp += listpackStringSize(f);
            }
        }
        lp += listpackIntSize(nfields + 3 + (same ? 0 : nfields + 1)); // lp-count
        long before = memoryBytes();
        if (used + size > buf.length) {
            long want = Math.max((long) used + size, buf.length + (buf.length >> 1));
            buf = Arrays.copyOf(buf, (int) Math.min(want, Integer.MAX_VALUE - 8));
        }
        int p = used;
        buf[p++] = (byte) flags;
        p = writeUVarint(buf, p, msDelta);
        p = writeUVarint(buf, p, zz);
        if (!same) p = writeUVarint(buf, p, nfields);
        for (int i = 0; i < nfields; i++) {
            if (!same) p = writeBytes(buf, p, argv[from + 2 * i]);
            p = writeBytes(buf, p, argv[from + 2 * i + 1]);
        }
        used = p;
        live++;
        listpackBody += lp;
        return memoryBytes() - before;
    }

    /** Drops spare capacity (a node that will not grow any more). Returns the change of {@link #memoryBytes()}. */
    long trimToSize() {
        if (buf.length == used) return 0;
        long before = memoryBytes();
        buf = Arrays.copyOf(buf, used);
        return memoryBytes() - before;
    }

    /** Marks the entry at {@code off} deleted. */
    void markDeleted(int off) {
        buf[off] |= FLAG_DELETED;
        live--;
        deleted++;
    }

    /** The master entry's field names, fresh arrays. */
    byte[][] masterNames() {
        byte[][] out = new byte[masterFields][];
        int p = uvarintLength(masterFields);
        for (int i = 0; i < masterFields; i++) {
            long len = readUVarint(buf, p);
            p += uvarintLength(len);
            out[i] = Arrays.copyOfRange(buf, p, p + (int) len);
            p += (int) len;
        }
        return out;
    }

    /**
     * Decodes the header of the entry at {@code off} into {@code c} and returns the offset of the next
     * entry ({@link #used} after the last one).
     */
    int read(int off, Cursor c) {
        int p = off;
        int flags = buf[p++];
        long msDelta = readUVarint(buf, p);
        p += uvarintLength(msDelta);
        long zz = readUVarint(buf, p);
        p += uvarintLength(zz);
        long seqDelta = (zz >>> 1) ^ -(zz & 1);
        int nfields = masterFields;
        if ((flags & FLAG_SAME_FIELDS) == 0) {
            long n = readUVarint(buf, p);
            p += uvarintLength(n);
            nfields = (int) n;
        }
        c.offset = off;
        c.flags = flags;
        c.ms = masterMs + msDelta;
        c.seq = masterSeq + seqDelta;
        c.nfields = nfields;
        c.body = p;
        int strings = (flags & FLAG_SAME_FIELDS) != 0 ? nfields : 2 * nfields;
        for (int i = 0; i < strings; i++) {
            long len = readUVarint(buf, p);
            p += uvarintLength(len) + (int) len;
        }
        return p;
    }

    /** Field names and values of the entry {@code c} was last read at, as fresh arrays (names may be shared from {@code names}). */
    byte[][] fieldsAndValues(Cursor c, byte[][] names) {
        byte[][] out = new byte[2 * c.nfields][];
        boolean same = (c.flags & FLAG_SAME_FIELDS) != 0;
        int p = c.body;
        for (int i = 0; i < c.nfields; i++) {
            if (same) {
                out[2 * i] = names[i];
            } else {
                long len = readUVarint(buf, p);
                p += uvarintLength(len);
                out[2 * i] = Arrays.copyOfRange(buf, p, p + (int) len);
                p += (int) len;
            }
            long len = readUVarint(buf, p);
            p += uvarintLength(len);
            out[2 * i + 1] = Arrays.copyOfRange(buf, p, p + (int) len);
            p += (int) len;
        }
        return out;
    }

    /** Offsets of every entry in the node (deleted ones included), in order. */
    int[] offsets(Cursor scratch) {
        int[] out = new int[total()];
        int n = 0;
        for (int p = entriesStart; p < used; p = read(p, scratch)) out[n++] = p;
        return n == out.length ? out : Arrays.copyOf(out, n);
    }

    /** The ID of the last entry in the node, deleted or not (Redis's lpGetEdgeStreamID for the end). */
    StreamId lastId(Cursor scratch) {
        int last = -1;
        for (int p = entriesStart; p < used; p = read(p, scratch)) last = p;
        read(last, scratch);
        return new StreamId(scratch.ms, scratch.seq);
    }

    /** Decoding state for one entry. Confined to the thread using it. */
    static final class Cursor {
        int offset;
        int flags;
        long ms;
        long seq;
        int nfields;
        /** Offset of the entry's first field or value. */
        int body;

        boolean deleted() {
            return (flags & FLAG_DELETED) != 0;
        }

        int compareTo(long oms, long oseq) {
            int c = Long.compareUnsigned(ms, oms);
            return c != 0 ? c : Long.compareUnsigned(seq, oseq);
        }
    }

    private static int writeBytes(byte[] b, int p, byte[] s) {
        p = writeUVarint(b, p, s.length);
        System.arraycopy(s, 0, b, p, s.length);
        return p + s.length;
    }

    // ---------------------------------------------------------------- Redis listpack sizes

    /** Bytes of a listpack element holding integer {@code v}: encoding plus back-length. */
    static long listpackIntSize(long v) {
        int enc;
        if (v >= 0 && v <= 127) enc = 1;
        else if (v >= -4096 && v <= 4095) enc = 2;
        else if (v >= -32768 && v <= 32767) enc = 3;
        else if (v >= -8388608 && v <= 8388607) enc = 4;
        else if (v >= Integer.MIN_VALUE && v <= Integer.MAX_VALUE) enc = 5;
        else enc = 9;
        return enc + 1;
    }

    /** Bytes of a listpack element holding string {@code s} (stored as an integer when it reads as one). */
    static long listpackStringSize(byte[] s) {
        Long asInt = canonicalLong(s);
        if (asInt != null) return listpackIntSize(asInt);
        long len = s.length;
        long enc = len < 64 ? 1 + len : len < 4096 ? 2 + len : 5 + len;
        return enc + backlenSize(enc);
    }

    private static int backlenSize(long l) {
        if (l <= 127) return 1;
        if (l < 16383) return 2;
        if (l < 2097151) return 3;
        if (l < 268435455) return 4;
        return 5;
    }

    /** The value of {@code s} if it is the canonical text of a 64-bit integer (Redis's string2ll rules), else null. */
    static Long canonicalLong(byte[] s) {
        int n = s.length;
        if (n == 0 || n > 20) return null;
        if (n == 1 && s[0] == '0') return 0L;
        int i = 0;
        boolean neg = false;
        if (s[0] == '-') {
            if (n == 1) return null;
            neg = true;
            i = 1;
        }
        if (s[i] < '1' || s[i] > '9') return null;
        long acc = 0;
        for (; i < n; i++) {
            int d = s[i] - '0';
            if (d < 0 || d > 9) return null;
            if (acc < (Long.MIN_VALUE + d) / 10) return null;
            acc = acc * 10 - d;
        }
        if (neg) return acc;
        if (acc == Long.MIN_VALUE) return null;
        return -acc;
    }
}
