package io.tide.store;

/**
 * Thread-safe (pure functions). Memory estimates used by the keyspace's incremental accounting:
 * a byte array costs its header (12 bytes with compact object headers, the launcher's default; 16 without) plus its
 * length, rounded up to 8; a {@link Long} costs 16 bytes unless it is a {@linkplain SharedIntegers shared} instance; a
 * {@link Sized} value reports itself. References are counted as compressed (4 bytes), as they are below 32 GB of heap.
 */
public final class MemoryCost {

    /** Cost assumed for a value of a type this class does not know. */
    static final long UNKNOWN_OBJECT = 16;

    private MemoryCost() {
    }

    /** Estimated bytes held by {@code value}; 0 for null. */
    public static long of(Object value) {
        if (value instanceof byte[] b) {
            return bytes(b.length);
        }
        if (value instanceof Long) {
            return SharedIntegers.isShared(value) ? 0 : 16;
        }
        if (value instanceof Sized s) {
            return s.memoryBytes();
        }
        return value == null ? 0 : UNKNOWN_OBJECT;
    }

    /** Estimated bytes held by a key. */
    public static long ofKey(byte[] key) {
        return bytes(key.length);
    }

    /** Bytes of an array's header in this JVM. */
    static final int ARRAY_HEADER = compactHeaders() ? 12 : 16;

    /** A byte array of {@code length}: header plus payload, rounded up to 8. */
    public static long bytes(int length) {
        return (ARRAY_HEADER + length + 7L) & ~7L;
    }

    /** An array of {@code n} references. */
    public static long references(int n) {
        return (ARRAY_HEADER + 4L * n + 7L) & ~7L;
    }

    private static boolean compactHeaders() {
        // not HotSpot, or no such option: false, the classic 16-byte array header
        return io.tide.util.VmOptions.isTrue("UseCompactObjectHeaders");
    }
}
