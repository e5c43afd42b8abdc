package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The listpack scans' member comparison agrees with a plain comparison of the bytes, whatever the length. */
class MemberScanTest {

    @Test
    void equalsAt_agreesWithArraysEquals_forEveryLengthAndEveryDifferingByte() {
        Random rnd = new Random(7);
        for (int n = 0; n <= 40; n++) {
            byte[] m = new byte[n];
            rnd.nextBytes(m);
            long tail = MemberScan.tail(m, 0, n);
            for (int at = 0; at < 3; at++) {
                byte[] buf = new byte[at + n + 5];
                rnd.nextBytes(buf);
                System.arraycopy(m, 0, buf, at, n);
                assertThat(MemberScan.equalsAt(buf, at, m, tail)).as("equal, n=%d at=%d", n, at).isTrue();
                for (int i = 0; i < n; i++) {
                    byte[] other = buf.clone();
                    other[at + i] ^= (byte) (1 << rnd.nextInt(8));
                    assertThat(MemberScan.equalsAt(other, at, m, tail)).as("byte %d differs, n=%d", i, n)
                            .isEqualTo(Arrays.equals(other, at, at + n, m, 0, n)).isFalse();
                }
            }
        }
    }
}
