package io.tide.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.Executors;
import java.util.concurrent.ExecutorService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** What the pool of argument arrays hands out and takes back (decision 0028). Each case runs on a thread of its own. */
class ArgvPoolTest {

    private final ExecutorService thread = Executors.newSingleThreadExecutor();

    @AfterEach
    void stop() {
        thread.shutdownNow();
    }

    private <T> T onFreshThread(java.util.concurrent.Callable<T> task) throws Exception {
        return thread.submit(task).get();
    }

    @Test
    void givenArguments_comeBackForTheSameLengths_butNeverTheName() throws Exception {
        onFreshThread(() -> {
            ArgvPool pool = ArgvPool.current();
            byte[] name = {'G', 'E', 'T'};
            byte[] key = new byte[14];
            byte[][] argv = {name, key};
            pool.give(argv);
            assertThat(pool.held(14)).isEqualTo(1);
            assertThat(pool.held(3)).isZero(); // the decoder shares name arrays between requests
            assertThat(pool.bytes(14)).isSameAs(key);
            assertThat(pool.bytes(14)).isNotSameAs(key).hasSize(14); // taken: a new one now
            assertThat(pool.argv(2)).isSameAs(argv);
            byte[][] fresh = pool.argv(2);
            assertThat(fresh).isNotSameAs(argv);
            assertThat(fresh.length).isEqualTo(2);
            return null;
        });
    }

    @Test
    void anArrayPassedTwice_goesBackOnce() throws Exception {
        onFreshThread(() -> {
            ArgvPool pool = ArgvPool.current();
            byte[] same = new byte[8];
            byte[] name = new byte[4];
            pool.give(new byte[][] {name, same, same, name});
            assertThat(pool.held(8)).isEqualTo(1);
            assertThat(pool.held(4)).isZero(); // the name, even where it repeats
            return null;
        });
    }

    @Test
    void emptyAndLongArguments_andDeepStacks_areNotKept() throws Exception {
        onFreshThread(() -> {
            ArgvPool pool = ArgvPool.current();
            pool.give(new byte[][] {new byte[3], new byte[0], new byte[ArgvPool.MAX_LENGTH + 1]});
            assertThat(pool.held(0)).isZero();
            for (int i = 0; i < ArgvPool.DEPTH + 10; i++) pool.give(new byte[][] {new byte[3], new byte[5]});
            assertThat(pool.held(5)).isEqualTo(ArgvPool.DEPTH);
            assertThat(pool.bytes(ArgvPool.MAX_LENGTH + 1)).hasSize(ArgvPool.MAX_LENGTH + 1);
            byte[][] many = new byte[ArgvPool.MAX_GIVEN + 1][];
            for (int i = 0; i < many.length; i++) many[i] = new byte[7];
            pool.give(many); // a long request: not checked argument by argument, not kept
            assertThat(pool.held(7)).isZero();
            return null;
        });
    }

    @Test
    void eachThreadHasItsOwnPool() throws Exception {
        ArgvPool first = onFreshThread(() -> {
            ArgvPool.current().give(new byte[][] {new byte[3], new byte[9]});
            return ArgvPool.current();
        });
        try (ExecutorService other = Executors.newSingleThreadExecutor()) {
            ArgvPool second = other.submit(ArgvPool::current).get();
            assertThat(second).isNotSameAs(first);
            assertThat(second.held(9)).isZero();
        }
    }
}
