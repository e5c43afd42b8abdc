package io.tide.protocol;

import io.netty.util.concurrent.FastThreadLocal;

/**
 * Argument arrays handed back after a command that kept none of them, for the decoder of the same thread to fill again
 * (decision 0028): a request's argv is then no allocation in steady state. One pool per thread (an event loop's
 * connections decode and run their commands on it), never shared.
 *
 * <p>Taking is always safe: a pooled array is one nobody refers to any more. Giving back is where the danger is: an
 * array given back while something still holds it is overwritten under that holder by a later request, possibly another
 * client's. So only {@link io.tide.command.Dispatcher} gives back, once per request, after a command whose handler said
 * it kept nothing and while nothing that keeps arguments by reference is on (see the decision for the list).
 */
public final class ArgvPool {

    /** Longest argument pooled; a key or a short value. */
    public static final int MAX_LENGTH = 64;
    /** Most argument arrays pooled (excluding the name) per length, and argv arrays per argument count. */
    static final int DEPTH = 64;
    /** Most arguments of a pooled argv (the {@code byte[][]} itself): GET, SET, HGET and the like. */
    static final int MAX_ARGC = 4;
    /** Most arguments of a request whose arrays are taken back: a longer one would cost more to check than to allocate. */
    static final int MAX_GIVEN = 32;

    private static final FastThreadLocal<ArgvPool> POOLS = new FastThreadLocal<>() {
        @Override
        protected ArgvPool initialValue() {
            return new ArgvPool();
        }
    };

    private final byte[][][] bytes = new byte[MAX_LENGTH + 1][][];
    private final int[] byteCounts = new int[MAX_LENGTH + 1];
    private final byte[][][][] argvs = new byte[MAX_ARGC + 1][][][];
    private final int[] argvCounts = new int[MAX_ARGC + 1];

    private ArgvPool() {
    }

    /** This thread's pool. */
    public static ArgvPool current() {
        return POOLS.get();
    }

    /** An array of exactly {@code length} bytes whose contents are stale: the caller overwrites all of it. */
    byte[] bytes(int length) {
        if (length > 0 && length <= MAX_LENGTH) {
            int n = byteCounts[length];
            if (n > 0) {
                byte[][] stack = bytes[length];
                byte[] b = stack[--n];
                stack[n] = null;
                byteCounts[length] = n;
                return b;
            }
        }
        return new byte[length];
    }

    /** An argv of exactly {@code n} slots, stale: the caller fills every one. */
    byte[][] argv(int n) {
        if (n <= MAX_ARGC) {
            int c = argvCounts[n];
            if (c > 0) {
                byte[][][] stack = argvs[n];
                byte[][] a = stack[--c];
                stack[c] = null;
                argvCounts[n] = c;
                return a;
            }
        }
        return new byte[n][];
    }

    /**
     * Takes back {@code argv} and its arguments, all but the command name (the decoder shares name arrays between
     * requests); nothing of a request of more than {@value #MAX_GIVEN} arguments. The caller guarantees that nothing
     * refers to any of them any more.
     */
    public void give(byte[][] argv) {
        int n = argv.length;
        if (n > MAX_GIVEN) return;
        for (int i = 1; i < n; i++) {
            byte[] b = argv[i];
            int len = b.length;
            if (len == 0 || len > MAX_LENGTH || byteCounts[len] == DEPTH || b == argv[0] || repeated(argv, i)) continue;
            byte[][] stack = bytes[len];
            if (stack == null) stack = bytes[len] = new byte[DEPTH][];
            stack[byteCounts[len]++] = b;
        }
        if (n <= MAX_ARGC && argvCounts[n] < DEPTH) {
            byte[][][] stack = argvs[n];
            if (stack == null) stack = argvs[n] = new byte[DEPTH][][];
            stack[argvCounts[n]++] = argv;
        }
    }

    /** Whether {@code argv[i]} is the same array as an earlier argument: it goes back once. */
    private static boolean repeated(byte[][] argv, int i) {
        for (int j = 1; j < i; j++) if (argv[j] == argv[i]) return true;
        return false;
    }

    /** Arrays of {@code length} bytes held; for tests. */
    int held(int length) {
        return byteCounts[length];
    }
}
