package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The listpack of a small sorted set: every score reads back as the same double, in the fewest bytes its form allows. */
class ZSetListpackTest {

    private static double roundTrip(double score) {
        ZSetListpack lp = new ZSetListpack();
        lp.insert("m".getBytes(StandardCharsets.UTF_8), score);
        assertThat(lp.bytes()).isEqualTo(ZSetListpack.entrySize(1, score));
        return lp.score(lp.first());
    }

    @Test
    void scores_readBackBitForBit() {
        double[] cases = {0, 1, 127, 128, -1, -128, -129, 12.5, -12.5, 0.1, 0.3, 0.1 + 0.2, 1.0 / 3, Math.PI,
            1733370000000.0, 1733370000000.5, 9007199254740992.0, -9007199254740992.0, 9007199254740993.0, 1e17, 1e300,
            -1e300, 1e-300, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE, Double.POSITIVE_INFINITY,
            Double.NEGATIVE_INFINITY, 123456.789, 0.000001, 1e-14, 1.5e-14};
        for (double d : cases) {
            assertThat(Double.doubleToRawLongBits(roundTrip(d))).as("score %s", d).isEqualTo(Double.doubleToRawLongBits(d));
        }
        assertThat(Double.doubleToRawLongBits(roundTrip(-0.0))).as("-0 is stored as 0, as Redis's listpack")
                .isEqualTo(Double.doubleToRawLongBits(0.0));
        Random rnd = new Random(7);
        for (int i = 0; i < 200_000; i++) {
            double d = switch (i % 4) {
                case 0 -> Double.longBitsToDouble(rnd.nextLong());
                case 1 -> rnd.nextInt(1_000_000) / Math.pow(10, rnd.nextInt(8));
                case 2 -> (double) rnd.nextLong();
                default -> rnd.nextGaussian() * 1000;
            };
            if (Double.isNaN(d) || d == 0) continue;
            assertThat(Double.doubleToRawLongBits(roundTrip(d))).as("score %s", d).isEqualTo(Double.doubleToRawLongBits(d));
        }
    }

    @Test
    void scores_takeTheBytesOfTheirShortestForm() {
        assertThat(ZSetListpack.scoreSize(0)).isEqualTo(1);
        assertThat(ZSetListpack.scoreSize(127)).isEqualTo(1);
        assertThat(ZSetListpack.scoreSize(128)).isEqualTo(3); // 0x0080 needs two bytes signed
        assertThat(ZSetListpack.scoreSize(-1)).isEqualTo(2);
        assertThat(ZSetListpack.scoreSize(12.5)).isEqualTo(3); // 0x4029000000000000
        assertThat(ZSetListpack.scoreSize(99.5)).isEqualTo(4); // 0x4058E00000000000
        assertThat(ZSetListpack.scoreSize(-0.5)).isEqualTo(3); // 0xBFE0000000000000
        assertThat(ZSetListpack.scoreSize(1733370000000.0)).isEqualTo(7); // an integer of 41 bits
        assertThat(ZSetListpack.scoreSize(0.1 + 0.2)).isEqualTo(9);
        assertThat(ZSetListpack.scoreSize(Double.POSITIVE_INFINITY)).isEqualTo(3); // 0x7FF0000000000000
    }

    @Test
    void mixedForms_keepScoreThenMemberOrder() {
        Random rnd = new Random(11);
        ZSetListpack lp = new ZSetListpack();
        List<Object[]> model = new ArrayList<>();
        for (int i = 0; i < 120; i++) {
            double d = switch (i % 3) {
                case 0 -> rnd.nextInt(300) - 150;
                case 1 -> (rnd.nextInt(3000) - 1500) / 10.0;
                default -> rnd.nextGaussian() * 100;
            };
            byte[] m = ("m" + i).getBytes(StandardCharsets.UTF_8);
            int at = lp.findOrInsertionPoint(m, d);
            assertThat(at).isNegative();
            lp.insertAt(-at - 1, m, d);
            model.add(new Object[] {d, "m" + i});
        }
        model.sort(Comparator.<Object[]>comparingDouble(e -> (double) e[0]).thenComparing(e -> (String) e[1]));
        int off = lp.first();
        for (Object[] e : model) {
            assertThat(lp.score(off)).isEqualTo((double) e[0]);
            assertThat(new String(lp.member(off), StandardCharsets.UTF_8)).isEqualTo(e[1]);
            off = lp.next(off);
        }
        assertThat(off).isEqualTo(lp.end());
    }
}
