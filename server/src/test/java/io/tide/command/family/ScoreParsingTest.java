package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Scores parsed without a String (ZSetCommands.exactDecimal) are the doubles the JDK's parser gives, bit for bit. */
class ScoreParsingTest {

    private static void same(String text) {
        Double parsed = ZSetCommands.parseDouble(text.getBytes(StandardCharsets.ISO_8859_1));
        assertThat(parsed).as(text).isNotNull();
        assertThat(Double.doubleToRawLongBits(parsed)).as(text)
                .isEqualTo(Double.doubleToRawLongBits(Double.parseDouble(text)));
    }

    @Test
    void decimalsOfUpTo17DigitsParseAsTheJdkParsesThem() {
        for (String t : new String[] {"0", "-0", "+0", "1", "-1", "42", "1700000000", "3.25", ".5", "5.", "-.5",
            "0.1", "0.3", "123456789012345", "1234567890123456", "0.000000000000001", "999999999999999.9",
            "9007199254740993", "1.7976931348623157", "2.5e3", "1e-5", "00000000000000001.5"}) {
            same(t);
        }
        SplittableRandom r = new SplittableRandom(42);
        for (int n = 0; n < 200_000; n++) {
            int len = 1 + r.nextInt(17);
            StringBuilder b = new StringBuilder();
            if (r.nextInt(4) == 0) b.append('-');
            int dot = r.nextInt(3) == 0 ? -1 : r.nextInt(len + 1);
            for (int i = 0; i < len; i++) {
                if (i == dot) b.append('.');
                b.append((char) ('0' + r.nextInt(10)));
            }
            if (dot == len) b.append('.');
            if (r.nextInt(8) == 0) b.append('e').append(r.nextInt(40) - 20);
            same(b.toString());
        }
    }
}
