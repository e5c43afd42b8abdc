package io.tide.util;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** CRC16-XMODEM four bytes at a time, against the bit-by-bit definition and Redis Cluster's slots. */
class Crc16Test {

    /** The definition: polynomial 0x1021, MSB first, initial value 0, one bit at a time. */
    private static int bitwise(byte[] b, int from, int to) {
        int crc = 0;
        for (int i = from; i < to; i++) {
            crc ^= (b[i] & 0xff) << 8;
            for (int k = 0; k < 8; k++) crc = (crc & 0x8000) != 0 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
        }
        return crc;
    }

    @Test
    void everyLengthAndOffset_matchesTheBitwiseDefinition() {
        SplittableRandom rnd = new SplittableRandom(42);
        for (int round = 0; round < 200; round++) {
            byte[] b = new byte[80];
            for (int i = 0; i < b.length; i++) b[i] = (byte) rnd.nextInt(256);
            for (int from = 0; from < 5; from++) {
                for (int to = from; to <= b.length; to++) {
                    assertThat(Crc16.of(b, from, to)).as("from %d to %d", from, to).isEqualTo(bitwise(b, from, to));
                }
            }
        }
    }

    @Test
    void knownValues_andRedisClusterSlots() {
        byte[] check = "123456789".getBytes(StandardCharsets.US_ASCII);
        assertThat(Crc16.of(check, 0, check.length)).isEqualTo(0x31C3); // CRC-16/XMODEM's check value
        // CLUSTER KEYSLOT on Redis: foo 12182, bar 5061, hash tags, an empty tag (the whole key).
        assertThat(Crc16.slot(bytes("foo"))).isEqualTo(12182);
        assertThat(Crc16.slot(bytes("bar"))).isEqualTo(5061);
        assertThat(Crc16.slot(bytes("{user1000}.following"))).isEqualTo(Crc16.slot(bytes("user1000")));
        assertThat(Crc16.slot(bytes("{user1000}.followers"))).isEqualTo(Crc16.slot(bytes("{user1000}.following")));
        assertThat(Crc16.slot(bytes("foo{}{bar}"))).isEqualTo(Crc16.of(bytes("foo{}{bar}"), 0, 10) & 16383);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.US_ASCII);
    }
}
