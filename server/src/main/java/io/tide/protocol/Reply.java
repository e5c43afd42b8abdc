package io.tide.protocol;

import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A reply value, independent of the wire protocol; {@link RespWriter} writes it as RESP2 or RESP3.
 * Immutable and thread-safe: replies are built on the shard that executed a command and written on
 * the connection's home shard.
 */
public sealed interface Reply {

    /** {@code +text}. */
    record Simple(String text) implements Reply {}

    /** {@code -CODE message}: {@code text} is the whole line without the leading dash. */
    record Error(String text) implements Reply {}

    /** {@code :n}. */
    record Int(long value) implements Reply {}

    /** {@code $len bytes}. */
    record Bulk(byte[] bytes) implements Reply {}

    /**
     * {@code $len bytes} of {@code array[offset, offset + length)}, kept by reference as {@link Bulk}'s array is: a
     * part of an array that nobody changes (a hashtable hash's field-and-value entry, decision 0033). Unlike a
     * {@link BulkView} it may be kept, and cross threads.
     */
    record Slice(byte[] array, int offset, int length) implements Reply {}

    /** RESP3 {@code _}; RESP2 {@code $-1}. */
    record NullBulk() implements Reply {}

    /** RESP3 {@code _}; RESP2 {@code *-1}. */
    record NullArray() implements Reply {}

    /** {@code *n}. */
    record Array(Reply[] items) implements Reply {}

    /** RESP3 {@code %n} with n key/value pairs laid out flat; RESP2 a flat array of 2n items. */
    record MapReply(Reply[] keysAndValues) implements Reply {}

    /** RESP3 {@code ~n}; RESP2 an array. */
    record SetReply(Reply[] items) implements Reply {}

    /** RESP3 {@code ,d}; RESP2 a bulk string in Redis's double formatting. */
    record Double(double value) implements Reply {}

    /** RESP3 {@code #t}/{@code #f}; RESP2 {@code :1}/{@code :0}. */
    record Bool(boolean value) implements Reply {}

    /** RESP3 {@code =len fmt:text}; RESP2 a bulk string of the text. */
    record Verbatim(String format, byte[] text) implements Reply {}

    /** RESP3 {@code (n}; RESP2 a bulk string. */
    record BigNumber(String digits) implements Reply {}

    /** RESP3 {@code >n}; RESP2 an array. */
    record Push(Reply[] items) implements Reply {}

    /** Bytes already encoded identically for RESP2 and RESP3; used for hot constant replies. */
    record Raw(byte[] encoded) implements Reply {}

    /**
     * An array of {@code count} bulk strings already encoded as RESP (the same bytes in RESP2 and RESP3), its
     * header included, in chunks of about {@value BulkArrayEncoder#CHUNK} bytes; built by {@link BulkArrayEncoder}.
     * Big replies (LRANGE of a long list, SMEMBERS of a big set) take this form so that they are neither one
     * object per element kept alive until written nor one buffer that must grow to the whole reply.
     * {@link BulkArrayEncoder#decode} turns it back into bulk strings for the few readers of replies (scripts).
     */
    record Encoded(int count, byte[][] chunks) implements Reply {}

    /**
     * A reply that is not known yet (WAIT): the client's place in the reply order is kept and filled, on its home
     * shard, once {@code reply} completes (from any thread). Never encoded: {@code ClientSession} resolves it.
     */
    record Later(java.util.concurrent.CompletableFuture<Reply> reply) implements Reply {}

    /**
     * A bulk string read in place from a stored entry, without a copy: a slice of an array the store owns and may
     * rewrite. Confined to the shard thread that made it, and valid only until that thread runs anything else: the
     * dispatcher writes it to the client's output at once (GET's reply, {@code CommandContext.readInPlace}), and a
     * reply that has to wait (behind earlier replies) is {@linkplain #settled settled} into a {@link Bulk} first. One
     * instance per shard's command context is reused by every such reply, so none allocates.
     */
    final class BulkView implements Reply {
        private byte[] array;
        private int offset;
        private int length;

        /** Points this view at {@code length} bytes of {@code array} from {@code offset}; returns it. */
        public BulkView of(byte[] array, int offset, int length) {
            this.array = array;
            this.offset = offset;
            this.length = length;
            return this;
        }

        public byte[] array() { return array; }
        public int offset() { return offset; }
        public int length() { return length; }

        /** A copy that stays valid: a plain {@link Bulk}. */
        public Bulk copy() {
            return new Bulk(java.util.Arrays.copyOfRange(array, offset, offset + length));
        }
    }

    /**
     * An integer reply beyond the shared ones (INCR's), reused as {@link BulkView} is: one instance per shard's command
     * context, written at once or {@linkplain #settled settled} into an {@link Int} when it must wait.
     */
    final class IntView implements Reply {
        private long value;

        /** Sets this view's value; returns it. */
        public IntView of(long v) {
            value = v;
            return this;
        }

        public long value() { return value; }
    }

    /** {@code r} as a value that may be kept: a view copied, any other reply itself. */
    static Reply settled(Reply r) {
        if (r instanceof BulkView v) return v.copy();
        if (r instanceof IntView i) return new Int(i.value());
        return r;
    }

    Reply OK = new Simple("OK");
    Reply PONG = new Simple("PONG");
    Reply NULL = new NullBulk();
    Reply NULL_ARRAY = new NullArray();
    Reply EMPTY_ARRAY = new Array(new Reply[0]);
    Reply ZERO = integer(0);
    Reply ONE = integer(1);

    /** An integer reply, shared for small values. */
    static Reply integer(long v) {
        if (v >= IntCache.LOW && v < IntCache.HIGH) {
            return IntCache.VALUES[(int) (v - IntCache.LOW)];
        }
        return new Int(v);
    }

    static Reply bulk(byte[] b) {
        return b == null ? NULL : new Bulk(b);
    }

    /** A bulk string of {@code a[off, off + len)}, an array nobody changes: a {@link Bulk} when that is all of it. */
    static Reply bulk(byte[] a, int off, int len) {
        return off == 0 && len == a.length ? new Bulk(a) : new Slice(a, off, len);
    }

    static Reply bulk(String s) {
        return s == null ? NULL : new Bulk(s.getBytes(StandardCharsets.UTF_8));
    }

    static Reply simple(String s) {
        return new Simple(s);
    }

    static Reply error(String fullText) {
        return new Error(fullText);
    }

    static Reply array(Reply... items) {
        return new Array(items);
    }

    static Reply array(List<? extends Reply> items) {
        return new Array(items.toArray(new Reply[0]));
    }

    static Reply map(Reply... keysAndValues) {
        return new MapReply(keysAndValues);
    }

    static Reply map(List<? extends Reply> keysAndValues) {
        return new MapReply(keysAndValues.toArray(new Reply[0]));
    }

    static Reply bulkArray(List<byte[]> items) {
        Reply[] out = new Reply[items.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = bulk(items.get(i));
        }
        return new Array(out);
    }

    /** Cache of small integer replies. */
    final class IntCache {
        static final int LOW = -16;
        static final int HIGH = 1024;
        static final Reply[] VALUES = new Reply[HIGH - LOW];

        static {
            for (int i = LOW; i < HIGH; i++) {
                VALUES[i - LOW] = new Int(i);
            }
        }

        private IntCache() {}
    }
}
