package io.tide.store;

import java.util.Arrays;

/**
 * Confined to the owning database's shard thread. Where a {@link Database}'s entries live (decision 0018): byte
 * arrays of up to {@link #MAX_SLAB} bytes that entries are appended to, each entry found by an {@code int} reference
 * ({@code slab index << OFFSET_BITS | offset / 4}). The collector sees a few arrays without references instead of one object
 * per key, so its work no longer grows with the number of keys, and an entry costs no object header.
 *
 * <p>Entries are appended to the <em>fill</em> slab. A freed entry leaves a hole ({@link #release}); a slab whose
 * live bytes fall under half of what it holds becomes a compaction candidate, and the database moves its live entries
 * to the fill slab a few at a time ({@link Database}'s compaction step), after which the emptied slab is dropped. An
 * entry larger than {@link #OWN_SLAB_ABOVE} gets a slab of its own, dropped with it. The first slabs of a database are
 * small (4 KB, doubling), so that a database of a few keys holds a few KB.
 *
 * <p>References are never 0 (offset 0 is not used) and never -1 (no entry fits in the last 4 bytes of a slab): those
 * two values mark empty slots and tombstones in the tables.
 */
final class Slabs {

    /** Room left for the array's header in a slab's power of two (the header is 12 or 16 bytes). */
    private static final int HEADROOM = 16;
    /**
     * log2 of the largest slab with its header: G1's region size (decision 0018). A full slab is then a humongous
     * object that fills its region exactly: G1 allocates it straight in the old generation and never copies it, where
     * a smaller slab was allocated young and copied once or twice on its way to the old generation, and entries
     * rewritten elsewhere (a value that changed size, compaction) went through the young collections' copying again.
     * Each slab is a power of two less {@link #HEADROOM}, so that with the array header it fills regions exactly.
     */
    static final int SLAB_BITS = slabBits(System.getProperty("tide.slab-size"), Runtime.getRuntime().maxMemory());
    /** Bits of a reference that hold the offset, in 4-byte units; the rest hold the slab's index. */
    private static final int OFFSET_BITS = SLAB_BITS - 2;
    private static final int OFFSET_MASK = (1 << OFFSET_BITS) - 1;
    /** Largest slab. */
    static final int MAX_SLAB = (1 << SLAB_BITS) - HEADROOM;
    /** Size of a database's first slab (plus {@link #HEADROOM}); each new one doubles, up to {@link #MAX_SLAB}. */
    private static final int FIRST_SLAB = 1 << 12;
    /** Entries larger than this get a slab of their own. */
    static final int OWN_SLAB_ABOVE = 1 << 14;
    /** As many slabs as the references' index bits count: 16 GB of entries per database on one shard. */
    private static final int MAX_SLABS = 1 << (32 - OFFSET_BITS);
    /** Where entries of a fresh slab begin (offset 0 would make the reference 0). */
    private static final int START = 4;

    /** The slabs by index; null where an index is free. */
    byte[][] arr = new byte[4][];
    /** Live entry bytes per slab. */
    private int[] live = new int[4];
    /** End of the appended entries per slab (the fill slab's is {@link #pos}). */
    private int[] end = new int[4];
    /** Whether a slab is queued for compaction. */
    private boolean[] queued = new boolean[4];
    /** Indexes below this have been handed out at least once. */
    private int count;
    private int[] freeIdx = new int[4];
    private int freeCount;
    private int fill = -1;
    private int pos;
    private int nextSize = FIRST_SLAB;
    /** Compaction candidates, a FIFO ring. */
    private int[] sparse = new int[4];
    private int sparseHead;
    private int sparseSize;
    /** Bytes of all slabs held, and of the live entries in them. */
    private long heldBytes;
    private long liveBytes;

    /**
     * {@link #SLAB_BITS} for a {@code tide.slab-size} property (bytes, or null) and the JVM's maximum heap: the
     * property's power of two, else the region size G1 chooses for that heap when it is left to choose (the heap over
     * 2048, rounded up to a power of two, between 1 MB and 32 MB); a property's between 256 KB and 32 MB. With another collector,
     * or with {@code -XX:G1HeapRegionSize} set to another size, slabs of this size are still correct, only copied.
     */
    static int slabBits(String property, long maxHeap) {
        long size = property != null ? Long.parseLong(property.trim()) : maxHeap / 2048;
        int bits = 64 - Long.numberOfLeadingZeros(Math.max(1, size) - 1); // rounded up to a power of two
        return Math.clamp(bits, property != null ? 18 : 20, 25);
    }

    static byte[] slab(byte[][] arr, int ref) {
        return arr[ref >>> OFFSET_BITS];
    }

    static int offset(int ref) {
        return (ref & OFFSET_MASK) << 2;
    }

    /** The reference of the entry at {@code offset} of slab {@code idx}. */
    static int ref(int idx, int offset) {
        return idx << OFFSET_BITS | offset >>> 2;
    }

    /** {@code n} rounded up to the entries' 4-byte alignment. */
    static int aligned(int n) {
        return (n + 3) & ~3;
    }

    /** Bytes of all slabs held, live entries, holes and the fill slab's unused tail. */
    long heldBytes() {
        return heldBytes;
    }

    /** Bytes of the slabs not holding live entries: the holes freed entries left, the fill slab's unused tail. */
    long slackBytes() {
        return heldBytes - liveBytes;
    }

    /**
     * Space for an entry of {@code size} bytes (a multiple of 4); returns its reference. Valid until {@link #release}d;
     * the bytes are zero only in a new slab, so the caller writes every byte it will read.
     */
    int allocate(int size) {
        if (size > OWN_SLAB_ABOVE) {
            int idx = newIndex();
            install(idx, new byte[START + size]);
            end[idx] = START + size;
            live[idx] = size;
            liveBytes += size;
            return ref(idx, START);
        }
        if (fill < 0 || pos + size > arr[fill].length) {
            retireFill();
            int idx = newIndex();
            int len = nextSize;
            while (len - HEADROOM < START + size) len <<= 1; // at most 32 KB: larger entries have their own
            nextSize = Math.min(1 << SLAB_BITS, len << 1);
            install(idx, new byte[len - HEADROOM]);
            fill = idx;
            pos = START;
        }
        int ref = ref(fill, pos);
        pos += size;
        live[fill] += size;
        liveBytes += size;
        return ref;
    }

    /** Frees the {@code size} bytes of the entry at {@code ref}; an emptied slab is dropped, a sparse one queued. */
    void release(int ref, int size) {
        int idx = ref >>> OFFSET_BITS;
        int l = live[idx] -= size;
        liveBytes -= size;
        if (idx == fill) {
            return;
        }
        if (l == 0) {
            drop(idx);
        } else if (!queued[idx] && sparse(l, end[idx])) {
            queued[idx] = true;
            enqueue(idx);
        }
    }

    /** The next slab to compact, or -1; it stays the next one until it has been emptied. */
    int nextSparse() {
        while (sparseSize > 0) {
            int idx = sparse[sparseHead];
            if (queued[idx]) return idx;
            sparseHead = (sparseHead + 1) & (sparse.length - 1);
            sparseSize--;
        }
        return -1;
    }

    /** Whether slab {@code idx} waits for compaction (false once it has been emptied and dropped). */
    boolean isQueued(int idx) {
        return queued[idx];
    }

    /** End of the entries appended to slab {@code idx}. */
    int endOf(int idx) {
        return idx == fill ? pos : end[idx];
    }

    /** Live bytes of slab {@code idx} (for tests). */
    int liveOf(int idx) {
        return live[idx];
    }

    /** Slabs held (for tests and MEMORY STATS). */
    int slabCount() {
        return count - freeCount;
    }

    private void retireFill() {
        if (fill < 0) return;
        int idx = fill;
        end[idx] = pos;
        fill = -1;
        if (live[idx] == 0) {
            drop(idx);
        } else if (sparse(live[idx], pos)) {
            queued[idx] = true;
            enqueue(idx);
        }
    }

    /**
     * Whether a slab whose entries end at {@code end} is sparse with {@code live} bytes: under 3/4 live. Compacting it
     * moves at most three bytes per byte it frees, and the holes never take more than a third of the live bytes
     * beyond the slabs waiting in the queue: the heap sized from maxmemory (maxmemory / 0.7) has room for that.
     */
    private static boolean sparse(int live, int end) {
        return live < (long) (end - START) * 3 / 4;
    }

    private void drop(int idx) {
        heldBytes -= arr[idx].length;
        arr[idx] = null;
        queued[idx] = false;
        live[idx] = 0;
        end[idx] = 0;
        if (freeCount == freeIdx.length) freeIdx = Arrays.copyOf(freeIdx, freeCount * 2);
        freeIdx[freeCount++] = idx;
    }

    private void install(int idx, byte[] slab) {
        arr[idx] = slab;
        heldBytes += slab.length;
    }

    private int newIndex() {
        if (freeCount > 0) return freeIdx[--freeCount];
        if (count == MAX_SLABS) {
            throw new IllegalStateException("a database on one shard holds at most " + MAX_SLABS
                    + " slabs of entries (16 GB): use more shards");
        }
        if (count == arr.length) {
            int n = arr.length * 2;
            arr = Arrays.copyOf(arr, n);
            live = Arrays.copyOf(live, n);
            end = Arrays.copyOf(end, n);
            queued = Arrays.copyOf(queued, n);
        }
        return count++;
    }

    private void enqueue(int idx) {
        if (sparseSize == sparse.length) {
            int[] n = new int[sparse.length * 2];
            for (int k = 0; k < sparseSize; k++) n[k] = sparse[(sparseHead + k) & (sparse.length - 1)];
            sparse = n;
            sparseHead = 0;
        }
        sparse[(sparseHead + sparseSize) & (sparse.length - 1)] = idx;
        sparseSize++;
    }
}
