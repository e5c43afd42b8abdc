package io.tide.command.family;

import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Strings longer than the inline limit that APPEND, SETRANGE, SETBIT and BITFIELD change where they lie
 * ({@code store.RawString}), against a real redis-server (two Tide shards): random writes and reads, with the reads
 * that could see a change made after them if a reply shared the string's array (GET inside MULTI and in a script
 * before a write in the same transaction, COPY then a write to either copy, GETSET and GETDEL), in RESP2 and RESP3.
 */
class LongStringWritesVsRedisTest extends VsRedis {

    private static final String SCRIPT = "local v = redis.call('GET', KEYS[1]); "
            + "redis.call('SETRANGE', KEYS[1], ARGV[1], 'QQ'); redis.call('SETBIT', KEYS[1], ARGV[2], 1); "
            + "redis.call('APPEND', KEYS[1], 'w'); return {v, redis.call('GET', KEYS[1])}";

    LongStringWritesVsRedisTest() {
        super("ls");
    }

    private static String text(Random rnd, int n) {
        StringBuilder b = new StringBuilder(n);
        for (int i = 0; i < n; i++) b.append((char) ('a' + rnd.nextInt(26)));
        return b.toString();
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void randomWrites_andReadsThatCouldShareTheArray_answerAsRedis(int proto) throws IOException {
        protocol(proto);
        Random rnd = new Random(20261206L + proto);
        String[] keys = {k("a"), k("b"), k("c"), k("d")};
        // Four ways to a long string: SET (kept as it is), APPEND from nothing, SETRANGE far out, SETBIT far out.
        same("SET", keys[0], text(rnd, 1500));
        same("APPEND", keys[1], text(rnd, 1100));
        same("SETRANGE", keys[2], "1200", "x");
        same("SETBIT", keys[3], "10000", "1");
        for (int step = 0; step < 600; step++) {
            String key = keys[rnd.nextInt(keys.length)];
            long len = Long.parseLong(same("STRLEN", key).substring(1).trim());
            String off = Long.toString(rnd.nextInt((int) len + 200));
            String bit = Long.toString(rnd.nextInt((int) len * 8 + 800));
            switch (rnd.nextInt(20)) {
                case 0, 1 -> same("APPEND", key, text(rnd, 1 + rnd.nextInt(300)));
                case 2, 3 -> same("SETRANGE", key, off, text(rnd, 1 + rnd.nextInt(20)));
                case 4, 5 -> same("SETBIT", key, bit, Integer.toString(rnd.nextInt(2)));
                case 6 -> same("BITFIELD", key, "OVERFLOW", rnd.nextBoolean() ? "SAT" : "FAIL", "INCRBY", "i5", bit,
                        Integer.toString(rnd.nextInt(40) - 20), "SET", "u8", "#" + rnd.nextInt((int) len + 10),
                        Integer.toString(rnd.nextInt(256)), "GET", "u16", off);
                case 7 -> {
                    same("GETBIT", key, bit);
                    same("BITFIELD_RO", key, "GET", "i13", bit);
                }
                case 8 -> {
                    same("BITCOUNT", key);
                    same("BITCOUNT", key, Integer.toString(rnd.nextInt(50) - 25), Integer.toString(-rnd.nextInt(40)));
                    same("BITCOUNT", key, off, Long.toString(len * 8 - rnd.nextInt(100)), "BIT");
                }
                case 9 -> {
                    same("BITPOS", key, Integer.toString(rnd.nextInt(2)));
                    same("BITPOS", key, "0", off);
                    same("BITPOS", key, "1", Integer.toString(-rnd.nextInt(30)), "-1", rnd.nextBoolean() ? "BIT" : "BYTE");
                }
                case 10 -> {
                    same("GETRANGE", key, off, Integer.toString(rnd.nextInt((int) len + 50) - 25));
                    same("OBJECT", "ENCODING", key);
                    same("TYPE", key);
                }
                case 11 -> same("GET", key);
                case 12 -> {
                    same("MULTI");
                    same("GET", key);
                    same("SETBIT", key, bit, "1");
                    same("APPEND", key, "zz");
                    same("SETRANGE", key, "0", "MULTI");
                    same("GET", key);
                    same("EXEC");
                }
                case 13 -> same("EVAL", SCRIPT, "1", key, off, bit);
                case 14 -> {
                    String copy = keys[rnd.nextInt(keys.length)];
                    if (copy.equals(key)) break;
                    same("COPY", key, copy, "REPLACE");
                    same("SETRANGE", copy, "3", "copy");
                    same("APPEND", key, "orig");
                    same("SETBIT", copy, bit, "1");
                    same("GET", key);
                    same("GET", copy);
                }
                case 15 -> {
                    same("MULTI");
                    same("GETSET", key, text(rnd, 1100));
                    same("APPEND", key, "after");
                    same("EXEC");
                }
                case 16 -> {
                    same("MULTI");
                    same("GETDEL", key);
                    same("SETRANGE", key, "1100", "again");
                    same("EXEC");
                }
                case 17 -> {
                    same("INCR", key);
                    same("PFADD", key, "x");
                    same("LPUSH", key, "x");
                }
                case 18 -> {
                    same("EXPIRE", key, "1000");
                    same("SETBIT", key, bit, "1");
                    same("TTL", key);
                    same("PERSIST", key);
                }
                default -> same("STRLEN", key);
            }
        }
        for (String key : keys) same("GET", key);
    }
}
