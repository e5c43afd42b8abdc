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
 * task writes 1, the adopted rest writes 2, and a batch queued before must see 2, never the half-done 1.
 */
class CoordinatorAdoptTest {

    private DefaultEventLoopGroup group;
    private Coordinator coordinator;
    private Shard shard;

    @BeforeEach
    void start() {
        group = new DefaultEventLoopGroup(1);
        EventLoop loop = group.next();
        shard = new Shard(0, loop, 1);
        coordinator = new Coordinator();
        shard.coordinator(coordinator);
    }

    @AfterEach
    void stop() throws Exception {
        coordinator.close();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
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
            }, () -> { });
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
            coordinator.adopt(shard, () -> data.set(2), () -> { });
            afterAdopt.set(data.get()); // adopt returns once the rest has run
            done.countDown();
        });
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(afterAdopt.get()).isEqualTo(2);
        assertThat(coordinator.operations()).isEqualTo(1);
    }

    private static void await(CountDownLatch l) {
        try {
            if (!l.await(10, TimeUnit.SECONDS)) throw new AssertionError("timed out");
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
