package io.tide.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Confined to the shard thread that owns the key. A stream: entries in {@link StreamNode}s (packed byte
 * arrays of up to {@code stream-node-max-entries} entries and about {@code stream-node-max-bytes} bytes, split
 * where Redis splits its listpacks), held in an array sorted by master ID that plays the part of Redis's radix
 * tree, plus the stream's metadata and its consumer groups. OBJECT ENCODING is "stream", its only encoding.
 *
 * <p>Unlike other collections a stream may be empty: Redis keeps the key (with its last ID and groups) after
 * XDEL or XTRIM remove every entry, and XGROUP CREATE MKSTREAM creates an empty one.
 *
 * <p>The logic of Redis's {@code t_stream.c} that the commands share lives here: ID generation, trimming,
 * deletion with its tombstone bookkeeping ({@code max-deleted-entry-id}, {@code recorded-first-entry-id}),
 * group reads with the {@code entries-read} counter and lag, the pending entries lists, claiming.
 * {@link #memoryBytes()} is kept current by every method that changes the value.
 */
public final class StreamValue implements CollectionValue {

    /** Trimming strategies (Redis's TRIM_STRATEGY_*). */
    public static final int TRIM_MAXLEN = 1;
    public static final int TRIM_MINID = 2;

    private static final long OVERHEAD = 96;
    /** A group: object, two tree maps, its entry in the groups map; plus its name. */
    private static final long GROUP_OVERHEAD = 200;
    /** A consumer: object, tree map, its entry in the consumers map; plus its name. */
    private static final long CONSUMER_OVERHEAD = 136;
    /** A pending entry: the NACK, its ID and its entries in the group's and the consumer's PEL. */
    private static final long PENDING_BYTES = 144;
    /** Largest node Redis allows whatever stream-node-max-bytes says (STREAM_LISTPACK_MAX_SIZE). */
    private static final long LISTPACK_MAX_SIZE = 1L << 30;

    /** An entry: its ID and its fields and values interleaved; null fields for a deleted entry still pending. */
    public record Entry(StreamId id, byte[][] fieldsAndValues) {}

    private StreamNode[] nodes = new StreamNode[2];
    private int nodeCount;
    private long length;
    private StreamId lastId = StreamId.ZERO;
    private StreamId firstId = StreamId.ZERO;
    private StreamId maxDeletedId = StreamId.ZERO;
    private long entriesAdded;
    private TreeMap<byte[], StreamGroup> groups;
    private long bytes = OVERHEAD + pointerArrayBytes(2);
    /** {@code radix-tree-nodes} once asked for, kept up to date by appends; null until then. */
    private RadixCount radix;

    public StreamValue() {}

    @Override
    public String typeName() {
        return "stream";
    }

    @Override
    public String encodingName() {
        return "stream";
    }

    @Override
    public long memoryBytes() {
        return bytes;
    }

    @Override
    public StreamValue copy() {
        StreamValue c = new StreamValue();
        c.nodes = new StreamNode[Math.max(2, nodeCount)];
        for (int i = 0; i < nodeCount; i++) c.nodes[i] = nodes[i].copy();
        c.nodeCount = nodeCount;
        c.length = length;
        c.lastId = lastId;
        c.firstId = firstId;
        c.maxDeletedId = maxDeletedId;
        c.entriesAdded = entriesAdded;
        long b = OVERHEAD + pointerArrayBytes(c.nodes.length);
        for (int i = 0; i < nodeCount; i++) b += c.nodes[i].memoryBytes();
        c.bytes = b;
        if (groups != null) {
            for (StreamGroup g : groups.values()) {
                StreamGroup ng = c.createGroup(g.name().clone(), g.lastId, g.entriesRead);
                Map<StreamGroup.Pending, StreamGroup.Pending> copies = new java.util.IdentityHashMap<>();
                for (Map.Entry<StreamId, StreamGroup.Pending> e : g.pel.entrySet()) {
                    StreamGroup.Pending p = e.getValue();
                    StreamGroup.Pending np = new StreamGroup.Pending(p.deliveryTime, p.deliveryCount, null);
                    copies.put(p, np);
                    ng.pel.put(e.getKey(), np);
                    c.bytes += PENDING_BYTES;
                }
                for (StreamGroup.Consumer con : g.consumers.values()) {
                    StreamGroup.Consumer nc = c.createConsumer(ng, con.name().clone(), con.seenTime);
                    for (Map.Entry<StreamId, StreamGroup.Pending> e : con.pel.entrySet()) {
                        StreamGroup.Pending np = copies.get(e.getValue());
                        np.consumer = nc;
                        nc.pel.put(e.getKey(), np);
                    }
                }
            }
        }
        return c;
    }

    /** {@link #memoryBytes()} computed from scratch: what the incremental figure must always equal. */
    long recomputedMemoryBytes() {
        long b = OVERHEAD + pointerArrayBytes(nodes.length);
        for (int i = 0; i < nodeCount; i++) b += nodes[i].memoryBytes();
        if (groups != null) {
            b += 48;
            for (StreamGroup g : groups.values()) {
                b += GROUP_OVERHEAD + MemoryCost.bytes(g.name().length) + g.pel.size() * PENDING_BYTES;
                for (StreamGroup.Consumer c : g.consumers.values()) {
                    b += CONSUMER_OVERHEAD + MemoryCost.bytes(c.name().length);
                }
            }
        }
        return b;
    }

    // ---------------------------------------------------------------- metadata

    public long length() { return length; }
    /** {@code last-generated-id}. */
    public StreamId lastId() { return lastId; }
    /** {@code recorded-first-entry-id}: 0-0 when empty. */
    public StreamId firstId() { return firstId; }
    /** {@code max-deleted-entry-id}. */
    public StreamId maxDeletedId() { return maxDeletedId; }
    /** {@code entries-added}: entries ever added. */
    public long entriesAdded() { return entriesAdded; }
    /** {@code radix-tree-keys}: the number of nodes. */
    public int nodeCount() { return nodeCount; }

    /**
     * {@code radix-tree-nodes}: how many nodes Redis's radix tree would have for this stream's node keys (the
     * 128-bit big-endian master IDs), as the compressed trie those keys form. Redis keeps the count in its tree, so
     * XINFO STREAM is O(1) there; here it is kept once asked for: appending a node updates it in O(1) amortized
     * ({@link RadixCount#append}), any other change to the nodes forgets it, and the next ask recounts in one pass.
     */
    public long radixTreeNodes() {
        if (nodeCount == 0) return 1; // the tree's empty head
        if (radix == null) {
            RadixCount r = new RadixCount();
            for (int i = 0; i < nodeCount; i++) r.append(nodes[i].masterMs, nodes[i].masterSeq);
            radix = r; // not in memoryBytes(): a read must not change a value's accounted size (128 B a stream)
        }
        return radix.total;
    }

    /**
     * The node count of the compressed trie over sorted 16-byte keys, built by appending keys in ascending order.
     * Every subtree (the whole tree, each branch's children, each key) costs one node, plus one compressed node when
     * its keys share bytes past the depth it is entered at. The tree's right spine (the depths at which the path to
     * the last key branches, outermost first) is what an append changes: the branches deeper than where the new key
     * parts from the last one are passed, and the new key either joins a branch at that depth or splits the edge
     * there with a new branch.
     */
    static final class RadixCount {
        private static final int KEY_BYTES = 16;
        final int[] spine = new int[KEY_BYTES];
        int depth;
        long total;
        long lastMs;
        long lastSeq;

        void append(long ms, long seq) {
            if (total == 0) { // the first key: the root, one compressed node and the key's node
                total = 2;
            } else {
                int d = commonBytes(lastMs, lastSeq, ms, seq);
                int passed = KEY_BYTES; // what hangs below the split: the last key or the deepest branch passed
                while (depth > 0 && spine[depth - 1] > d) passed = spine[--depth];
                if (depth > 0 && spine[depth - 1] == d) {
                    total += 1 + (KEY_BYTES > d + 1 ? 1 : 0);
                } else {
                    int entered = depth > 0 ? spine[depth - 1] + 1 : 0;
                    total -= passed > entered ? 1 : 0;  // the split subtree is entered deeper now
                    total += passed > d + 1 ? 1 : 0;
                    total += 1 + (d > entered ? 1 : 0); // the new branch
                    total += 1 + (KEY_BYTES > d + 1 ? 1 : 0); // the new key
                    spine[depth++] = d;
                }
            }
            lastMs = ms;
            lastSeq = seq;
        }

        /** Leading bytes two distinct (ms, seq) keys share, big-endian. */
        static int commonBytes(long ms1, long seq1, long ms2, long seq2) {
            if (ms1 != ms2) return Long.numberOfLeadingZeros(ms1 ^ ms2) >>> 3;
            return 8 + (Long.numberOfLeadingZeros(seq1 ^ seq2) >>> 3);
        }
    }

    // ---------------------------------------------------------------- serialization (RDB, DUMP)

    /** Receives a stream's nodes for serialization. */
    public interface NodeVisitor {
        /** A node: its master ID, its master entry's field names, and its live entries in ID order. */
        void node(StreamId master, byte[][] masterFields, List<Entry> entries);
    }

    /** Visits the nodes in ID order, each with its live entries (a node always has at least one). */
    public void forEachNode(NodeVisitor v) {
        StreamNode.Cursor c = new StreamNode.Cursor();
        for (int i = 0; i < nodeCount; i++) {
            StreamNode n = nodes[i];
            byte[][] names = n.masterNames();
            List<Entry> entries = new ArrayList<>(n.live);
            for (int p = n.entriesStart; p < n.used; ) {
                p = n.read(p, c);
                if (!c.deleted()) entries.add(new Entry(new StreamId(c.ms, c.seq), n.fieldsAndValues(c, names)));
            }
            v.node(new StreamId(n.masterMs, n.masterSeq), names, entries);
        }
    }

    /** Loading: adds an entry to the group's PEL, delivered to no consumer yet; false when it is already there. */
    public boolean addPending(StreamGroup g, StreamId id, long deliveryTime, long deliveryCount) {
        if (g.pel.containsKey(id)) return false;
        g.pel.put(id, new StreamGroup.Pending(deliveryTime, deliveryCount, null));
        bytes += PENDING_BYTES;
        return true;
    }

    /**
     * Loading: gives the group's pending entry {@code id} to consumer {@code c}; false when the group has no
     * such pending entry or it already has a consumer.
     */
    public boolean assignPending(StreamGroup g, StreamGroup.Consumer c, StreamId id) {
        StreamGroup.Pending p = g.pel.get(id);
        if (p == null || p.consumer != null) return false;
        p.consumer = c;
        c.pel.put(id, p);
        return true;
    }

    // ---------------------------------------------------------------- adding

    /**
     * Appends an entry of {@code nfields} field/value pairs from {@code argv[from]} (Redis's streamAppendItem).
     * {@code id} is null for an automatic ID from {@code nowMs}; otherwise an explicit ID whose sequence is
     * generated when {@code seqGiven} is false ({@code <ms>-*}). Returns the new ID, or null when that ID would
     * not be above the stream's last ID (including when the IDs are exhausted).
     */
    public StreamId add(StreamId id, boolean seqGiven, long nowMs, byte[][] argv, int from, int nfields,
                        long nodeMaxBytes, long nodeMaxEntries) {
        StreamId newId;
        if (id == null) {
            newId = Long.compareUnsigned(nowMs, lastId.ms()) > 0 ? new StreamId(nowMs, 0) : lastId.next();
        } else if (seqGiven) {
            newId = id;
        } else if (id.ms() == lastId.ms()) {
            if (lastId.seq() == -1L) return null;
            newId = new StreamId(id.ms(), lastId.seq() + 1);
        } else {
            newId = new StreamId(id.ms(), 0);
        }
        if (newId == null || newId.compareTo(lastId) <= 0) return null;

        long fieldBytes = 0;
        for (int i = 0; i < 2 * nfields; i++) fieldBytes += argv[from + i].length;
        StreamNode tail = nodeCount > 0 ? nodes[nodeCount - 1] : null;
        if (tail != null) {
            long maxBytes = nodeMaxBytes == 0 || nodeMaxBytes > LISTPACK_MAX_SIZE ? LISTPACK_MAX_SIZE : nodeMaxBytes;
            if (tail.listpackBytes() + fieldBytes >= maxBytes
                    || (nodeMaxEntries != 0 && tail.total() >= nodeMaxEntries)) {
                bytes += tail.trimToSize();
                tail = null;
            }
        }
        if (tail == null) {
            int spare = (int) Math.min(1024, 2 * (fieldBytes + 4L * nfields + 16));
            tail = new StreamNode(newId.ms(), newId.seq(), argv, from, nfields, spare);
            insertNode(nodeCount, tail);
        }
        bytes += tail.append(newId.ms(), newId.seq(), argv, from, nfields);
        length++;
        entriesAdded++;
        lastId = newId;
        if (length == 1) firstId = newId;
        return newId;
    }

    private void insertNode(int at, StreamNode n) {
        if (radix != null) {
            if (at == nodeCount) radix.append(n.masterMs, n.masterSeq);
            else radix = null;
        }
        if (nodeCount == nodes.length) {
            int cap = nodes.length + Math.max(2, nodes.length >> 1);
            bytes += pointerArrayBytes(cap) - pointerArrayBytes(nodes.length);
            nodes = Arrays.copyOf(nodes, cap);
        }
        System.arraycopy(nodes, at, nodes, at + 1, nodeCount - at);
        nodes[at] = n;
        nodeCount++;
        bytes += n.memoryBytes();
    }

    private void removeNode(int at) {
        radix = null;
        bytes -= nodes[at].memoryBytes();
        System.arraycopy(nodes, at + 1, nodes, at, nodeCount - at - 1);
        nodes[--nodeCount] = null;
        if (nodes.length > 8 && nodeCount < nodes.length / 4) {
            int cap = Math.max(2, nodes.length / 2);
            bytes += pointerArrayBytes(cap) - pointerArrayBytes(nodes.length);
            nodes = Arrays.copyOf(nodes, cap);
        }
    }

    private static long pointerArrayBytes(int n) {
        return 16 + ((4L * n + 7) & ~7L);
    }

    // ---------------------------------------------------------------- reading

    /** Index of the last node whose master ID is at most {@code id}, or -1. */
    private int floorNode(StreamId id) {
        int lo = 0;
        int hi = nodeCount - 1;
        int found = -1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            StreamNode n = nodes[mid];
            int c = Long.compareUnsigned(n.masterMs, id.ms());
            if (c == 0) c = Long.compareUnsigned(n.masterSeq, id.seq());
            if (c <= 0) {
                found = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
        return found;
    }

    /**
     * Live entries with IDs in {@code [start, end]}, ascending or ({@code rev}) descending, at most {@code count}
     * of them (0 for all).
     */
    public List<Entry> range(StreamId start, StreamId end, long count, boolean rev) {
        List<Entry> out = new ArrayList<>();
        if (start.compareTo(end) > 0 || length == 0) return out;
        StreamNode.Cursor c = new StreamNode.Cursor();
        if (!rev) {
            int i = Math.max(0, floorNode(start));
            for (; i < nodeCount; i++) {
                StreamNode n = nodes[i];
                byte[][] names = null;
                for (int p = n.entriesStart; p < n.used; ) {
                    p = n.read(p, c);
                    if (c.deleted() || c.compareTo(start.ms(), start.seq()) < 0) continue;
                    if (c.compareTo(end.ms(), end.seq()) > 0) return out;
                    if (names == null) names = n.masterNames();
                    out.add(new Entry(new StreamId(c.ms, c.seq), n.fieldsAndValues(c, names)));
                    if (count != 0 && out.size() == count) return out;
                }
            }
        } else {
            for (int i = floorNode(end); i >= 0; i--) {
                StreamNode n = nodes[i];
                byte[][] names = null;
                int[] offsets = n.offsets(c);
                for (int k = offsets.length - 1; k >= 0; k--) {
                    n.read(offsets[k], c);
                    if (c.deleted() || c.compareTo(end.ms(), end.seq()) > 0) continue;
                    if (c.compareTo(start.ms(), start.seq()) < 0) return out;
                    if (names == null) names = n.masterNames();
                    out.add(new Entry(new StreamId(c.ms, c.seq), n.fieldsAndValues(c, names)));
                    if (count != 0 && out.size() == count) return out;
                }
            }
        }
        return out;
    }

    /** The live entry with this ID, or null. */
    public Entry get(StreamId id) {
        List<Entry> r = range(id, id, 1, false);
        return r.isEmpty() ? null : r.get(0);
    }

    /** Whether a live entry has this ID. */
    public boolean contains(StreamId id) {
        StreamNode.Cursor c = new StreamNode.Cursor();
        int i = floorNode(id);
        if (i < 0) return false;
        StreamNode n = nodes[i];
        for (int p = n.entriesStart; p < n.used; ) {
            p = n.read(p, c);
            int cmp = c.compareTo(id.ms(), id.seq());
            if (cmp == 0) return !c.deleted();
            if (cmp > 0) return false;
        }
        return false;
    }

    /** The ID of the last live entry, or null when the stream is empty (Redis's streamLastValidID). */
    public StreamId lastValidId() {
        if (length == 0) return null;
        StreamNode.Cursor c = new StreamNode.Cursor();
        for (int i = nodeCount - 1; i >= 0; i--) {
            StreamNode n = nodes[i];
            int[] offsets = n.offsets(c);
            for (int k = offsets.length - 1; k >= 0; k--) {
                n.read(offsets[k], c);
                if (!c.deleted()) return new StreamId(c.ms, c.seq);
            }
        }
        return null;
    }

    /** The ID of the first live entry, or null when the stream is empty. */
    public StreamId firstValidId() {
        if (length == 0) return null;
        StreamNode.Cursor c = new StreamNode.Cursor();
        for (int i = 0; i < nodeCount; i++) {
            StreamNode n = nodes[i];
            for (int p = n.entriesStart; p < n.used; ) {
                p = n.read(p, c);
                if (!c.deleted()) return new StreamId(c.ms, c.seq);
            }
        }
        return null;
    }

    // ---------------------------------------------------------------- deleting and trimming

    /** Deletes the live entry with this ID (Redis's streamDeleteItem); false if there is none. */
    private boolean deleteEntry(StreamId id) {
        int i = floorNode(id);
        if (i < 0) return false;
        StreamNode n = nodes[i];
        StreamNode.Cursor c = new StreamNode.Cursor();
        for (int p = n.entriesStart; p < n.used; ) {
            p = n.read(p, c);
            int cmp = c.compareTo(id.ms(), id.seq());
            if (cmp > 0) return false;
            if (cmp == 0) {
                if (c.deleted()) return false;
                if (n.live == 1) removeNode(i);
                else n.markDeleted(c.offset);
                length--;
                return true;
            }
        }
        return false;
    }

    /** XDEL: deletes the entries with these IDs, updating the first and the largest deleted IDs. Returns how many went. */
    public long delete(StreamId[] ids) {
        long deleted = 0;
        boolean firstEntry = false;
        for (StreamId id : ids) {
            if (!deleteEntry(id)) continue;
            if (id.equals(firstId)) firstEntry = true;
            if (id.compareTo(maxDeletedId) > 0) maxDeletedId = id;
            deleted++;
        }
        if (deleted > 0) {
            if (length == 0) firstId = StreamId.ZERO;
            else if (firstEntry) firstId = firstValidId();
        }
        return deleted;
    }

    /**
     * Redis's streamTrim: removes the oldest entries while the stream is longer than {@code maxlen}
     * ({@link #TRIM_MAXLEN}) or while they are below {@code minId} ({@link #TRIM_MINID}). With {@code approx}
     * only whole nodes go; {@code limit} (0 = none) caps the entries removed. Returns how many went.
     */
    public long trim(int strategy, long maxlen, StreamId minId, boolean approx, long limit) {
        long deleted = 0;
        StreamNode.Cursor c = new StreamNode.Cursor();
        while (nodeCount > 0) {
            if (strategy == TRIM_MAXLEN && length <= maxlen) break;
            StreamNode n = nodes[0];
            long entries = n.live;
            if (limit != 0 && deleted + entries > limit) break;
            boolean removeNode = strategy == TRIM_MAXLEN
                    ? length - entries >= maxlen
                    : n.lastId(c).compareTo(minId) < 0;
            if (removeNode) {
                removeNode(0);
                length -= entries;
                deleted += entries;
                continue;
            }
            if (approx) break;
            for (int p = n.entriesStart; p < n.used; ) {
                p = n.read(p, c);
                boolean stop = strategy == TRIM_MAXLEN
                        ? length <= maxlen
                        : c.compareTo(minId.ms(), minId.seq()) >= 0;
                if (stop) break;
                if (!c.deleted()) {
                    n.markDeleted(c.offset);
                    length--;
                    deleted++;
                }
            }
            break;
        }
        if (length == 0) firstId = StreamId.ZERO;
        else if (deleted > 0) firstId = firstValidId();
        return deleted;
    }

    /** XSETID: sets the last ID and, when given ({@code entriesAdded >= 0}, {@code maxDeleted} non-zero), the counters. */
    public void setId(StreamId id, long newEntriesAdded, StreamId maxDeleted) {
        lastId = id;
        if (newEntriesAdded >= 0) entriesAdded = newEntriesAdded;
        if (!maxDeleted.isZero()) maxDeletedId = maxDeleted;
    }

    // ---------------------------------------------------------------- entries-read and lag

    /** Redis's streamRangeHasTombstones from {@code start} to the end of the stream. */
    public boolean hasTombstonesFrom(StreamId start) {
        if (length == 0 || maxDeletedId.isZero()) return false;
        if (firstId.compareTo(maxDeletedId) > 0) return false;
        return start.compareTo(maxDeletedId) <= 0;
    }

    /**
     * Redis's streamEstimateDistanceFromFirstEverEntry: the logical read counter of {@code id}, or
     * {@link StreamGroup#INVALID_ENTRIES_READ} when it cannot be known.
     */
    public long estimateDistance(StreamId id) {
        if (entriesAdded == 0) return 0;
        if (length == 0 && id.compareTo(lastId) < 1) return entriesAdded;
        int cmpLast = id.compareTo(lastId);
        if (cmpLast == 0) return entriesAdded;
        if (cmpLast > 0) return StreamGroup.INVALID_ENTRIES_READ;
        int cmpFirst = id.compareTo(firstId);
        if (maxDeletedId.isZero() || maxDeletedId.compareTo(firstId) < 0) {
            if (cmpFirst < 0) return entriesAdded - length;
            if (cmpFirst == 0) return entriesAdded - length + 1;
        }
        return StreamGroup.INVALID_ENTRIES_READ;
    }

    /** A group's {@code lag}, or null when it cannot be known (Redis 7.0's streamReplyWithCGLag). */
    public Long lag(StreamGroup g) {
        if (entriesAdded == 0) return 0L;
        if (g.entriesRead != StreamGroup.INVALID_ENTRIES_READ && !hasTombstonesFrom(g.lastId)) {
            return entriesAdded - g.entriesRead;
        }
        long read = estimateDistance(g.lastId);
        return read == StreamGroup.INVALID_ENTRIES_READ ? null : entriesAdded - read;
    }

    // ---------------------------------------------------------------- consumer groups

    public StreamGroup group(byte[] name) {
        return groups == null ? null : groups.get(name);
    }

    /** The groups in name order, read-only. */
    public Collection<StreamGroup> groups() {
        return groups == null ? List.of() : Collections.unmodifiableCollection(groups.values());
    }

    public int groupCount() {
        return groups == null ? 0 : groups.size();
    }

    /** Creates a group; null if one with that name exists. */
    public StreamGroup createGroup(byte[] name, StreamId last, long entriesRead) {
        if (groups == null) {
            groups = new TreeMap<>(Arrays::compareUnsigned);
            bytes += 48;
        }
        if (groups.containsKey(name)) return null;
        StreamGroup g = new StreamGroup(name, last, entriesRead);
        groups.put(name, g);
        bytes += GROUP_OVERHEAD + MemoryCost.bytes(name.length);
        return g;
    }

    /** Removes a group with its consumers and PEL; false if there was none. */
    public boolean destroyGroup(byte[] name) {
        StreamGroup g = group(name);
        if (g == null) return false;
        groups.remove(name);
        bytes -= GROUP_OVERHEAD + MemoryCost.bytes(name.length) + g.pel.size() * PENDING_BYTES;
        for (StreamGroup.Consumer c : g.consumers.values()) bytes -= CONSUMER_OVERHEAD + MemoryCost.bytes(c.name().length);
        return true;
    }

    /** XGROUP SETID. */
    public void setGroupId(StreamGroup g, StreamId id, long entriesRead) {
        g.lastId = id;
        g.entriesRead = entriesRead;
    }

    /** Creates a consumer seen at {@code nowMs}; null if the group has one with that name. */
    public StreamGroup.Consumer createConsumer(StreamGroup g, byte[] name, long nowMs) {
        if (g.consumers.containsKey(name)) return null;
        StreamGroup.Consumer c = new StreamGroup.Consumer(name, nowMs);
        g.consumers.put(name, c);
        bytes += CONSUMER_OVERHEAD + MemoryCost.bytes(name.length);
        return c;
    }

    /** The consumer with this name, created if needed, marked seen at {@code nowMs}. */
    public StreamGroup.Consumer consumerSeen(StreamGroup g, byte[] name, long nowMs) {
        StreamGroup.Consumer c = g.consumers.get(name);
        if (c == null) return createConsumer(g, name, nowMs);
        c.seenTime = nowMs;
        return c;
    }

    /** Deletes a consumer and its pending entries; returns how many it had pending, -1 if there was none. */
    public long deleteConsumer(StreamGroup g, byte[] name) {
        StreamGroup.Consumer c = g.consumers.remove(name);
        if (c == null) return -1;
        for (StreamId id : c.pel.keySet()) g.pel.remove(id);
        bytes -= CONSUMER_OVERHEAD + MemoryCost.bytes(name.length) + c.pel.size() * PENDING_BYTES;
        return c.pel.size();
    }

    /** XACK of one ID: true if it was pending. */
    public boolean ack(StreamGroup g, StreamId id) {
        StreamGroup.Pending p = g.pel.remove(id);
        if (p == null) return false;
        if (p.consumer != null) p.consumer.pel.remove(id);
        bytes -= PENDING_BYTES;
        return true;
    }

    private void dropPending(StreamGroup g, StreamId id, StreamGroup.Pending p) {
        g.pel.remove(id);
        if (p.consumer != null) p.consumer.pel.remove(id);
        bytes -= PENDING_BYTES;
    }

    /**
     * XREADGROUP with {@code >}: the entries after {@code after} (at most {@code count}, 0 for all), advancing
     * the group's last ID and read counter, and (unless {@code noack}) delivering them to {@code consumer}.
     */
    public List<Entry> readGroup(StreamGroup g, StreamGroup.Consumer consumer, StreamId after, long count,
                                 boolean noack, long nowMs) {
        StreamId start = after.next();
        if (start == null) return new ArrayList<>();
        List<Entry> out = range(start, StreamId.MAX, count, false);
        for (Entry e : out) {
            StreamId id = e.id();
            if (id.compareTo(g.lastId) > 0) {
                if (g.entriesRead != StreamGroup.INVALID_ENTRIES_READ && !hasTombstonesFrom(id)) {
                    g.entriesRead++;
                } else if (entriesAdded != 0) {
                    g.entriesRead = estimateDistance(id);
                }
                g.lastId = id;
            }
            if (noack) continue;
            StreamGroup.Pending p = g.pel.get(id);
            if (p == null) {
                p = new StreamGroup.Pending(nowMs, 1, consumer);
                g.pel.put(id, p);
                bytes += PENDING_BYTES;
            } else {
                if (p.consumer != null) p.consumer.pel.remove(id);
                p.consumer = consumer;
                p.deliveryTime = nowMs;
                p.deliveryCount = 1;
            }
            consumer.pel.put(id, p);
        }
        return out;
    }

    /**
     * XREADGROUP with an ID: the consumer's pending entries from {@code start} (at most {@code count}, 0 for
     * all); an entry deleted from the stream comes with null fields. Each one still present counts as delivered
     * again.
     */
    public List<Entry> readHistory(StreamGroup.Consumer consumer, StreamId start, long count, long nowMs) {
        List<Entry> out = new ArrayList<>();
        for (Map.Entry<StreamId, StreamGroup.Pending> e : consumer.pel.tailMap(start, true).entrySet()) {
            if (count != 0 && out.size() >= count) break;
            Entry entry = get(e.getKey());
            if (entry == null) {
                out.add(new Entry(e.getKey(), null));
            } else {
                e.getValue().deliveryTime = nowMs;
                e.getValue().deliveryCount++;
                out.add(entry);
            }
        }
        return out;
    }

    /** What XCLAIM asks for besides the IDs; {@code deliveryTime} and {@code retryCount} are -1 when not given. */
    public record ClaimOptions(long minIdle, long deliveryTime, long retryCount, boolean force, boolean justId,
                               StreamId lastId) {}

    /**
     * XCLAIM: moves each pending ID idle at least {@code minIdle} to the consumer named {@code consumerName}
     * (created on the first claim), dropping from the PEL the IDs whose entries were deleted. Returns the claimed
     * entries (with null fields under JUSTID).
     */
    public List<Entry> claim(StreamGroup g, byte[] consumerName, StreamId[] ids, ClaimOptions o, long nowMs) {
        if (o.lastId() != null && o.lastId().compareTo(g.lastId) > 0) g.lastId = o.lastId();
        long deliveryTime = o.deliveryTime();
        if (deliveryTime < 0 || deliveryTime > nowMs) deliveryTime = nowMs;
        StreamGroup.Consumer consumer = null;
        List<Entry> out = new ArrayList<>();
        for (StreamId id : ids) {
            StreamGroup.Pending p = g.pel.get(id);
            Entry entry = o.justId() ? null : get(id);
            if (o.justId() ? !contains(id) : entry == null) {
                if (p != null) dropPending(g, id, p);
                continue;
            }
            if (o.force() && p == null) {
                p = new StreamGroup.Pending(nowMs, 1, null);
                g.pel.put(id, p);
                bytes += PENDING_BYTES;
            }
            if (p == null) continue;
            if (p.consumer != null && o.minIdle() != 0 && nowMs - p.deliveryTime < o.minIdle()) continue;
            if (consumer == null) consumer = consumerSeen(g, consumerName, nowMs);
            if (p.consumer != consumer && p.consumer != null) p.consumer.pel.remove(id);
            p.deliveryTime = deliveryTime;
            if (o.retryCount() >= 0) p.deliveryCount = o.retryCount();
            else if (!o.justId()) p.deliveryCount++;
            if (p.consumer != consumer) {
                consumer.pel.put(id, p);
                p.consumer = consumer;
            }
            out.add(o.justId() ? new Entry(id, null) : entry);
        }
        return out;
    }

    /** XAUTOCLAIM's answer: the cursor for the next call, the claimed entries, the IDs dropped as deleted. */
    public record AutoClaim(StreamId next, List<Entry> claimed, List<StreamId> deleted) {}

    /**
     * XAUTOCLAIM: scans the PEL from {@code start}, claiming up to {@code count} entries idle at least
     * {@code minIdle} for the consumer named {@code consumerName} and dropping deleted ones, with at most
     * {@code count * 10} PEL entries looked at.
     */
    public AutoClaim autoClaim(StreamGroup g, byte[] consumerName, long minIdle, StreamId start, long count,
                               boolean justId, long nowMs) {
        long attempts = count * 10;
        StreamGroup.Consumer consumer = null;
        List<Entry> claimed = new ArrayList<>();
        List<StreamId> deleted = new ArrayList<>();
        StreamId cursor = start;
        boolean inclusive = true;
        Map.Entry<StreamId, StreamGroup.Pending> e = null;
        while (attempts-- > 0 && count > 0) {
            e = inclusive ? g.pel.ceilingEntry(cursor) : g.pel.higherEntry(cursor);
            if (e == null) break;
            StreamId id = e.getKey();
            StreamGroup.Pending p = e.getValue();
            cursor = id;
            inclusive = false;
            Entry entry = justId ? null : get(id);
            if (justId ? !contains(id) : entry == null) {
                dropPending(g, id, p);
                deleted.add(id);
                count--;
                continue;
            }
            if (minIdle != 0 && nowMs - p.deliveryTime < minIdle) continue;
            if (consumer == null) consumer = consumerSeen(g, consumerName, nowMs);
            if (p.consumer != consumer && p.consumer != null) p.consumer.pel.remove(id);
            p.deliveryTime = nowMs;
            if (!justId) p.deliveryCount++;
            if (p.consumer != consumer) {
                consumer.pel.put(id, p);
                p.consumer = consumer;
            }
            claimed.add(justId ? new Entry(id, null) : entry);
            count--;
        }
        Map.Entry<StreamId, StreamGroup.Pending> after = e == null ? null
                : inclusive ? g.pel.ceilingEntry(cursor) : g.pel.higherEntry(cursor);
        return new AutoClaim(after == null ? StreamId.ZERO : after.getKey(), claimed, deleted);
    }
}
