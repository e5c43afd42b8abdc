package io.tide.shard;

/**
 * The clock of the commands a shard thread runs, read as few times as their timing allows (decision 0024). Confined to
 * the shard's thread.
 *
 * <p>Each command needs the time it starts (its duration goes to INFO commandstats, the slow log and the latency
 * monitor) and the wall-clock milliseconds it runs at (key expiry, idle times). Read naively that is three calls of
 * the OS clock per command: a start, an end and the milliseconds. For the requests one read brings, run one after the
 * other on the connection's home shard, the end of one command is the start of the next; and the milliseconds follow
 * from the monotonic clock once the read has taken both clocks together. So within a read the clock is read once per
 * command (its end), plus twice when the read starts.
 *
 * <p>The chain holds only while the thread does nothing but run the read's commands: {@link #beginRead} and
 * {@link #endRead} bracket the read, {@link #start} takes the chain (so that a command that does not end through
 * {@link #end} leaves none for the next), and {@link #breakChain} drops it where other clients' commands run between
 * two of the read's (blocked clients served after a push). Outside a read every call reads the clocks.
 */
public final class CommandClock {
    private boolean inRead;
    private boolean chained;
    /** Where the chain stands: the end of the last command (or the read's start), in {@link System#nanoTime}. */
    private long mark;
    /** Both clocks, taken together when the read began. */
    private long readNanos;
    private long readMillis;

    /** A read's requests are about to run. */
    public void beginRead() {
        long nanos = System.nanoTime();
        readMillis = System.currentTimeMillis();
        readNanos = nanos;
        mark = nanos;
        inRead = true;
        chained = true;
    }

    /** The read's requests have all been handed on. */
    public void endRead() {
        inRead = false;
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
     * The wall-clock milliseconds at {@code startNanos} (from {@link #start}): derived from the read's two clocks
     * within a read (at most a millisecond behind {@link System#currentTimeMillis}, as that is behind the true time),
     * else read.
     */
    public long millis(long startNanos) {
        if (inRead) return readMillis + (startNanos - readNanos) / 1_000_000;
        return System.currentTimeMillis();
    }

    /** A command's end, in {@link System#nanoTime}; within a read it becomes the start of the next command. */
    public long end() {
        long nanos = System.nanoTime();
        if (inRead) {
            mark = nanos;
            chained = true;
        }
        return nanos;
    }

    /** Something other than the read's commands ran since the last {@link #end}: the next start reads the clock. */
    public void breakChain() {
        chained = false;
    }
}
