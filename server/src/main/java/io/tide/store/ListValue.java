package io.tide.store;

import java.util.Arrays;

/**
 * Confined to the shard thread that owns the value. A list, in Redis 7.2's two encodings, with Redis's rules for
 * switching between them so that OBJECT ENCODING answers as Redis does after the same commands.
 *
 * <p><b>listpack</b>: the whole list is one packed run of entries held by this object itself (it is its own
 * {@link ListNode}), while it fits {@code list-max-listpack-size}. <b>quicklist</b>: a doubly linked list of
 * packed nodes, each within that limit, plus "plain" nodes for single elements larger than a node may be.
 * Entries use the {@link ListPack} format, whose sizes are byte-for-byte Redis's, and the quicklist's node
 * decisions (when a push opens a new node, when an insert splits a node and merges its neighbours, what a
 * range delete removes) follow Redis's {@code quicklist.c}, so the node layout, and with it the moment a
 * shrinking list converts back, is Redis's too.
 *
 * <p>Conversions happen only where commands ask, at the points where Redis's {@code t_list.c} checks:
 * {@link #beforeAdding} (listpack to quicklist when the additions would not fit) and {@link #afterRemoving}
 * (quicklist with a single packed node back to listpack once it is within half the limit). A quicklist keeps the
 * fill it was created with, as Redis's does; the conversion checks read the current setting.
 *
 * <p>Element access by index skips whole nodes by their counts, from the nearer end. {@link #memoryBytes()}
 * is kept current by every operation.
 *
 * <p><b>Compression</b> ({@code list-compress-depth}, taken when the list becomes a quicklist, as Redis takes it when
 * it creates one): the nodes further than the depth from both ends are kept LZF-compressed, under Redis's rules
 * ({@link ListNode#compress}). Reads decompress a copy of a compressed node and leave it as it is. A change
 * decompresses the nodes it edits ({@link #touch}); when the operation ends, {@link #settle} restores Redis's
 * invariant, as Redis's __quicklistCompress does after each node insertion or deletion: the nodes within the depth
 * of either end are raw, and the first node beyond it on each side and every node the operation touched that lies
 * beyond it are compressed again.
 */
public final class ListValue extends ListNode implements CollectionValue {

    /** Estimated heap bytes of this object: a node's fields plus head, tail, size, memory and fill. */
    private static final long OBJECT_BYTES_VALUE = 72;
    private static final int SIZE_SAFETY_LIMIT = 8192;
    /**
     * Longest element a list copies into its listpack whatever {@code list-max-listpack-size} says (the smallest limit of
     * Redis's large elements, which get a plain node that keeps the array as it is); see decision 0028.
     */
    public static final int COPIED_MAX = 4096;
    private static final int[] OPTIMIZATION_LEVEL = {4096, 8192, 16384, 32768, 65536};
    private static final int FILL_MAX = (1 << 15) - 1;
    /** Redis's SIZE_ESTIMATE_OVERHEAD: what a push is assumed to add to a node beyond the element's bytes. */
    private static final int SIZE_ESTIMATE_OVERHEAD = 8;

    /** Quicklist nodes; both null in the listpack encoding, where {@code buf} (never null then) holds the list. */
    private ListNode head;
    private ListNode tail;
    private long size;
    /** Bytes of the entry arrays and node objects (this object's own bytes excluded). */
    private long memory;
    /** The quicklist's fill (list-max-listpack-size when it was created); in a listpack, the last value seen. */
    private int fill = -2;
    /** The quicklist's compress depth (list-compress-depth when it was created); 0 = nothing compressed. */
    private int depth;

    /** Redis's COMPRESS_MAX: the depth is held in 16 bits. */
    private static final int COMPRESS_MAX = (1 << 16) - 1;
    private static final ThreadLocal<Settling> SETTLING = ThreadLocal.withInitial(Settling::new);

    /** An empty list in the listpack encoding; give it elements before storing it. */
    public ListValue() {
        buf = EMPTY;
    }

    @Override
    public int touch() {
        byte[] b = buf;
        return b != null ? b.length : 0;
    }

    // ---------------------------------------------------------------- CollectionValue

    @Override
    public String typeName() {
        return "list";
    }

    @Override
    public String encodingName() {
        return isQuicklist() ? "quicklist" : "listpack";
    }

    @Override
    public long memoryBytes() {
        return OBJECT_BYTES_VALUE + memory;
    }

    @Override
    public ListValue copy() {
        ListValue c = new ListValue();
        c.fill = fill;
        c.depth = depth;
        c.size = size;
        if (!isQuicklist()) {
            c.buf = Arrays.copyOfRange(buf, start, end);
            c.end = c.buf.length;
            c.count = count;
            c.memory = c.arrayBytes();
            return c;
        }
        c.buf = null;
        for (ListNode n = head; n != null; n = n.next) {
            ListNode d = n.compressed
                    ? new ListNode(n.buf.clone(), n.start, n.end, n.count) // as Redis copies the LZF blob
                    : new ListNode(Arrays.copyOfRange(n.buf, n.start, n.end), 0, n.end - n.start, n.count);
            d.plain = n.plain;
            d.compressed = n.compressed;
            c.memory += OBJECT_BYTES + d.arrayBytes();
            d.prev = c.tail;
            if (c.tail == null) c.head = d;
            else c.tail.next = d;
            c.tail = d;
        }
        return c;
    }

    /** Number of elements. */
    public long size() {
        return size;
    }

    /** Receives a list's nodes for serialization (RDB, DUMP). */
    public interface NodeVisitor {
        /** A packed node: {@code count} entries in Redis's listpack entry format in {@code entries[from, to)}. */
        void packed(byte[] entries, int from, int to, int count);

        /** A plain node (Redis's PLAIN container): one element too large for a packed node. */
        void plain(byte[] element);
    }

    /**
     * Visits the nodes head to tail as Redis's quicklist 2 stores them: a listpack-encoded list is one packed
     * node. The arrays are the list's own and must not be modified or kept.
     */
    public void forEachNode(NodeVisitor v) {
        if (!isQuicklist()) {
            v.packed(buf, start, end, count);
            return;
        }
        for (ListNode node = head; node != null; node = node.next) {
            ListNode n = node.readable();
            if (n.plain) v.plain(ListPack.read(n.buf, n.start));
            else v.packed(n.buf, n.start, n.end, n.count);
        }
    }

    /** Number of nodes ({@link #forEachNode} visits this many). */
    public int nodeCount() {
        if (!isQuicklist()) return 1;
        int k = 0;
        for (ListNode n = head; n != null; n = n.next) k++;
        return k;
    }

    private boolean isQuicklist() {
        return buf == null;
    }

    private ListNode first() {
        return buf != null ? this : head;
    }

    private ListNode last() {
        return buf != null ? this : tail;
    }

    // ---------------------------------------------------------------- encoding conversions

    /**
     * Redis's listTypeTryConversionAppend: before adding {@code addCount} elements whose raw strings total
     * {@code addBytes} bytes, a listpack that would exceed {@code list-max-listpack-size} ({@code fillNow})
     * becomes a quicklist whose single node is the listpack, with {@code list-compress-depth} {@code depthNow}.
     */
    public void beforeAdding(int fillNow, int depthNow, long addBytes, long addCount) {
        if (isQuicklist()) return;
        fill = fillNow;
        if (exceedsLimit(fillNow, ListPack.OVERHEAD + (long) (end - start) + addBytes, count + addCount)) {
            toQuicklist(fillNow);
            depth = Math.max(0, Math.min(COMPRESS_MAX, depthNow));
        }
    }

    /** As {@link #beforeAdding(int, int, long, long)} with the limits of {@code limits}. */
    public void beforeAdding(EncodingLimits limits, long addBytes, long addCount) {
        beforeAdding(limits.listMaxListpackSize, limits.listCompressDepth, addBytes, addCount);
    }

    /**
     * Redis's listTypeTryConversion for a shrinking list: a quicklist reduced to one packed node within half of
     * {@code list-max-listpack-size} ({@code fillNow}) becomes a listpack again.
     */
    public void afterRemoving(int fillNow) {
        if (!isQuicklist() || head == null || head != tail || head.plain) return;
        long sizeLimit;
        long countLimit;
        if (fillNow >= 0) {
            sizeLimit = Long.MAX_VALUE;
            countLimit = (fillNow == 0 ? 1 : fillNow) / 2;
        } else {
            sizeLimit = negativeFillLimit(fillNow) / 2;
            countLimit = 0xFFFFFFFFL / 2;
        }
        if (head.redisBytes() > sizeLimit || size > countLimit) return;
        ListNode n = head;
        memory -= OBJECT_BYTES;
        buf = n.buf;
        start = n.start;
        end = n.end;
        count = n.count;
        head = tail = null;
    }

    private void toQuicklist(int fillNow) {
        if (count > 0) {
            head = tail = new ListNode(buf, start, end, count);
            memory += OBJECT_BYTES;
        } else {
            memory -= arrayBytes();
        }
        buf = null;
        start = end = count = 0;
        fill = Math.max(-5, Math.min(FILL_MAX, fillNow));
    }

    /** Redis's quicklistNodeExceedsLimit. */
    private static boolean exceedsLimit(int fill, long bytes, long entries) {
        if (fill < 0) return bytes > negativeFillLimit(fill);
        if (bytes > SIZE_SAFETY_LIMIT) return true;
        return entries > (fill == 0 ? 1 : fill);
    }

    private static int negativeFillLimit(int fill) {
        return OPTIMIZATION_LEVEL[(int) Math.min(-(long) fill - 1, OPTIMIZATION_LEVEL.length - 1)];
    }

    /** Redis's isLargeElement: such an element gets a plain node of its own in a quicklist. */
    private boolean isLarge(long sz) {
        return fill >= 0 ? sz > SIZE_SAFETY_LIMIT : sz > negativeFillLimit(fill);
    }

    /** Redis's _quicklistNodeAllowInsert. */
    private boolean allowInsert(ListNode n, long sz) {
        if (n == null || n.plain || isLarge(sz)) return false;
        return !exceedsLimit(fill, n.redisBytes() + sz + SIZE_ESTIMATE_OVERHEAD, n.count + 1L);
    }

    /** Redis's _quicklistNodeAllowMerge. */
    private boolean allowMerge(ListNode a, ListNode b) {
        if (a == null || b == null || a.plain || b.plain) return false;
        return !exceedsLimit(fill, a.redisBytes() + b.redisBytes() - ListPack.OVERHEAD, (long) a.count + b.count);
    }

    /** Most entry bytes a node holds: bounds the spare room of its array. */
    private int capHint() {
        return (fill < 0 ? negativeFillLimit(fill) : SIZE_SAFETY_LIMIT) - ListPack.OVERHEAD;
    }

    // ---------------------------------------------------------------- pushes and pops

    /** LPUSH ({@code atHead}) or RPUSH of one element. */
    public void push(byte[] e, boolean atHead) {
        size++;
        if (!isQuicklist()) {
            pushInto(this, e, atHead);
            return;
        }
        ListNode end = atHead ? head : tail;
        if (isLarge(e.length)) {
            linkNode(end, plainNode(e), !atHead);
        } else if (allowInsert(end, e.length)) {
            pushInto(end, e, atHead);
        } else {
            ListNode n = newNode();
            pushInto(n, e, atHead);
            if (end != null) trimNode(end); // no longer an end of the list: drop its spare room
            linkNode(end, n, !atHead);
        }
        settle();
    }

    /** LPUSH ({@code atHead}) or RPUSH of {@code elements[from..]}, in order, with one allocation for a listpack. */
    public void pushAll(byte[][] elements, int from, boolean atHead) {
        if (!isQuicklist()) {
            long bytes = 0;
            for (int i = from; i < elements.length; i++) bytes += ListPack.entrySize(elements[i]);
            long before = arrayBytes();
            reserve(bytes, atHead);
            memory += arrayBytes() - before;
        }
        for (int i = from; i < elements.length; i++) push(elements[i], atHead);
    }

    /**
     * {@link #pop} for a reply written at once from the list's bytes (LPOP and RPOP, decision 0015's views): removes the
     * first or last element and returns the array that still holds its text, with {@code span[0]} = the text's offset
     * in the high 32 bits and its length in the low ones. Removing an end element leaves its bytes where they were
     * (the node's start or end moves past them; a shrink or an unlinked node leaves the old array as it is), and
     * nothing writes into that array before the caller's reply is written. Null, removing nothing, for an element
     * stored as an integer, or an end node that is compressed (never, as ends stay within the depth): then
     * {@link #pop} it.
     */
    public byte[] popInPlace(boolean atHead, long[] span) {
        ListNode n = atHead ? first() : last();
        if (n.compressed) return null;
        byte[] b = n.buf;
        int pos = atHead ? n.start : ListPack.startBefore(b, n.end);
        long s = ListPack.textSpan(b, pos);
        if (s < 0) return null;
        span[0] = s;
        removeEntries(n, pos, pos + ListPack.sizeAt(b, pos), 1);
        size--;
        settle();
        return b;
    }

    /** Removes and returns the first ({@code atHead}) or last element; the list must not be empty. */
    public byte[] pop(boolean atHead) {
        ListNode n = atHead ? first() : last();
        touch(n);
        int pos = atHead ? n.start : ListPack.startBefore(n.buf, n.end);
        byte[] v = ListPack.read(n.buf, pos);
        removeEntries(n, pos, pos + ListPack.sizeAt(n.buf, pos), 1);
        size--;
        settle();
        return v;
    }

    // ---------------------------------------------------------------- access by index

    /** The element at {@code index} (negative counts from the end), or null when out of range. */
    public byte[] get(long index) {
        if (index < 0) index += size;
        if (index < 0 || index >= size) return null;
        Cursor c = at(index);
        return ListPack.read(c.node.buf, c.pos);
    }

    /** LSET: replaces the element at {@code index} (negative counts from the end); false when out of range. */
    public boolean set(long index, byte[] e) {
        if (index < 0) index += size;
        if (index < 0 || index >= size) return false;
        Cursor c = atForWrite(index);
        ListNode node = c.node;
        if (!isQuicklist()) {
            replaceIn(node, c.pos, e);
            return true;
        }
        boolean large = isLarge(e.length);
        if (!node.plain && !large) {
            replaceIn(node, c.pos, e);
        } else if (node.plain && large) {
            replaceIn(node, c.pos, e);
        } else if (node.plain) {
            // Redis inserts the new element after the plain node, then drops that node.
            insertAt(node, 0, c.pos, e, true);
            unlink(node);
        } else {
            // A large element replacing one inside a packed node: split the node after it, put the element in a
            // plain node between the halves, delete the old element and merge around the new node.
            ListNode split = c.offset != node.count - 1 ? splitNode(node, c.offset, true) : null;
            ListNode p = plainNode(e);
            linkNode(node, p, true);
            if (split != null) linkNode(p, split, true);
            if (node.count == 1) {
                unlink(node);
            } else {
                int lastPos = ListPack.startBefore(node.buf, node.end);
                removeEntries(node, lastPos, node.end, 1);
                mergeAround(p);
            }
        }
        settle();
        return true;
    }

    /** Elements {@code from}, then {@code n - 1} more towards the tail, or towards the head when {@code reverse}. */
    public byte[][] range(long from, int n, boolean reverse) {
        byte[][] out = new byte[n][];
        if (n == 0) return out;
        Cursor c = at(from);
        for (int i = 0; i < n; i++) {
            out[i] = ListPack.read(c.node.buf, c.pos);
            if (i + 1 < n) {
                if (reverse) c.back();
                else c.forward();
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- searches

    /**
     * LINSERT: inserts {@code e} before or after the first element equal to {@code pivot}; returns the new size,
     * or -1 when there is no such element.
     */
    public long insert(byte[] pivot, byte[] e, boolean after) {
        ListPack.Probe probe = new ListPack.Probe(pivot);
        for (ListNode n = first(); n != null; n = n.next) {
            ListNode r = n.readable();
            int pos = r.start;
            for (int i = 0; i < r.count; i++) {
                if (ListPack.matches(r.buf, pos, probe)) {
                    size++;
                    touch(n); // decompressed, its entries sit where they sit in r
                    if (!isQuicklist()) {
                        insertInto(n, after ? pos + ListPack.sizeAt(n.buf, pos) : pos, e);
                    } else {
                        insertAt(n, i, pos, e, after);
                    }
                    settle();
                    return size;
                }
                pos += ListPack.sizeAt(r.buf, pos);
            }
        }
        return -1;
    }

    /**
     * LPOS: the indexes of the matches of {@code e}, starting with the {@code |rank|}-th match, from the tail
     * when {@code rank} is negative; at most {@code limit} of them (0 = all), scanning at most {@code maxlen}
     * elements (0 = all).
     */
    public long[] positions(byte[] e, long rank, long limit, long maxlen) {
        ListPack.Probe probe = new ListPack.Probe(e);
        boolean fromTail = rank < 0;
        long skip = Math.abs(rank) - 1;
        long[] out = new long[4];
        int found = 0;
        if (size == 0) return out;
        Cursor c = at(fromTail ? size - 1 : 0);
        long matches = 0;
        for (long index = 0; index < size && (maxlen == 0 || index < maxlen); index++) {
            if (index > 0) {
                if (fromTail) c.back();
                else c.forward();
            }
            if (!ListPack.matches(c.node.buf, c.pos, probe)) continue;
            if (matches++ < skip) continue;
            if (found == out.length) out = Arrays.copyOf(out, found * 2);
            out[found++] = fromTail ? size - index - 1 : index;
            if (limit != 0 && found >= limit) break;
        }
        return Arrays.copyOf(out, found);
    }

    /**
     * LREM: removes up to {@code |count|} elements equal to {@code e} (all for 0), from the head, or from the
     * tail when {@code count} is negative; returns how many went.
     */
    public long removeMatching(byte[] e, long count) {
        ListPack.Probe probe = new ListPack.Probe(e);
        boolean fromTail = count < 0;
        long quota = count == 0 ? Long.MAX_VALUE : Math.abs(count);
        long removed = 0;
        ListNode n = fromTail ? last() : first();
        while (n != null && removed < quota) {
            ListNode following = fromTail ? n.prev : n.next;
            if (n.compressed && !holds(n.readable(), probe)) {
                n = following; // nothing to remove here: the node stays compressed
                continue;
            }
            touch(n);
            long before = n.arrayBytes();
            int gone = 0;
            byte[] b = n.buf;
            if (!fromTail) {
                int w = n.start;
                for (int p = n.start; p < n.end; ) {
                    int s = ListPack.sizeAt(b, p);
                    if (removed + gone < quota && ListPack.matches(b, p, probe)) {
                        gone++;
                    } else {
                        if (w != p) System.arraycopy(b, p, b, w, s);
                        w += s;
                    }
                    p += s;
                }
                n.end = w;
            } else {
                int w = n.end;
                for (int p = n.end; p > n.start; ) {
                    int q = ListPack.startBefore(b, p);
                    int s = p - q;
                    if (removed + gone < quota && ListPack.matches(b, q, probe)) {
                        gone++;
                    } else {
                        w -= s;
                        if (w != q) System.arraycopy(b, q, b, w, s);
                    }
                    p = q;
                }
                n.start = w;
            }
            if (gone > 0) {
                n.count -= gone;
                removed += gone;
                if (isQuicklist() && n.count == 0) {
                    unlink(n);
                } else {
                    n.shrinkIfSparse();
                    memory += n.arrayBytes() - before;
                }
            }
            n = following;
        }
        size -= removed;
        settle();
        return removed;
    }

    /** Whether some entry of the (raw) node {@code n} matches. */
    private static boolean holds(ListNode n, ListPack.Probe probe) {
        for (int p = n.start; p < n.end; p += ListPack.sizeAt(n.buf, p)) {
            if (ListPack.matches(n.buf, p, probe)) return true;
        }
        return false;
    }

    /** Removes {@code n} elements starting at index {@code from} (both within the list), as Redis's quicklistDelRange. */
    public void removeRange(long from, long n) {
        if (n <= 0) return;
        Cursor c = atForWrite(from);
        ListNode node = c.node;
        int offset = c.offset;
        long extent = n;
        while (extent > 0) {
            ListNode following = node.next;
            long del = Math.min(extent, node.count - offset);
            if (offset == 0 && del == node.count) {
                removeEntries(node, node.start, node.end, node.count);
            } else {
                touch(node);
                long before = node.arrayBytes();
                node.deleteRange(offset, (int) del);
                memory += node.arrayBytes() - before;
            }
            extent -= del;
            node = following;
            offset = 0;
        }
        size -= n;
        settle();
    }

    // ---------------------------------------------------------------- quicklist node operations

    /** Redis's _quicklistInsert: {@code e} goes before or after entry {@code offset} (at byte {@code pos}) of {@code node}. */
    private void insertAt(ListNode node, int offset, int pos, byte[] e, boolean after) {
        int sz = e.length;
        boolean full = !allowInsert(node, sz);
        boolean atTail = false;
        boolean atHead = false;
        boolean availNext = false;
        boolean availPrev = false;
        if (after && offset == node.count - 1) {
            atTail = true;
            availNext = allowInsert(node.next, sz);
        }
        if (!after && offset == 0) {
            atHead = true;
            availPrev = allowInsert(node.prev, sz);
        }
        if (isLarge(sz)) {
            if (node.plain || atTail || atHead) {
                linkNode(node, plainNode(e), after);
            } else {
                ListNode split = splitNode(node, offset, after);
                ListNode p = plainNode(e);
                linkNode(node, p, after);
                linkNode(p, split, after);
            }
            return;
        }
        if (!full) {
            insertInto(node, after ? pos + ListPack.sizeAt(node.buf, pos) : pos, e);
        } else if (atTail && availNext) {
            pushInto(node.next, e, true);
        } else if (atHead && availPrev) {
            pushInto(node.prev, e, false);
        } else if (atTail || atHead) {
            ListNode n = newNode();
            pushInto(n, e, true);
            linkNode(node, n, after);
        } else {
            ListNode split = splitNode(node, offset, after);
            pushInto(split, e, after);
            linkNode(node, split, after);
            mergeAround(node);
        }
    }

    /**
     * Redis's _quicklistSplitNode: with {@code after}, {@code node} keeps entries [0, offset] and the returned
     * new node gets the rest; otherwise the new node gets [0, offset) and {@code node} keeps the rest. The new
     * node is not linked.
     */
    private ListNode splitNode(ListNode node, int offset, boolean after) {
        touch(node);
        int at = after ? offset + 1 : offset;
        int p = node.seek(at);
        long before = node.arrayBytes();
        ListNode n;
        if (after) {
            n = new ListNode(Arrays.copyOfRange(node.buf, p, node.end), 0, node.end - p, node.count - at);
            node.deleteBytes(p, node.end, node.count - at, false);
        } else {
            n = new ListNode(Arrays.copyOfRange(node.buf, node.start, p), 0, p - node.start, at);
            node.deleteBytes(node.start, p, at, false);
        }
        memory += node.arrayBytes() - before + OBJECT_BYTES + n.arrayBytes();
        return n;
    }

    /** Redis's _quicklistMergeNodes: merges the pairs around {@code center} that fit in one node. */
    private void mergeAround(ListNode center) {
        ListNode prev = center.prev;
        ListNode prevPrev = prev == null ? null : prev.prev;
        ListNode next = center.next;
        ListNode nextNext = next == null ? null : next.next;
        if (allowMerge(prev, prevPrev)) merge(prevPrev, prev);
        if (allowMerge(next, nextNext)) merge(next, nextNext);
        ListNode target = center;
        if (allowMerge(center, center.prev)) target = merge(center.prev, center);
        if (allowMerge(target, target.next)) merge(target, target.next);
    }

    /** Moves the entries of {@code b} onto the end of {@code a} (its left neighbour) and drops {@code b}. */
    private ListNode merge(ListNode a, ListNode b) {
        touch(a);
        touch(b);
        long before = a.arrayBytes();
        a.appendEntries(b.buf, b.start, b.end, b.count, capHint());
        memory += a.arrayBytes() - before;
        unlink(b);
        return a;
    }

    private ListNode newNode() {
        ListNode n = new ListNode(EMPTY, 0, 0, 0);
        memory += OBJECT_BYTES;
        return n;
    }

    private ListNode plainNode(byte[] e) {
        byte[] b = new byte[ListPack.entrySize(e)];
        ListPack.write(b, 0, e);
        ListNode n = new ListNode(b, 0, b.length, 1);
        n.plain = true;
        memory += OBJECT_BYTES + n.arrayBytes();
        return n;
    }

    /** Links the unlinked node {@code n} after (or before) {@code old}; a null {@code old} means an empty quicklist. */
    private void linkNode(ListNode old, ListNode n, boolean after) {
        remember(n); // Redis's __quicklistInsertNode compresses the new node and the old one where they lie inside
        if (depth > 0) settling().inserted++;
        if (old == null) {
            head = tail = n;
            return;
        }
        remember(old);
        if (after) {
            n.prev = old;
            n.next = old.next;
            if (old.next != null) old.next.prev = n;
            else tail = n;
            old.next = n;
        } else {
            n.next = old;
            n.prev = old.prev;
            if (old.prev != null) old.prev.next = n;
            else head = n;
            old.prev = n;
        }
    }

    private void unlink(ListNode n) {
        if (n.prev != null) n.prev.next = n.next;
        else head = n.next;
        if (n.next != null) n.next.prev = n.prev;
        else tail = n.prev;
        n.prev = n.next = null;
        memory -= OBJECT_BYTES + n.arrayBytes();
        if (depth > 0) settling().structural = true; // Redis's __quicklistDelNode recompresses around the ends
    }

    // ---------------------------------------------------------------- entry edits with memory accounting

    private void pushInto(ListNode n, byte[] e, boolean atHead) {
        touch(n);
        long before = n.arrayBytes();
        if (atHead) n.pushHead(e, capHint());
        else n.pushTail(e, capHint());
        memory += n.arrayBytes() - before;
    }

    private void insertInto(ListNode n, int pos, byte[] e) {
        touch(n);
        long before = n.arrayBytes();
        n.insertAt(pos, e, capHint());
        memory += n.arrayBytes() - before;
    }

    private void replaceIn(ListNode n, int pos, byte[] e) {
        touch(n);
        long before = n.arrayBytes();
        n.replaceAt(pos, e, capHint());
        memory += n.arrayBytes() - before;
    }

    private void trimNode(ListNode n) {
        if (n.compressed) return; // already exactly its compressed bytes
        long before = n.arrayBytes();
        n.trim();
        memory += n.arrayBytes() - before;
    }

    /** Removes the {@code k} entries in bytes [from, to) of {@code n}; a quicklist node left empty goes. */
    private void removeEntries(ListNode n, int from, int to, int k) {
        if (isQuicklist() && n.count == k) {
            unlink(n);
            return;
        }
        if (n.compressed) throw new IllegalStateException("positions in a compressed node"); // callers touch first
        long before = n.arrayBytes();
        n.deleteBytes(from, to, k, false);
        memory += n.arrayBytes() - before;
    }

    // ---------------------------------------------------------------- compression

    /**
     * Before a change to {@code n}: decompresses it if compressed and remembers it, so that {@link #settle}
     * compresses it again if it still lies beyond the depth. An end of the list is always within the depth.
     */
    private void touch(ListNode n) {
        if (depth == 0 || !isQuicklist() || (!n.compressed && (n == head || n == tail))) return;
        remember(n);
        if (n.compressed) {
            long before = n.arrayBytes();
            n.decompress();
            memory += n.arrayBytes() - before;
        }
    }

    /** Remembers {@code n} for {@link #settle} without decompressing it (a node inserted, or next to an insertion). */
    private void remember(ListNode n) {
        if (depth == 0 || !isQuicklist()) return;
        Settling s = settling();
        s.structural = true;
        s.add(n);
    }

    private Settling settling() {
        Settling s = SETTLING.get();
        if (s.owner != this) {
            s.clear();
            s.owner = this;
        }
        return s;
    }

    /**
     * Ends a change: Redis's __quicklistCompress for every node the change touched or inserted. The nodes within
     * the depth of either end are made raw; when the list is longer than twice the depth, the first node beyond it
     * on each side (and one more per inserted node) and the touched nodes still in the list beyond it are
     * compressed.
     */
    private void settle() {
        if (depth == 0) return;
        Settling s = SETTLING.get();
        if (s.owner != this) return;
        if (!isQuicklist() || head == null || (!s.structural && s.size == 0)) {
            s.clear();
            return;
        }
        ListNode f = head;
        ListNode r = tail;
        boolean meet = false;
        for (int d = 0; d < depth; d++) {
            raw(f);
            raw(r);
            f.nearEnd = r.nearEnd = true;
            if (f == r || f.next == r) {
                meet = true;
                break;
            }
            f = f.next;
            r = r.prev;
        }
        if (!meet) {
            // Each node inserted at or near an end pushed one more node out of the window (Redis compresses it at
            // each insertion): compress as many beyond the boundary as nodes were inserted.
            ListNode x = f;
            for (int k = 0; k <= s.inserted && x != null && !x.nearEnd; k++, x = x.next) compressNode(x);
            ListNode y = r;
            for (int k = 0; k <= s.inserted && y != null && !y.nearEnd; k++, y = y.prev) compressNode(y);
            for (int i = 0; i < s.size; i++) {
                ListNode t = s.nodes[i];
                boolean linked = t.prev != null || t.next != null || t == head;
                if (linked && !t.nearEnd) compressNode(t);
            }
        }
        ListNode a = head;
        ListNode b = tail;
        for (int d = 0; d < depth && a != null; d++) {
            a.nearEnd = b.nearEnd = false;
            if (a == b || a.next == b) break;
            a = a.next;
            b = b.prev;
        }
        s.clear();
    }

    private void raw(ListNode n) {
        if (!n.compressed) return;
        long before = n.arrayBytes();
        n.decompress();
        memory += n.arrayBytes() - before;
    }

    private void compressNode(ListNode n) {
        if (n.compressed) return;
        long before = n.arrayBytes();
        if (n.compress()) memory += n.arrayBytes() - before;
    }

    /** Confined to one thread (one per thread). The nodes the running change of one list touched. */
    private static final class Settling {
        ListValue owner;
        ListNode[] nodes = new ListNode[8];
        int size;
        /** A node was inserted or deleted: the ends' windows must be checked. */
        boolean structural;
        /** Nodes inserted by the running change. */
        int inserted;

        void add(ListNode n) {
            for (int i = Math.max(0, size - 4); i < size; i++) if (nodes[i] == n) return; // the usual repeats
            if (size == nodes.length) nodes = Arrays.copyOf(nodes, size * 2);
            nodes[size++] = n;
        }

        void clear() {
            Arrays.fill(nodes, 0, size, null);
            if (nodes.length > 64) nodes = new ListNode[8];
            size = 0;
            inserted = 0;
            structural = false;
            owner = null;
        }
    }

    // ---------------------------------------------------------------- positions

    /** The entry at {@code index} (0 &lt;= index &lt; size) for reading (a compressed node is read from a copy). */
    private Cursor at(long index) {
        Cursor c = locate(index);
        ListNode r = c.node.readable();
        c.node = r;
        c.pos = r.seek(c.offset);
        return c;
    }

    /** The entry at {@code index} (0 &lt;= index &lt; size) in its node, decompressed to be changed. */
    private Cursor atForWrite(long index) {
        Cursor c = locate(index);
        touch(c.node);
        c.pos = c.node.seek(c.offset);
        return c;
    }

    /** The node and offset of entry {@code index}, found by skipping whole nodes from the nearer end (no position). */
    private Cursor locate(long index) {
        ListNode n;
        long acc;
        if (index <= (size - 1) / 2) {
            n = first();
            acc = 0;
            while (acc + n.count <= index) {
                acc += n.count;
                n = n.next;
            }
        } else {
            n = last();
            acc = size - n.count;
            while (acc > index) {
                n = n.prev;
                acc -= n.count;
            }
        }
        return new Cursor(n, (int) (index - acc), -1);
    }

    /** Confined to the command using it. A position in the list: node, entry index in the node, byte position. */
    private static final class Cursor {
        ListNode node;
        int offset;
        int pos;

        Cursor(ListNode node, int offset, int pos) {
            this.node = node;
            this.offset = offset;
            this.pos = pos;
        }

        void forward() {
            if (offset + 1 < node.count) {
                pos += ListPack.sizeAt(node.buf, pos);
                offset++;
            } else {
                node = node.next.readable();
                offset = 0;
                pos = node.start;
            }
        }

        void back() {
            if (offset > 0) {
                pos = ListPack.startBefore(node.buf, pos);
                offset--;
            } else {
                node = node.prev.readable();
                offset = node.count - 1;
                pos = ListPack.startBefore(node.buf, node.end);
            }
        }
    }

    // ---------------------------------------------------------------- for tests

    /** The element count of each node, head first (one node for a listpack). */
    int[] nodeCounts() {
        if (!isQuicklist()) return new int[] {count};
        int k = 0;
        for (ListNode n = head; n != null; n = n.next) k++;
        int[] out = new int[k];
        k = 0;
        for (ListNode n = head; n != null; n = n.next) out[k++] = n.count;
        return out;
    }

    /** Per node, head first: 'C' compressed, 'r' raw (one 'r' for a listpack). */
    String compressionLayout() {
        if (!isQuicklist()) return "r";
        StringBuilder sb = new StringBuilder();
        for (ListNode n = head; n != null; n = n.next) sb.append(n.compressed ? 'C' : 'r');
        return sb.toString();
    }

    /**
     * Whether the nodes are as Redis leaves them: raw within the depth of either end (everything raw when the list
     * has at most twice the depth), compressed beyond it unless Redis's rules keep the node raw.
     */
    boolean compressionSettled() {
        if (!isQuicklist()) return !compressed;
        int len = nodeCount();
        int i = 0;
        for (ListNode n = head; n != null; n = n.next, i++) {
            boolean inside = depth == 0 || len <= 2 * depth || i < depth || len - 1 - i < depth;
            if (inside) {
                if (n.compressed) return false;
            } else if (!n.compressed) {
                ListNode probe = new ListNode(n.buf.clone(), n.start, n.end, n.count);
                probe.plain = n.plain;
                if (probe.compress()) return false; // it could have been compressed
            }
        }
        return true;
    }

    /** The memory figure recomputed from scratch (to check the incremental one). */
    long recomputedMemoryBytes() {
        if (!isQuicklist()) return OBJECT_BYTES_VALUE + arrayBytes();
        long m = OBJECT_BYTES_VALUE;
        for (ListNode n = head; n != null; n = n.next) m += OBJECT_BYTES + n.arrayBytes();
        return m;
    }
}
