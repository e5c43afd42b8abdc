package io.tide.store;

/**
 * Thread-safe (pure functions). Memory estimates used by the keyspace's incremental accounting:
 * a byte array costs a 16-byte header plus its length rounded up to 8, a {@link Long} costs 16 bytes
 * unless it is a {@linkplain SharedIntegers shared} instance, a {@link Sized} value reports itself.
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

    /** A byte array of {@code length}: 16-byte header plus the payload rounded up to 8. */
    public static long bytes(int length) {
        return 16 + ((length + 7L) & ~7L);
    }
}
