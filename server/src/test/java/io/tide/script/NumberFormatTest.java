package io.tide.script;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import org.junit.jupiter.api.Test;

class NumberFormatTest {

    @Test
    void g14_printsLikeCsPrintf() {
        assertThat(NumberFormat.g14(100)).isEqualTo("100");
        assertThat(NumberFormat.g14(-7)).isEqualTo("-7");
        assertThat(NumberFormat.g14(99999999999999.0)).isEqualTo("99999999999999");
        assertThat(NumberFormat.g14(100000000000000.0)).isEqualTo("1e+14");
        assertThat(NumberFormat.g14(1.5)).isEqualTo("1.5");
        assertThat(NumberFormat.g14(0.1)).isEqualTo("0.1");
        assertThat(NumberFormat.g14(1e-5)).isEqualTo("1e-05");
        assertThat(NumberFormat.g14(-0.0)).isEqualTo("-0");
    }

    @Test
    void integerFastPath_agreesWithTheGeneralPath() {
        Random rnd = new Random(5);
        for (int i = 0; i < 20_000; i++) {
            long v = rnd.nextLong() % 100_000_000_000_000L;
            // Integers under 10^14 are exact doubles and print as their decimal digits under %.14g.
            String expected = new java.math.BigDecimal(v).toPlainString();
            assertThat(NumberFormat.g14((double) v)).isEqualTo(expected);
        }
    }
}
