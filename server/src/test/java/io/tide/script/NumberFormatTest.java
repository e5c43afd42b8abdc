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

    /** glibc printf's outputs (bash's printf builtin) for these doubles; Java's String.format differs on each tie. */
    @Test
    void f_roundsTheExactBinaryValue_tiesToEven_asCsPrintf() {
        assertThat(NumberFormat.f(0.125, 2)).isEqualTo("0.12"); // String.format: 0.13
        assertThat(NumberFormat.f(0.375, 2)).isEqualTo("0.38");
        assertThat(NumberFormat.f(1.005, 2)).isEqualTo("1.00"); // 1.00499999999999989...; String.format: 1.01
        assertThat(NumberFormat.f(2.675, 2)).isEqualTo("2.67"); // String.format: 2.68
        assertThat(NumberFormat.f(0.5, 0)).isEqualTo("0");
        assertThat(NumberFormat.f(2.5, 0)).isEqualTo("2");
        assertThat(NumberFormat.f(1.5, 0)).isEqualTo("2");
        assertThat(NumberFormat.f(99.9, 6)).isEqualTo("99.900000");
        assertThat(NumberFormat.f(-0.001, 2)).isEqualTo("-0.00");
        assertThat(NumberFormat.f(-0.0, 2)).isEqualTo("-0.00");
        assertThat(NumberFormat.f(1234.5678, 4)).isEqualTo("1234.5678");
        assertThat(NumberFormat.f(Double.POSITIVE_INFINITY, 2)).isEqualTo("inf");
        assertThat(NumberFormat.f(Double.NaN, 2)).isEqualTo("nan");
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
