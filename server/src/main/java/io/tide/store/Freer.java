package io.tide.store;

/**
 * Thread-safe (implementations must be). Where {@link Database} hands what it deletes: Redis's lazy freeing
 * (lazyfree.c). UNLINK, FLUSHDB/FLUSHALL ASYNC and, under the {@code lazyfree-lazy-*} parameters ({@link #lazy}),
 * DEL, expiry and the implicit deletes of overwrites offer a deleted value with {@link #free}; a value whose
 * {@link #effort} exceeds {@link #THRESHOLD} is freed in the background and counted, any other inline.
 */
public interface Freer {

    /** Redis's LAZYFREE_THRESHOLD. */
    long THRESHOLD = 64;

    /** Policy bits: which deletions are lazy besides UNLINK and FLUSH ... ASYNC. */
    int USER_DEL = 1;
    int EXPIRE = 2;
    int SERVER_DEL = 4;
    int EVICTION = 8;

    /** Frees everything inline and counts nothing (a database outside a server). */
    Freer INLINE = new Freer() {
        @Override public boolean lazy(int kind) { return false; }
        @Override public boolean free(Object value) { return false; }
        @Override public void freeDatabase(Object contents, long keys) { }
    };

    /** Whether deletions of kind {@code kind} (a policy bit) are lazy. */
    boolean lazy(int kind);

    /**
     * Redis's freeObjAsync: a value whose free effort exceeds {@link #THRESHOLD} goes to the background (counted);
     * any other is dropped by the caller. Returns whether it was handed over.
     */
    boolean free(Object value);

    /** Redis's emptyDbAsync: the dropped contents of a database of {@code keys} keys, all counted. */
    void freeDatabase(Object contents, long keys);

    /**
     * Redis's lazyfreeGetFreeEffort: the nodes of a quicklist, the elements of a hashtable set or hash or of a
     * B+ tree sorted set, a stream's nodes plus its groups times (1 + the first group's pending entries); 1 for
     * anything else (one allocation).
     */
    static long effort(Object value) {
        return switch (value) {
            case ListValue l -> l.encodingName().equals("quicklist") ? l.nodeCount() : 1;
            case SetValue s -> s.encodingName().equals("hashtable") ? s.size() : 1;
            case HashValue h -> h.encodingName().equals("hashtable") ? h.size() : 1;
            case ZSetValue z -> z.isListpack() ? 1 : z.size();
            case StreamValue s -> {
                long e = s.nodeCount();
                if (s.groupCount() > 0) e += (long) s.groupCount() * (1 + s.groups().iterator().next().pendingCount());
                yield e;
            }
            default -> 1;
        };
    }
}
