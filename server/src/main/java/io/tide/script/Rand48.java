package io.tide.script;

/**
 * Redis's {@code redisLrand48}: the POSIX rand48 generator behind {@code math.random}, the same sequence on
 * every platform. Like Redis 7.0 (which no longer reseeds before each script, scripts being replicated by
 * effects), the sequence continues from one script to the next. Confined to the thread running scripts.
 */
final class Rand48 {

    static final long MAX = Integer.MAX_VALUE;
    private long x;

    void seed(long seed) {
        x = ((seed << 16) | 0x330E) & 0xFFFF_FFFF_FFFFL;
    }

    /** A value in [0, 2^31). */
    long next() {
        x = (x * 0x5DEECE66DL + 0xB) & 0xFFFF_FFFF_FFFFL;
        return x >>> 17;
    }

    /** Redis's {@code redis_math_random} base value in [0, 1). */
    double nextDouble() {
        return (next() % MAX) / (double) MAX;
    }
}
