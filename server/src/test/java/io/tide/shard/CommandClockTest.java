package io.tide.shard;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The command clock's chain (decision 0024): where it hands on a command's end, and where it reads the clock. */
class CommandClockTest {
    private final CommandClock clock = new CommandClock();

    private static void pause() throws InterruptedException {
        Thread.sleep(2);
    }

    @Test
    void withinARun_eachCommandStartsWhereTheLastEnded() throws InterruptedException {
        clock.beginRun();
        long first = clock.start();
        pause();
        long end = clock.end();
        assertThat(end - first).isGreaterThanOrEqualTo(2_000_000L);
        pause();
        assertThat(clock.start()).isEqualTo(end);
        pause();
        assertThat(clock.end() - end).isGreaterThanOrEqualTo(4_000_000L);
    }

    @Test
    void aStartWithoutAnEndInBetween_readsTheClock() throws InterruptedException {
        clock.beginRun();
        long first = clock.start();
        pause();
        assertThat(clock.start() - first).isGreaterThanOrEqualTo(2_000_000L);
    }

    @Test
    void aBrokenChain_readsTheClock() throws InterruptedException {
        clock.beginRun();
        clock.start();
        long end = clock.end();
        clock.breakChain();
        pause();
        assertThat(clock.start() - end).isGreaterThanOrEqualTo(2_000_000L);
    }

    @Test
    void afterTheRun_theEndIsNotHandedOn() throws InterruptedException {
        clock.beginRun();
        clock.start();
        long end = clock.end();
        clock.endRun();
        pause();
        assertThat(clock.start() - end).isGreaterThanOrEqualTo(2_000_000L);
        long end2 = clock.end();
        pause();
        assertThat(clock.start() - end2).isGreaterThanOrEqualTo(2_000_000L);
    }

    @Test
    void theMillisecondsFollowTheWallClock_inARunAndOutside() throws InterruptedException {
        long before = System.currentTimeMillis();
        clock.beginRun();
        clock.start();
        Thread.sleep(30);
        long at = clock.millis(clock.end());
        long after = System.currentTimeMillis();
        assertThat(at).isBetween(before + 29, after);
        clock.endRun();
        long outside = clock.millis(clock.start());
        assertThat(outside).isBetween(after, System.currentTimeMillis());
    }
}
