package io.tide.testing;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A reader on another thread against an owner on this one, each in a loop, for a while: what a figure read across
 * threads must survive. The outcome holds the first throwable of either (the run stops at it) and how often each ran.
 */
public final class Race {

    public record Outcome(Throwable failure, long ownerRuns, long readerRuns) {}

    private Race() {}

    public static Outcome run(Runnable owner, Runnable reader, long millis) throws InterruptedException {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] reads = new long[1];
        Thread other = new Thread(() -> {
            try {
                while (!stop.get()) {
                    reader.run();
                    reads[0]++;
                }
            } catch (Throwable t) {
                failure.compareAndSet(null, t);
            }
        }, "race-reader");
        other.start();
        long end = System.nanoTime() + millis * 1_000_000L;
        long runs = 0;
        try {
            while (System.nanoTime() < end && failure.get() == null) {
                owner.run();
                runs++;
            }
        } catch (Throwable t) {
            failure.compareAndSet(null, t);
        } finally {
            stop.set(true);
            other.join();
        }
        return new Outcome(failure.get(), runs, reads[0]);
    }
}
