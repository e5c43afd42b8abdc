package io.tide.replication;

/**
 * Confined to the replication thread. The replication backlog: the last {@code size} bytes of the replication stream
 * in a ring, with the global offset of its first byte, so that a replica that reconnects can continue from where it
 * was.
 */
final class Backlog {

    private byte[] ring;
    /** Next write position in {@link #ring}. */
    private int head;
    /** Bytes held (at most {@code ring.length}). */
    private int histlen;
    /** Global offset of the newest byte held (the master_repl_offset); the first is {@code end - histlen + 1}. */
    private long end;

    Backlog(int size, long offset) {
        ring = new byte[size];
        end = offset;
    }

    int size() {
        return ring.length;
    }

    int histlen() {
        return histlen;
    }

    /** Redis's repl_backlog_first_byte_offset: the offset of the oldest byte held (the next one when empty). */
    long firstByteOffset() {
        return end - histlen + 1;
    }

    void append(byte[] b, int off, int len) {
        end += len;
        if (len >= ring.length) {
            System.arraycopy(b, off + len - ring.length, ring, 0, ring.length);
            head = 0;
            histlen = ring.length;
            return;
        }
        int first = Math.min(len, ring.length - head);
        System.arraycopy(b, off, ring, head, first);
        System.arraycopy(b, off + first, ring, 0, len - first);
        head = (head + len) % ring.length;
        histlen = Math.min(ring.length, histlen + len);
    }

    /** Whether the bytes from global offset {@code from} (the next one a replica wants) to the end are held. */
    boolean covers(long from) {
        return from >= firstByteOffset() && from <= end + 1;
    }

    /** The bytes from global offset {@code from} to the end; {@link #covers} must hold. */
    byte[] from(long from) {
        int n = (int) (end + 1 - from);
        byte[] out = new byte[n];
        int start = Math.floorMod(head - n, ring.length);
        int first = Math.min(n, ring.length - start);
        System.arraycopy(ring, start, out, 0, first);
        System.arraycopy(ring, 0, out, first, n - first);
        return out;
    }

    /** CONFIG SET repl-backlog-size: keeps the newest bytes that fit. */
    void resize(int size) {
        if (size == ring.length) return;
        int keep = Math.min(histlen, size);
        byte[] tail = from(end + 1 - keep);
        ring = new byte[size];
        System.arraycopy(tail, 0, ring, 0, keep);
        head = keep % size;
        histlen = keep;
    }
}
