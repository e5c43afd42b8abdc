package io.tide.store;

import io.tide.util.Lzf;
import java.util.Arrays;

/**
 * Confined to the shard thread that owns its list. A run of consecutive list elements packed in one byte array
 * in the {@link ListPack} format: the node of a quicklist-encoded {@link ListValue}, or, as the list itself,
 * the whole of a listpack-encoded one.
 *
 * <p>The entries occupy {@code buf[start, end)}; free space may lie before and after them, so that pushes at
 * either end are amortized O(1), and moves to whichever side a node grows on. A "plain" node holds a single
 * element too large for a packed node (Redis's PLAIN container); it is stored in the same format.
 *
 * <p>A node inside a list's {@code list-compress-depth} is kept <i>compressed</i>, as Redis's quicklist keeps it:
 * {@code buf} then holds exactly the LZF compression of the node's image (for a packed node the listpack Redis
 * would hold, with its 6-byte header and end byte; for a plain node its entry), {@code start} is 0 and {@code end}
 * the image's length. Such a node is read through {@link #readable} and decompressed ({@link #decompress}) before
 * it is changed; {@link ListValue} decides when to compress.
 */
class ListNode {

    /** Estimated heap bytes of a node object (header, three references, three ints, three flags). */
    static final long OBJECT_BYTES = 40;

    /** Redis's MIN_COMPRESS_BYTES: a smaller node is never compressed. */
    static final int MIN_COMPRESS_BYTES = 48;
    /** Redis's MIN_COMPRESS_IMPROVE: compression must save more than this many bytes, or the node stays raw. */
    static final int MIN_COMPRESS_IMPROVE = 8;
    /** Bytes of a listpack's header (total bytes, element count) before the first entry. */
    private static final int LISTPACK_HEADER = 6;
    private static final ThreadLocal<Scratch> SCRATCH = ThreadLocal.withInitial(Scratch::new);

    static final byte[] EMPTY = new byte[0];

    /** Sparest layout worth keeping: below a quarter of the capacity in use, the array shrinks. */
    private static final int MIN_SHRINK_CAPACITY = 64;

    ListNode prev;
    ListNode next;
    byte[] buf;
    int start;
    int end;
    int count;
    boolean plain;
    /** {@code buf} holds the LZF-compressed image (see the class comment). */
    boolean compressed;
    /** Set by {@link ListValue} only while it settles compression: the node lies within the depth of an end. */
    boolean nearEnd;

    ListNode() {}

    ListNode(byte[] buf, int start, int end, int count) {
        this.buf = buf;
        this.start = start;
        this.end = end;
        this.count = count;
    }

    /** Bytes Redis counts for this node: the listpack's bytes, or the element's length for a plain node. */
    final long redisBytes() {
        if (compressed) return plain ? plainElementLength(end) : end;
        return plain ? ListPack.elementLength(buf, start) : ListPack.OVERHEAD + end - start;
    }

    /**
     * Length of the element of a plain node from the size of its entry: a plain element is a string longer than
     * 4095 bytes, so the entry is a 5-byte header, the bytes and a back length.
     */
    private static long plainElementLength(int entryBytes) {
        for (int bl = 1; bl <= 5; bl++) {
            int l = entryBytes - bl;
            if (ListPack.backLength(l) == bl) return l - 5;
        }
        throw new IllegalStateException("plain entry of " + entryBytes + " bytes");
    }

    // ---------------------------------------------------------------- compression

    /**
     * Redis's __quicklistCompressNode on a raw node: compresses it when its image has at least
     * {@link #MIN_COMPRESS_BYTES} and LZF saves more than {@link #MIN_COMPRESS_IMPROVE} bytes; false when it stays raw.
     */
    final boolean compress() {
        if (compressed || redisBytes() < MIN_COMPRESS_BYTES) return false;
        Scratch s = SCRATCH.get();
        byte[] image;
        int from;
        int len;
        if (plain) {
            image = buf;
            from = start;
            len = end - start;
        } else {
            len = end - start + ListPack.OVERHEAD;
            image = s.image(len);
            from = 0;
            image[0] = (byte) len;
            image[1] = (byte) (len >>> 8);
            image[2] = (byte) (len >>> 16);
            image[3] = (byte) (len >>> 24);
            int n = Math.min(count, 65535); // 65535: "count unknown", as a listpack says for larger counts
            image[4] = (byte) n;
            image[5] = (byte) (n >>> 8);
            System.arraycopy(buf, start, image, LISTPACK_HEADER, end - start);
            image[len - 1] = (byte) 0xFF;
        }
        int max = len - MIN_COMPRESS_IMPROVE - 1;
        if (max <= 0) return false;
        byte[] out = s.out(max);
        int c = s.lzf.compress(image, from, len, out, max);
        if (c == 0) return false;
        buf = Arrays.copyOf(out, c);
        start = 0;
        end = len;
        compressed = true;
        return true;
    }

    /** Makes a compressed node raw again (its array then has the image's slack: the header and end byte). */
    final void decompress() {
        byte[] image = Lzf.decompress(buf, 0, buf.length, end);
        if (image == null) throw new IllegalStateException("corrupt compressed list node");
        buf = image;
        compressed = false;
        if (plain) {
            start = 0;
            end = image.length;
        } else {
            start = LISTPACK_HEADER;
            end = image.length - 1;
        }
    }

    /**
     * This node, or for a compressed node a decompressed copy with the same neighbours, for reading: its entries
     * sit at the byte positions the node will have once decompressed.
     */
    final ListNode readable() {
        if (!compressed) return this;
        ListNode v = new ListNode(buf, start, end, count);
        v.plain = plain;
        v.compressed = true;
        v.prev = prev;
        v.next = next;
        v.decompress();
        return v;
    }

    /** Confined to one thread (one per thread). Reused buffers and compressor for compressing nodes. */
    private static final class Scratch {
        final Lzf.Compressor lzf = new Lzf.Compressor();
        private byte[] image = EMPTY;
        private byte[] out = EMPTY;

        /** Buffers up to this size are kept for the next node; a larger one (a huge plain node) is not. */
        private static final int KEEP = 1 << 17;

        byte[] image(int n) {
            if (n > KEEP) return new byte[n];
            if (image.length < n) image = new byte[Math.min(KEEP, Math.max(n, 2 * image.length))];
            return image;
        }

        byte[] out(int n) {
            if (n > KEEP) return new byte[n];
            if (out.length < n) out = new byte[Math.min(KEEP, Math.max(n, 2 * out.length))];
            return out;
        }
    }

    /** Heap bytes of the entry array. */
    final long arrayBytes() {
        return buf == null || buf.length == 0 ? 0 : MemoryCost.bytes(buf.length);
    }

    // ---------------------------------------------------------------- positions

    /** Byte position of entry {@code i} (0 &lt;= i &lt;= count; count gives {@code end}), walking from the nearer end. */
    final int seek(int i) {
        if (i <= count / 2) {
            int p = start;
            for (int k = 0; k < i; k++) p += ListPack.sizeAt(buf, p);
            return p;
        }
        int p = end;
        for (int k = count; k > i; k--) p = ListPack.startBefore(buf, p);
        return p;
    }

    // ---------------------------------------------------------------- mutation

    final void pushHead(byte[] e, int capHint) {
        int size = ListPack.entrySize(e);
        int at = open(start, size, capHint, true);
        ListPack.write(buf, at, e);
        count++;
    }

    final void pushTail(byte[] e, int capHint) {
        int size = ListPack.entrySize(e);
        int at = open(end, size, capHint, false);
        ListPack.write(buf, at, e);
        count++;
    }

    /** Inserts {@code e} as a new entry at byte position {@code pos}. */
    final void insertAt(int pos, byte[] e, int capHint) {
        int size = ListPack.entrySize(e);
        int at = open(pos, size, capHint, false);
        ListPack.write(buf, at, e);
        count++;
    }

    /** Replaces the entry at byte position {@code pos} with {@code e}. */
    final void replaceAt(int pos, byte[] e, int capHint) {
        int old = ListPack.sizeAt(buf, pos);
        int size = ListPack.entrySize(e);
        if (old == size) {
            ListPack.write(buf, pos, e);
            return;
        }
        insertAt(deleteBytes(pos, pos + old, 1, true), e, capHint);
    }

    /**
     * Removes the bytes {@code [from, to)}, which hold {@code n} whole entries, moving the shorter side, and
     * shrinks the array when it has become mostly empty (unless {@code keep}). Returns the position of the
     * entry that followed the removed ones, valid only with {@code keep}.
     */
    final int deleteBytes(int from, int to, int n, boolean keep) {
        int len = to - from;
        int next;
        if (from - start <= end - to) {
            System.arraycopy(buf, start, buf, start + len, from - start);
            start += len;
            next = to;
        } else {
            System.arraycopy(buf, to, buf, from, end - to);
            end -= len;
            next = from;
        }
        count -= n;
        if (!keep) shrinkIfSparse();
        return next;
    }

    /** Removes {@code n} entries starting at entry {@code i}. */
    final void deleteRange(int i, int n) {
        int from = seek(i);
        int to = from;
        for (int k = 0; k < n; k++) to += ListPack.sizeAt(buf, to);
        deleteBytes(from, to, n, false);
    }

    /**
     * Makes room for {@code extra} more bytes at the head ({@code headward}) or the tail in one allocation of
     * exactly the size needed (a push of many elements at once, or the first push into an empty node). A push into
     * a node that holds entries and smaller than the spare room the array's growth gives anyway ({@link #open}: a
     * quarter, at least 16 bytes) is left to that growth: reserving exactly would copy the whole array on every
     * push of one element.
     */
    final void reserve(long extra, boolean headward) {
        int free = headward ? start : buf.length - end;
        if (free >= extra) return;
        int used = end - start;
        long need = used + extra;
        if (used > 0 && extra < Math.max(16, need / 4)) return;
        if (need > Integer.MAX_VALUE - 16) throw new IllegalStateException("list node too large");
        byte[] b = new byte[capacityFor(need, (int) need)];
        int ns = headward ? b.length - used : 0;
        System.arraycopy(buf, start, b, ns, used);
        buf = b;
        start = ns;
        end = ns + used;
    }

    /** Appends the {@code n} entries in {@code src[from, to)} (another node's). */
    final void appendEntries(byte[] src, int from, int to, int n, int capHint) {
        int at = open(end, to - from, capHint, false);
        System.arraycopy(src, from, buf, at, to - from);
        count += n;
    }

    /** Trims the array to exactly the entries (a node that stopped being an end of its list). */
    final void trim() {
        int used = end - start;
        if (buf.length == used) return;
        byte[] b = new byte[used];
        System.arraycopy(buf, start, b, 0, used);
        buf = b;
        start = 0;
        end = used;
    }

    /** Shrinks the array when less than a quarter of it is in use (after entries were removed). */
    final void shrinkIfSparse() {
        int used = end - start;
        if (used == 0) {
            if (buf.length > 0) {
                buf = EMPTY;
                start = end = 0;
            }
            return;
        }
        if (buf.length < MIN_SHRINK_CAPACITY || used * 4 >= buf.length) return;
        byte[] b = new byte[capacityFor(used + used / 4, Integer.MAX_VALUE)];
        int ns = (b.length - used) / 2;
        System.arraycopy(buf, start, b, ns, used);
        buf = b;
        start = ns;
        end = ns + used;
    }

    /**
     * Makes {@code size} free bytes at byte position {@code at} (start &lt;= at &lt;= end) and returns where they
     * begin. Grows the array when needed, putting its spare room in front for pushes at the head
     * ({@code headward}) and behind otherwise; {@code capHint} bounds the spare room (a node's byte limit).
     */
    private int open(int at, int size, int capHint, boolean headward) {
        int used = end - start;
        if (at == end && buf.length - end >= size) {
            end += size;
            return at;
        }
        if (at == start && start >= size) {
            start -= size;
            return start;
        }
        long need = (long) used + size;
        if (need > Integer.MAX_VALUE - 16) throw new IllegalStateException("list node too large");
        int n = (int) need;
        if (n <= buf.length && (buf.length - n >= used / 4 || buf.length >= capHint)) {
            // Room enough in the array (and to spare, so that moves stay rare): slide the entries so that
            // the gap lands at 'at', with the spare room where this node grows.
            int ns = headward ? buf.length - n : at == end ? 0 : Math.min(start, buf.length - n);
            int headPart = at - start;
            int tailPart = end - at;
            if (ns <= start) {
                System.arraycopy(buf, start, buf, ns, headPart);
                System.arraycopy(buf, at, buf, ns + headPart + size, tailPart);
            } else {
                System.arraycopy(buf, at, buf, ns + headPart + size, tailPart);
                System.arraycopy(buf, start, buf, ns, headPart);
            }
            start = ns;
            end = ns + n;
            return ns + headPart;
        }
        byte[] b = new byte[capacityFor(n + Math.max(16, n / 4), Math.max(n, capHint))];
        int ns = headward ? b.length - n : 0;
        int headPart = at - start;
        System.arraycopy(buf, start, b, ns, headPart);
        System.arraycopy(buf, at, b, ns + headPart + size, end - at);
        buf = b;
        start = ns;
        end = ns + n;
        return ns + headPart;
    }

    /** An array capacity near {@code wanted}, at most {@code max}, using the padding an array gets anyway. */
    private static int capacityFor(long wanted, int max) {
        long c = Math.min(wanted, max);
        c = ((c + 16 + 7) & ~7L) - 16; // fill the 8-byte alignment of the array
        return (int) Math.min(c, Integer.MAX_VALUE - 16);
    }
}
