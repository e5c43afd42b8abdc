package io.tide.persistence.rdb;

/** Placeholder replaced by the RDB codec branch (wip-rdb) before this lands. */
public final class Dump {
    private Dump() {}

    public static byte[] serialize(Object value) {
        throw new UnsupportedOperationException("DUMP payloads arrive with the RDB codec");
    }
}
