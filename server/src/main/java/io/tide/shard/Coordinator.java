package io.tide.shard;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs multi-shard operations atomically. Thread-safe.
 *
 * <p>One coordinator thread takes operations one at a time. For each it posts a barrier task to every
 * shard the operation needs; each shard thread, on reaching its barrier, signals arrival and parks
 * until released. When all have arrived, no other client can observe or change those shards, so the
 * coordinator runs the operation against their data directly (the latches give the happens-before
 * edges in both directions), then releases them. Because only this single thread ever parks shards,
 * and a shard thread never waits for anything but its own release, there is no lock-order cycle and
 * no deadlock. A client's later commands are held back by its home shard until the operation's reply
 * is back (see the dispatcher), so per-connection order holds even across shards.
 * See docs/decisions/0002-multi-shard-atomicity.md.
 */
public final class Coordinator {

    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "tide-coordinator");
        t.setDaemon(true);
        return t;
    });

    /**
     * Parks {@code shards}, runs {@code body} on the coordinator thread, releases them. Returns at once;
     * {@code body} must hand its result back to the caller's thread itself. If the shards are shutting
     * down, {@code onRejected} runs instead.
     */
    public void run(Shard[] shards, Runnable body, Runnable onRejected) {
        try {
            executor.execute(() -> coordinate(shards, body, onRejected));
        } catch (RejectedExecutionException e) {
            onRejected.run();
        }
    }

    private static void coordinate(Shard[] shards, Runnable body, Runnable onRejected) {
        CountDownLatch arrived = new CountDownLatch(shards.length);
        CountDownLatch release = new CountDownLatch(1);
        int posted = 0;
        try {
            for (Shard s : shards) {
                s.loop().execute(() -> {
                    arrived.countDown();
                    awaitUninterruptibly(release);
                });
                posted++;
            }
        } catch (RejectedExecutionException e) {
            release.countDown();
            onRejected.run();
            return;
        }
        try {
            if (posted == shards.length && awaitArrival(arrived)) {
                body.run();
            } else {
                onRejected.run();
            }
        } finally {
            release.countDown();
        }
    }

    private static boolean awaitArrival(CountDownLatch arrived) {
        try {
            // Shards that are shutting down never arrive; give up then instead of hanging.
            while (!arrived.await(1, TimeUnit.SECONDS)) {
                if (Thread.currentThread().isInterrupted()) return false;
            }
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        boolean interrupted = false;
        while (true) {
            try {
                latch.await();
                break;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
    }

    void close() {
        executor.shutdownNow();
    }
}
