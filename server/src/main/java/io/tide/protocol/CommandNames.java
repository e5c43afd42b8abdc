package io.tide.protocol;

import io.netty.buffer.ByteBuf;
import io.netty.util.internal.PlatformDependent;

/**
 * The command names the connections of one event loop sent lately, so that a repeated name arrives as an array
 * already made (a pipeline of GETs shares one "GET" array) while a connection holds none of its own: shared by the
 * {@link RespDecoder}s of one shard's connections, and used by that shard's thread only (docs/benchmarks/memory.md,
 * "Idle connections"). A name's set of two slots follows from its length and its first, second and last bytes; a new
 * name takes the first slot and moves the one there to the second. The arrays are never written to and never go back
 * to an {@link ArgvPool}.
 */
public final class CommandNames {

    private static final int SETS = 128;
    private final byte[][] names = new byte[2 * SETS][];

    private static int set(int length, int first, int second, int last) {
        int h = ((length * 31 + first) * 31 + second) * 31 + last;
        return (h * 0x9E3779B1) >>> 25;   // the top 7 bits: one of 128 sets
    }

    /** The remembered array equal to the {@code length} bytes at {@code address}, or null. */
    byte[] find(long address, int length) {
        int s = 2 * set(length, PlatformDependent.getByte(address), PlatformDependent.getByte(address + 1),
                PlatformDependent.getByte(address + length - 1));
        byte[] n = names[s];
        if (n != null && same(address, length, n)) return n;
        n = names[s + 1];
        return n != null && same(address, length, n) ? n : null;
    }

    /** The remembered array equal to the {@code length} bytes of {@code in} at {@code at}, or null. */
    byte[] find(ByteBuf in, int at, int length) {
        int s = 2 * set(length, in.getByte(at), in.getByte(at + 1), in.getByte(at + length - 1));
        byte[] n = names[s];
        if (n != null && same(in, at, length, n)) return n;
        n = names[s + 1];
        return n != null && same(in, at, length, n) ? n : null;
    }

    /** Remembers {@code name} (at least two bytes long); returns it. */
    byte[] remember(byte[] name) {
        int s = 2 * set(name.length, name[0], name[1], name[name.length - 1]);
        names[s + 1] = names[s];
        names[s] = name;
        return name;
    }

    private static boolean same(long address, int length, byte[] n) {
        if (n.length != length) return false;
        for (int i = 0; i < length; i++) {
            if (PlatformDependent.getByte(address + i) != n[i]) return false;
        }
        return true;
    }

    private static boolean same(ByteBuf in, int at, int length, byte[] n) {
        if (n.length != length) return false;
        for (int i = 0; i < length; i++) {
            if (in.getByte(at + i) != n[i]) return false;
        }
        return true;
    }
}
