package io.tide.store;

import java.util.Arrays;

/**
 * Thread-safe (pure functions). Sizing of the byte arrays that keep a small collection's entries with room to grow in
 * place (a hash's and a set's listpack): a full array grows by a quarter (at least 16 bytes), about the spacing of the
 * allocator's size classes under Redis's listpack, so appends copy the entries O(1) times each while the spare room
 * stays under a fifth of the array; one more than half empty is trimmed.
 */
final class CompactArrays {

    private CompactArrays() {}

    /** {@code a}, or a copy of it with room for {@code need} bytes when it is shorter. */
    static byte[] ensure(byte[] a, int need) {
        if (need <= a.length) return a;
        long cap = Math.max(need, a.length + Math.max(a.length >> 2, 16));
        // Whole 8-byte words: an array's size is rounded up to them anyway.
        cap = Math.min((cap + 7) & ~7L, Integer.MAX_VALUE - 16);
        return Arrays.copyOf(a, (int) Math.max(cap, need));
    }

    /** {@code a}, or its first {@code used} bytes in whole words when more than half of it is unused. */
    static byte[] trim(byte[] a, int used) {
        return a.length - used > Math.max(used, 16) ? Arrays.copyOf(a, (used + 7) & ~7) : a;
    }
}
