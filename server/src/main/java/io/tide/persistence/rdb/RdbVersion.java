package io.tide.persistence.rdb;

import java.nio.charset.StandardCharsets;

/**
 * Thread-safe (constants). The RDB format's version numbers, value type codes and opcodes, as Redis's
 * {@code rdb.h} has them up to RDB version 12 (Redis 7.4).
 *
 * <p>Redis 8.6+ (versions 13 and later) and Valkey ({@code VALKEY} magic, versions 80 and later) give other
 * meanings to codes above 21 and opcodes below 244, so a file's magic and version are checked
 * ({@link #checkHeader}) before any type byte is read, and what Tide does not know is refused by name.
 */
public final class RdbVersion {

    /** Oldest version Tide reads. */
    public static final int MIN_READ = 1;
    /** Newest version Tide reads: Redis 7.4's. */
    public static final int MAX_READ = 12;
    /** What Tide writes: Redis 7.0's version, which every Redis from 7.0 on loads. */
    public static final int WRITE = 10;
    /** What Tide writes when a hash has field TTLs (only Redis 7.4+ can hold those). */
    public static final int WRITE_FIELD_TTLS = 12;

    // Value types.
    public static final int TYPE_STRING = 0;
    public static final int TYPE_LIST = 1;
    public static final int TYPE_SET = 2;
    public static final int TYPE_ZSET = 3;
    public static final int TYPE_HASH = 4;
    public static final int TYPE_ZSET_2 = 5;
    public static final int TYPE_MODULE_PRE_GA = 6;
    public static final int TYPE_MODULE_2 = 7;
    public static final int TYPE_HASH_ZIPMAP = 9;
    public static final int TYPE_LIST_ZIPLIST = 10;
    public static final int TYPE_SET_INTSET = 11;
    public static final int TYPE_ZSET_ZIPLIST = 12;
    public static final int TYPE_HASH_ZIPLIST = 13;
    public static final int TYPE_LIST_QUICKLIST = 14;
    public static final int TYPE_STREAM_LISTPACKS = 15;
    public static final int TYPE_HASH_LISTPACK = 16;
    public static final int TYPE_ZSET_LISTPACK = 17;
    public static final int TYPE_LIST_QUICKLIST_2 = 18;
    public static final int TYPE_STREAM_LISTPACKS_2 = 19;
    public static final int TYPE_SET_LISTPACK = 20;
    public static final int TYPE_STREAM_LISTPACKS_3 = 21;
    /** Hash with field TTLs, 7.4 release candidates: absolute TTL per field. */
    public static final int TYPE_HASH_METADATA_PRE_GA = 22;
    /** Listpack hash with field TTLs, 7.4 release candidates: no minimum expiry in front. */
    public static final int TYPE_HASH_LISTPACK_EX_PRE_GA = 23;
    /** Hash with field TTLs: minimum expiry first, then per field its TTL relative to it (+1; 0 = none). */
    public static final int TYPE_HASH_METADATA = 24;
    /** Listpack hash with field TTLs: minimum expiry first, then a listpack of field, value, TTL triplets. */
    public static final int TYPE_HASH_LISTPACK_EX = 25;

    // Opcodes.
    public static final int OPCODE_SLOT_INFO = 244;
    public static final int OPCODE_FUNCTION2 = 245;
    public static final int OPCODE_FUNCTION_PRE_GA = 246;
    public static final int OPCODE_MODULE_AUX = 247;
    public static final int OPCODE_IDLE = 248;
    public static final int OPCODE_FREQ = 249;
    public static final int OPCODE_AUX = 250;
    public static final int OPCODE_RESIZEDB = 251;
    public static final int OPCODE_EXPIRETIME_MS = 252;
    public static final int OPCODE_EXPIRETIME = 253;
    public static final int OPCODE_SELECTDB = 254;
    public static final int OPCODE_EOF = 255;

    // Module serialization opcodes (inside MODULE_AUX and TYPE_MODULE_2 values).
    static final int MODULE_OPCODE_EOF = 0;
    static final int MODULE_OPCODE_SINT = 1;
    static final int MODULE_OPCODE_UINT = 2;
    static final int MODULE_OPCODE_FLOAT = 3;
    static final int MODULE_OPCODE_DOUBLE = 4;
    static final int MODULE_OPCODE_STRING = 5;

    // Quicklist 2 node containers.
    static final int QUICKLIST_NODE_PLAIN = 1;
    static final int QUICKLIST_NODE_PACKED = 2;

    /** Header length: "REDIS" and four version digits. */
    public static final int HEADER_LENGTH = 9;

    private RdbVersion() {}

    /** The 9-byte header for {@code version}. */
    public static byte[] header(int version) {
        return String.format("REDIS%04d", version).getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * The version in a 9-byte file header; refuses Valkey files, unknown magic and versions outside
     * {@link #MIN_READ}..{@link #MAX_READ}, naming what it found.
     */
    public static int checkHeader(byte[] h) {
        if (h.length < HEADER_LENGTH) throw new RdbFormatException("not an RDB file: header too short");
        String magic = new String(h, 0, 5, StandardCharsets.ISO_8859_1);
        if (magic.equals("VALKE")) {
            throw new RdbFormatException("unsupported RDB file: Valkey format (\""
                    + new String(h, 0, HEADER_LENGTH, StandardCharsets.ISO_8859_1) + "\"); this Tide reads Redis RDB 1.."
                    + MAX_READ);
        }
        if (!magic.equals("REDIS")) throw new RdbFormatException("not an RDB file: wrong signature");
        int v = 0;
        for (int i = 5; i < 9; i++) {
            int d = h[i] - '0';
            if (d < 0 || d > 9) throw new RdbFormatException("not an RDB file: bad version digits");
            v = v * 10 + d;
        }
        checkVersion(v);
        return v;
    }

    /** Refuses a version this Tide cannot read, naming it. */
    public static void checkVersion(int v) {
        if (v < MIN_READ || v > MAX_READ) {
            throw new RdbFormatException("unsupported RDB version " + v + " (this Tide reads " + MIN_READ + ".."
                    + MAX_READ + ")");
        }
    }

    /** Whether {@code type} is a value type code (rdbIsObjectType up to version 12). */
    public static boolean isValueType(int type) {
        return (type >= 0 && type <= 7) || (type >= 9 && type <= 25);
    }
}
