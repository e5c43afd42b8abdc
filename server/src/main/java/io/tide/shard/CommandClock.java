package io.tide.shard;

/**
 * The clock of the commands a shard thread runs, read as few times as their timing allows (decision 0024). Confined to
 * the shard's thread.
 *
 * <p>Each command needs the time it starts (its duration goes to INFO commandstats, the slow log and the latency
 * monitor) and the wall-clock milliseconds it runs at (key expiry, idle times). Read naively that is three calls of
 * the OS clock per command: a start, an end and the milliseconds. When requests run back to back (the requests one
 * read of a connection brings, a batch of hops on their target, a client's requests replayed after its hops), the end
 * of one command is the start of the next; and the milliseconds follow from the monotonic clock once the run has taken
 * both clocks together. So within a run the clock is read once per command (its end), plus twice when the run starts.
 *
 * <p>The chain holds only while the thread does nothing but run those requests: {@link #beginRun} and {@link #endRun}
 * bracket the run, {@link #start} takes the chain (so that a command that does not end through {@link #end} leaves
 * none for the next), and {@link #breakChain} drops it where other clients' commands run between two of the run's
 * (blocked clients served after a push). Outside a run every call reads the clocks.
 */
public final class CommandClock {
    private boolean inRun;
    private boolean chained;
    /** Where the chain stands: the end of the last command (or the run's start), in {@link System#nanoTime}. */
    private long mark;
    /** Both clocks, taken together when the run began. */
    private long runNanos;
    private long runMillis;

    /** Requests are about to run back to back. */
    public void beginRun() {
        long nanos = System.nanoTime();
        runMillis = System.currentTimeMillis();
        runNanos = nanos;
        mark = nanos;
        inRun = true;
        chained = true;
    }

    /** The run is over (idempotent). */
    public void endRun() {
        inRun = false;
        chained = false;
    }

    /** A command's start, in {@link System#nanoTime}: the chain's mark when it holds (and takes it), else the clock. */
    public long start() {
        if (chained) {
            chained = false;
            return mark;
        }
        return System.nanoTime();
    }

    /**
     * The wall-clock milliseconds at {@code startNanos} (from {@link #start}): derived from the run's two clocks
     * within a run (at most a millisecond behind {@link System#currentTimeMillis}, as that is behind the true time),
     * else read.
     */
    public long millis(long startNanos) {
        if (inRun) return runMillis + (startNanos - runNanos) / 1_000_000;
        return System.currentTimeMillis();
    }

    /** A command's end, in {@link System#nanoTime}; within a run it becomes the start of the next command. */
    public long end() {
        long nanos = System.nanoTime();
        if (inRun) {
            mark = nanos;
            chained = true;
        }
        return nanos;
    }

    /** Something other than the run's commands ran since the last {@link #end}: the next start reads the clock. */
    public void breakChain() {
        chained = false;
    }
}
