package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Scores parsed without a String (ZSetCommands.exactDecimal) are the doubles the JDK's parser gives, bit for bit, and
 * ZADD's path without a record or a box (ZSetCommands.plainDecimal) accepts and refuses what the full strtod does.
 */
class ScoreParsingTest {

    private static void same(String text) {
        Double parsed = ZSetCommands.parseDouble(text.getBytes(StandardCharsets.ISO_8859_1));
        assertThat(parsed).as(text).isNotNull();
        assertThat(Double.doubleToRawLongBits(parsed)).as(text)
                .isEqualTo(Double.doubleToRawLongBits(Double.parseDouble(text)));
        assertThat(Double.doubleToRawLongBits(ZSetCommands.parseDouble(text.getBytes(StandardCharsets.ISO_8859_1),
                "ERR not a float"))).as(text).isEqualTo(Double.doubleToRawLongBits(parsed));
    }

    @Test
    void textsStrtodRefuses_areRefusedOnTheFastPathToo() {
        for (String t : new String[] {"", ".", "-", "+", "-.", "+.", "1.2.3", "..5", "1..", "--1", "+-1", "1-",
            " 1", "1 ", "0x", "1e", "12a", "nan", "1,5"}) {
            byte[] b = t.getBytes(StandardCharsets.ISO_8859_1);
            assertThat(ZSetCommands.parseDouble(b)).as(t).isNull();
            assertThat(ZSetCommands.plainDecimal(b)).as(t).isNaN();
            assertThatThrownBy(() -> ZSetCommands.parseDouble(b, "ERR not a float")).as(t)
                    .hasMessageContaining("not a float");
        }
        // Texts the fast path leaves to strtod still parse there.
        for (String t : new String[] {"1e3", "0x10", "inf", "-Infinity", "1234567890123456.5"}) {
            byte[] b = t.getBytes(StandardCharsets.ISO_8859_1);
            assertThat(ZSetCommands.plainDecimal(b)).as(t).isNaN();
            assertThat(ZSetCommands.parseDouble(b, "ERR not a float")).as(t).isNotNaN();
        }
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
