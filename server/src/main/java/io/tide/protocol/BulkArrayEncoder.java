package io.tide.protocol;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Confined to the thread that builds one reply: encodes an array of bulk strings straight into RESP bytes, in chunks
 * of {@value #CHUNK} bytes, as {@link Reply.Encoded}. Each element is copied once, into the chunk, so a command that
 * reads ten million elements keeps no per-element object alive and the reply is written to the socket chunk by chunk
 * without one buffer growing to its whole size.
 */
public final class BulkArrayEncoder {

    /** Size of a chunk: well under a G1 region's half, so no chunk is a humongous object. */
    public static final int CHUNK = 64 * 1024;
    /** Arrays with at least this many elements are worth encoding ahead; smaller ones stay {@link Reply.Array}. */
    public static final int THRESHOLD = 1024;

    private final int count;
    private final List<byte[]> chunks = new ArrayList<>();
    private byte[] chunk = new byte[CHUNK];
    private int pos;
    private int added;

    /** Starts an array of exactly {@code count} elements. */
    public BulkArrayEncoder(int count) {
        if (count < 0) throw new IllegalArgumentException("count " + count);
        this.count = count;
        header('*', count);
    }

    /** Array of {@code items}: {@link Reply.Encoded} when there are at least {@link #THRESHOLD}, else plain. */
    public static Reply of(byte[][] items) {
        if (items.length < THRESHOLD) {
            Reply[] out = new Reply[items.length];
            for (int i = 0; i < out.length; i++) out[i] = Reply.bulk(items[i]);
            return new Reply.Array(out);
        }
        BulkArrayEncoder e = new BulkArrayEncoder(items.length);
        for (byte[] item : items) e.add(item);
        return e.build();
    }

    /** Appends one bulk string (never null: a null's bytes differ between RESP2 and RESP3). */
    public BulkArrayEncoder add(byte[] bulk) {
        if (added == count) throw new IllegalStateException("more than " + count + " elements");
        added++;
        int len = bulk.length;
        if (chunk.length - pos >= len + MAX_HEADER + 2) { // the common case: the whole element fits in this chunk
            pos = writeHeader(chunk, pos, '$', len);
            System.arraycopy(bulk, 0, chunk, pos, len);
            pos += len;
            chunk[pos++] = '\r';
            chunk[pos++] = '\n';
            return this;
        }
        header('$', len);
        put(bulk, 0, len);
        put(CRLF, 0, 2);
        return this;
    }

    /** The finished reply. */
    public Reply.Encoded build() {
        if (added != count) throw new IllegalStateException(added + " of " + count + " elements");
        if (pos > 0) chunks.add(pos == chunk.length ? chunk : Arrays.copyOf(chunk, pos));
        chunk = null;
        return new Reply.Encoded(count, chunks.toArray(new byte[0][]));
    }

    private static final byte[] CRLF = {'\r', '\n'};
    /** Longest header: type, 19 digits, CRLF. */
    private static final int MAX_HEADER = 22;

    private void header(char type, long n) {
        byte[] h = new byte[MAX_HEADER];
        put(h, 0, writeHeader(h, 0, type, n));
    }

    /** Writes {@code <type><n>\r\n} (n >= 0) at {@code at}; returns the index after it. */
    private static int writeHeader(byte[] b, int at, char type, long n) {
        b[at++] = (byte) type;
        int digits = 1;
        for (long t = n; t >= 10; t /= 10) digits++;
        int end = at + digits;
        for (int i = end - 1; i >= at; i--) {
            b[i] = (byte) ('0' + n % 10);
            n /= 10;
        }
        b[end] = '\r';
        b[end + 1] = '\n';
        return end + 2;
    }

    private void put(byte[] src, int off, int len) {
        while (len > 0) {
            if (pos == chunk.length) {
                chunks.add(chunk);
                chunk = new byte[CHUNK];
                pos = 0;
            }
            int n = Math.min(len, chunk.length - pos);
            System.arraycopy(src, off, chunk, pos, n);
            pos += n;
            off += n;
            len -= n;
        }
    }

    /** The elements of an encoded array, for readers of replies (a script's {@code redis.call}). */
    public static Reply[] decode(Reply.Encoded e) {
        Reader r = new Reader(e.chunks());
        if (r.next() != '*' || r.number() != e.count()) throw new IllegalStateException("not an encoded array");
        Reply[] out = new Reply[e.count()];
        for (int i = 0; i < out.length; i++) {
            if (r.next() != '$') throw new IllegalStateException("not a bulk string");
            out[i] = new Reply.Bulk(r.bytes((int) r.number()));
            r.next();
            r.next();
        }
        return out;
    }

    /** Reads the chunks of an encoded array in order. */
    private static final class Reader {
        private final byte[][] chunks;
        private int index;
        private int pos;

        Reader(byte[][] chunks) {
            this.chunks = chunks;
        }

        int next() {
            while (pos == chunks[index].length) {
                index++;
                pos = 0;
            }
            return chunks[index][pos++];
        }

        /** The decimal number up to CRLF, which it consumes. */
        long number() {
            long v = 0;
            for (int c = next(); c != '\r'; c = next()) v = v * 10 + (c - '0');
            next();
            return v;
        }

        byte[] bytes(int len) {
            byte[] out = new byte[len];
            int done = 0;
            while (done < len) {
                if (pos == chunks[index].length) {
                    index++;
                    pos = 0;
                    continue;
                }
                int n = Math.min(len - done, chunks[index].length - pos);
                System.arraycopy(chunks[index], pos, out, done, n);
                pos += n;
                done += n;
            }
            return out;
        }
    }
}
