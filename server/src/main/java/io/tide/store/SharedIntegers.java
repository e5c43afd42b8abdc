package io.tide.store;

/**
 * Thread-safe (an immutable cache built once). Shared {@link Long} instances for 0..9999, so that small
 * integer values, like Redis's shared integers, cost no object per key.
 */
public final class SharedIntegers {

    /** Values in {@code [0, LIMIT)} are shared. */
    public static final int LIMIT = 10_000;

    private static final Long[] CACHE = new Long[LIMIT];

    static {
        for (int i = 0; i < LIMIT; i++) {
            CACHE[i] = Long.valueOf(i);
        }
    }

    private SharedIntegers() {
    }

    /** The shared instance for 0..9999, otherwise {@link Long#valueOf(long)}. */
    public static Long valueOf(long v) {
        return v >= 0 && v < LIMIT ? CACHE[(int) v] : Long.valueOf(v);
    }

    /** True if {@code o} is (by identity) one of the shared instances. */
    public static boolean isShared(Object o) {
        if (o instanceof Long l) {
            long v = l;
            return v >= 0 && v < LIMIT && CACHE[(int) v] == o;
        }
        return false;
    }
}
