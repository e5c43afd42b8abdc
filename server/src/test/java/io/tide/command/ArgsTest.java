package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ArgsTest {

    private static final long NOW = 1_000_000L;

    private static long secs(String s) {
        return Args.timeoutSeconds(s.getBytes(StandardCharsets.US_ASCII), NOW);
    }

    @Test
    void timeoutSeconds_parsesAsStrtold_andRoundsUpToMilliseconds() {
        assertThat(secs("0")).isZero();
        assertThat(secs("1.5")).isEqualTo(NOW + 1500);
        assertThat(secs("0.0001")).isEqualTo(NOW + 1);
        assertThat(secs("1e-1")).isEqualTo(NOW + 100);
        assertThat(secs("0x10")).isEqualTo(NOW + 16_000);
        assertThat(secs("0x0.8")).isEqualTo(NOW + 500);
        assertThat(secs("+2")).isEqualTo(NOW + 2000);
    }

    @Test
    void timeoutSeconds_rejectsWhatRedisRejects_withItsTexts() {
        assertThatThrownBy(() -> secs("-1")).hasMessage("ERR timeout is negative");
        assertThatThrownBy(() -> secs("abc")).hasMessage("ERR timeout is not a float or out of range");
        assertThatThrownBy(() -> secs(" 1")).hasMessage("ERR timeout is not a float or out of range");
        assertThatThrownBy(() -> secs("nan")).hasMessage("ERR timeout is not a float or out of range");
        assertThatThrownBy(() -> secs("1d")).hasMessage("ERR timeout is not a float or out of range");
        assertThatThrownBy(() -> secs("inf")).hasMessage("ERR timeout is out of range");
        assertThatThrownBy(() -> secs("1e400")).hasMessage("ERR timeout is out of range");
    }

    @Test
    void timeoutMillis_isAnInteger() {
        assertThat(Args.timeoutMillis("250".getBytes(StandardCharsets.US_ASCII), NOW)).isEqualTo(NOW + 250);
        assertThatThrownBy(() -> Args.timeoutMillis("1.5".getBytes(StandardCharsets.US_ASCII), NOW))
                .hasMessage("ERR timeout is not an integer or out of range");
        assertThatThrownBy(() -> Args.timeoutMillis("-5".getBytes(StandardCharsets.US_ASCII), NOW))
                .hasMessage("ERR timeout is negative");
    }
}
