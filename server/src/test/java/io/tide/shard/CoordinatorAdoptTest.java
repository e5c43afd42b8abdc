package io.tide.shard;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoopGroup;
import io.netty.channel.EventLoop;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * {@link Coordinator#adopt}: the rest of an operation a shard thread began alone (a script that turned busy) runs on
 * the coordinator thread before anything else touches that shard, even a batch whose barrier was already waiting for
 * the thread when it handed the rest over. The "data" is a counter only the owner of the shard may touch: the shard's
 * task writes 1, the adopted rest writes 2, and a batch queued before must see 2, never the half-done 1. Also what a
 * script inline on one shard of several needs (decision 0022, amended 2026-12-07): the coordinator runs such rests
 * while it waits for the Lua engine ({@link Coordinator#acquire}) or parks more shards ({@link Coordinator#extend}),
 * and a shard whose self-parked operations ran is parked again by a later operation of the same batch.
 */
class CoordinatorAdoptTest {

    private DefaultEventLoopGroup group;
    private Coordinator coordinator;
    private Shard shard;

    /** A second shard on a loop of its own, for the tests where the coordinator's operation is about another shard. */
    private DefaultEventLoopGroup group2;
    private Shard other;

    @BeforeEach
    void start() {
        group = new DefaultEventLoopGroup(1);
        EventLoop loop = group.next();
        shard = new Shard(0, loop, 1);
        coordinator = new Coordinator();
        shard.coordinator(coordinator);
        group2 = new DefaultEventLoopGroup(1);
        other = new Shard(1, group2.next(), 1);
        other.coordinator(coordinator);
    }

    @AfterEach
    void stop() throws Exception {
        coordinator.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        group2.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
    }

    @Test
    void adoptedRest_runsBeforeABatchQueuedWhileTheShardWasBusy() throws Exception {
        AtomicInteger data = new AtomicInteger();
        CountDownLatch busy = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        CountDownLatch handedOver = new CountDownLatch(1);
        AtomicInteger restRanOn = new AtomicInteger();
        shard.loop().execute(() -> {
            busy.countDown();
            await(goOn);
            data.set(1); // the first half of the operation
            coordinator.adopt(shard, () -> {
                restRanOn.set(Thread.currentThread().getName().equals("tide-coordinator") ? 1 : -1);
                data.set(2);
            }, () -> { }, true);
            handedOver.countDown();
        });
        await(busy);
        // A batch on this shard, queued while its thread is busy: its barrier waits behind the task above.
        CountDownLatch batchRan = new CountDownLatch(1);
        AtomicInteger seen = new AtomicInteger(-1);
        coordinator.run(new Shard[] {shard}, () -> {
            seen.set(data.get());
            batchRan.countDown();
        }, () -> { });
        Thread.sleep(300); // the coordinator posts the barrier meanwhile
        goOn.countDown();
        assertThat(batchRan.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(handedOver.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen.get()).as("the batch ran after the adopted rest, not in the middle").isEqualTo(2);
        assertThat(restRanOn.get()).isEqualTo(1);
    }

    @Test
    void adoptedRest_withNothingElseQueued_runsWhileTheShardThreadWaits() throws Exception {
        AtomicInteger data = new AtomicInteger();
        AtomicInteger afterAdopt = new AtomicInteger(-1);
        CountDownLatch done = new CountDownLatch(1);
        shard.loop().execute(() -> {
            data.set(1);
            coordinator.adopt(shard, () -> data.set(2), () -> { }, true);
            afterAdopt.set(data.get()); // adopt returns once the rest has run
            done.countDown();
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(afterAdopt.get()).isEqualTo(2);
        assertThat(coordinator.operations()).isEqualTo(1);
    }

    /**
     * A script inline on shard 0 holds the Lua engine's permit when a coordinated script on shard 1 starts and waits for
     * it; then the inline one hands its rest over. The coordinator thread, waiting, runs that rest (which gives the
     * permit back) instead of waiting for work only it can do.
     */
    @Test
    void acquire_onTheCoordinator_runsAnAdoptedScriptRestWhileItWaits() throws Exception {
        java.util.concurrent.Semaphore engine = new java.util.concurrent.Semaphore(1);
        AtomicInteger data = new AtomicInteger();
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch goOn = new CountDownLatch(1);
        shard.loop().execute(() -> {
            assertThat(engine.tryAcquire()).isTrue();
            data.set(1);
            holding.countDown();
            await(goOn);
            coordinator.adopt(shard, () -> {
                data.set(2);
                engine.release();
            }, () -> { }, true);
        });
        await(holding);
        CountDownLatch ran = new CountDownLatch(1);
        AtomicInteger seen = new AtomicInteger(-1);
        coordinator.run(new Shard[] {other}, () -> {
            coordinator.acquire(engine);
            seen.set(data.get());
            engine.release();
            ran.countDown();
        }, () -> { });
        Thread.sleep(200); // the coordinator waits for the permit meanwhile
        goOn.countDown();
        assertThat(ran.await(10, TimeUnit.SECONDS)).as("the coordinated script got the engine").isTrue();
        assertThat(seen.get()).isEqualTo(2);
    }

    /**
     * An operation on shard 1 reaches shard 0 ({@link Coordinator#extend}) while shard 0's thread waits in adopt with
     * a script's rest: the rest runs first, so the operation never sees shard 0 half way through the script.
     */
    @Test
    void extend_runsAPendingAdoptedScriptRestFirst() throws Exception {
        AtomicInteger data = new AtomicInteger();
        CountDownLatch opStarted = new CountDownLatch(1);
        CountDownLatch ran = new CountDownLatch(1);
        AtomicInteger seen = new AtomicInteger(-1);
        coordinator.run(new Shard[] {other}, () -> {
            opStarted.countDown();
            sleep(300); // shard 0's thread hands its rest over meanwhile
            if (coordinator.extend(new Shard[] {shard})) seen.set(data.get());
            ran.countDown();
        }, () -> { });
        await(opStarted);
        shard.loop().execute(() -> {
            data.set(1);
            coordinator.adopt(shard, () -> data.set(2), () -> { }, true);
        });
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen.get()).as("the extending operation saw the script whole").isEqualTo(2);
    }

    /**
     * A batch runs a self-parked thread's operation, then one that reaches that shard: by then the thread has gone back
     * to its work, so the second operation must park it by a barrier, not take it for still parked.
     */
    @Test
    void aShardWhoseSelfParkedOperationsRan_isParkedAgainByALaterOperationOfTheBatch() throws Exception {
        AtomicInteger data = new AtomicInteger();
        CountDownLatch blockerRunning = new CountDownLatch(1);
        CountDownLatch releaseBlocker = new CountDownLatch(1);
        coordinator.run(new Shard[] {other}, () -> { // holds the coordinator so that the next two share a batch
            blockerRunning.countDown();
            await(releaseBlocker);
        }, () -> { });
        await(blockerRunning);
        CountDownLatch selfParkQueued = new CountDownLatch(1);
        shard.loop().execute(() -> {
            data.set(1);
            Thread t = new Thread(() -> {
                sleep(100);
                selfParkQueued.countDown();
            });
            t.start();
            coordinator.runSelfParked(shard, java.util.List.of(() -> { }), java.util.List.of(() -> { }));
            sleep(300); // back at its own work after its operation ran
            data.set(3);
        });
        await(selfParkQueued);
        AtomicInteger seen = new AtomicInteger(-1);
        CountDownLatch ran = new CountDownLatch(1);
        coordinator.run(new Shard[] {other}, () -> {
            if (coordinator.extend(new Shard[] {shard})) seen.set(data.get());
            ran.countDown();
        }, () -> { });
        releaseBlocker.countDown();
        assertThat(ran.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(seen.get()).as("parked after the thread's own work, not in its middle").isEqualTo(3);
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    private static void await(CountDownLatch l) {
        try {
            if (!l.await(10, TimeUnit.SECONDS)) throw new AssertionError("timed out");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
