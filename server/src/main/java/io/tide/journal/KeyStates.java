package io.tide.journal;

import io.tide.store.Database;
import io.tide.store.RawString;
import java.nio.charset.StandardCharsets;

/**
 * The journalled form of a key's current state, for operations whose writes span shards: each shard records the
 * state its keys ended in, so that its part can be replayed alone. Thread-safe (stateless); called on the thread
 * that owns the database.
 */
public final class KeyStates {

    private static final byte[] DEL = bytes("DEL");
    private static final byte[] SET = bytes("SET");
    private static final byte[] PXAT = bytes("PXAT");
    private static final byte[] RESTORE = bytes("RESTORE");
    private static final byte[] REPLACE = bytes("REPLACE");
    private static final byte[] ABSTTL = bytes("ABSTTL");
    private static final byte[] ZERO = bytes("0");

    private KeyStates() {}

    /**
     * Commands that turn any state of {@code key} into its current one: DEL when it is absent; SET (with PXAT) for
     * a string; DEL then RESTORE ... REPLACE ABSTTL with the DUMP payload for any other type.
     */
    public static byte[][][] of(Database db, byte[] key, long nowMs) {
        Object v = db.peek(key, nowMs);
        if (v == null) return new byte[][][] {{DEL, key}};
        return ofValue(key, v, db.expireAt(key));
    }

    /** The commands that create {@code key} with value {@code v} and absolute expiry {@code at} (0: none). */
    public static byte[][][] ofValue(byte[] key, Object v, long at) {
        if (v instanceof byte[] || v instanceof Long || v instanceof RawString) {
            // A RawString is copied: it may change in place before the journal writes these commands.
            byte[] value = v instanceof byte[] b ? b : v instanceof RawString r ? r.bytes() : bytes(Long.toString((Long) v));
            return at > 0 ? new byte[][][] {{SET, key, value, PXAT, bytes(Long.toString(at))}}
                    : new byte[][][] {{SET, key, value}};
        }
        byte[] payload = io.tide.persistence.rdb.Dump.serialize(v);
        return new byte[][][] {{RESTORE, key, at > 0 ? bytes(Long.toString(at)) : ZERO, payload, REPLACE, ABSTTL}};
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
