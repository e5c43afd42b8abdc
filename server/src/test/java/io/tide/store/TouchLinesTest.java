package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The prefetch's last pass reads one byte per 64-byte line of a compact value's array, up to its first KB. */
class TouchLinesTest {

    @Test
    void readsTheFirstByteOfEachLine_upToTheCap_andNothingElse() {
        byte[] a = new byte[3000];
        java.util.Arrays.fill(a, (byte) 100); // every other byte would add 100
        for (int i = 0; i < a.length; i += 64) a[i] = 1;
        // 16 lines in the first 1024 bytes, plus the length the sum starts from.
        assertThat(CollectionValue.touchLines(a)).isEqualTo(3000 + CollectionValue.TOUCH_BYTES / 64);
        byte[] small = new byte[130]; // lines at 0, 64 and 128
        small[0] = 1;
        small[64] = 2;
        small[128] = 4;
        small[1] = 100;
        assertThat(CollectionValue.touchLines(small)).isEqualTo(130 + 7);
        assertThat(CollectionValue.touchLines(null)).isZero();
        assertThat(CollectionValue.touchLines(new byte[0])).isZero();
    }
}
