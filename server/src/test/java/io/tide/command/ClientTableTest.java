package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ClientTableTest {

    private static ClientSession session(long id) {
        return new ClientSession(id, null, null, true, 0);
    }

    private static Set<Long> ids(ClientTable t) {
        Set<Long> seen = new HashSet<>();
        for (ClientSession s : t) assertThat(seen.add(s.id())).as("visited once: %d", s.id()).isTrue();
        return seen;
    }

    /** Distinct ids drawn at random: unlike consecutive ones, they share first slots, so probe chains form. */
    private static List<ClientSession> randomSessions(int n, long seed) {
        Random random = new Random(seed);
        Set<Long> drawn = new HashSet<>();
        List<ClientSession> out = new ArrayList<>();
        while (out.size() < n) {
            long id = 1 + random.nextInt(1 << 30);
            if (drawn.add(id)) out.add(session(id));
        }
        return out;
    }

    @Test
    void addGetRemove_throughGrowthAndShrinking() {
        ClientTable t = new ClientTable();
        List<ClientSession> all = randomSessions(5000, 42);
        for (ClientSession s : all) t.add(s);
        assertThat(t.size()).isEqualTo(5000);
        for (ClientSession s : all) assertThat(t.get(s.id())).isSameAs(s);
        assertThat(t.get(1L << 31)).isNull();
        assertThat(t.get(0)).isNull();

        // Remove every other session: the ones left stay reachable past the removed slots of their probe chains.
        Set<Long> left = new HashSet<>();
        for (int k = 0; k < all.size(); k++) {
            if (k % 2 == 0) t.remove(all.get(k));
            else left.add(all.get(k).id());
        }
        assertThat(t.size()).isEqualTo(2500);
        for (int k = 0; k < all.size(); k++) assertThat(t.get(all.get(k).id())).isSameAs(k % 2 == 0 ? null : all.get(k));
        assertThat(ids(t)).isEqualTo(left);

        // Removing a session that is not there (or no longer) changes nothing.
        t.remove(all.get(0));
        t.remove(session(1L << 31));
        assertThat(t.size()).isEqualTo(2500);

        // Down to a few (the table shrinks on the way), then up again, reusing removed slots.
        for (int k = 10; k < all.size(); k++) t.remove(all.get(k));
        assertThat(ids(t)).containsExactlyInAnyOrder(
                all.get(1).id(), all.get(3).id(), all.get(5).id(), all.get(7).id(), all.get(9).id());
        for (long id = 6000; id < 7000; id++) t.add(session(id));
        assertThat(t.size()).isEqualTo(1005);
        for (long id = 6000; id < 7000; id++) assertThat(t.get(id).id()).isEqualTo(id);
        assertThat(t.get(all.get(3).id())).isSameAs(all.get(3));
        assertThat(t.stream().count()).isEqualTo(1005);
    }

    @Test
    void churnOfAddsAndRemoves_keepsLookupsExact() {
        // Sessions come and go while a few stay: removed markers pile up and are dropped by rebuilds.
        ClientTable t = new ClientTable();
        List<ClientSession> drawn = randomSessions(20_002, 7);
        ClientSession stay1 = drawn.get(0);
        ClientSession stay2 = drawn.get(1);
        t.add(stay1);
        t.add(stay2);
        List<ClientSession> window = new ArrayList<>();
        for (ClientSession s : drawn.subList(2, drawn.size())) {
            t.add(s);
            window.add(s);
            if (window.size() > 30) t.remove(window.remove(0));
        }
        assertThat(t.size()).isEqualTo(32);
        assertThat(t.get(stay1.id())).isSameAs(stay1);
        assertThat(t.get(stay2.id())).isSameAs(stay2);
        for (ClientSession s : window) assertThat(t.get(s.id())).isSameAs(s);
        for (ClientSession s : drawn.subList(2, drawn.size() - 30)) assertThat(t.get(s.id())).isNull();
        assertThat(ids(t)).hasSize(32);
    }

    @Test
    void lookupsAndIterationFromOtherThreads_neverMissASessionThatStays() throws Exception {
        ClientTable t = new ClientTable();
        List<ClientSession> stay = new ArrayList<>();
        for (long id = 1; id <= 200; id++) {
            ClientSession s = session(id * 1_000_000);
            stay.add(s);
            t.add(s);
        }
        AtomicBoolean done = new AtomicBoolean();
        AtomicReference<String> miss = new AtomicReference<>();
        List<Thread> readers = new ArrayList<>();
        for (int r = 0; r < 2; r++) {
            Thread reader = new Thread(() -> {
                while (!done.get() && miss.get() == null) {
                    for (ClientSession s : stay) {
                        if (t.get(s.id()) != s) miss.set("lookup of " + s.id());
                    }
                    Set<Long> seen = new HashSet<>();
                    for (ClientSession s : t) seen.add(s.id());
                    for (ClientSession s : stay) {
                        if (!seen.contains(s.id())) miss.set("iteration without " + s.id());
                    }
                }
            });
            reader.start();
            readers.add(reader);
        }
        // The writer grows the table past several rebuilds and shrinks it back, again and again.
        long id = 1;
        for (int round = 0; round < 30 && miss.get() == null; round++) {
            List<ClientSession> burst = new ArrayList<>();
            for (int k = 0; k < 3000; k++) {
                ClientSession s = session(id++);
                burst.add(s);
                t.add(s);
            }
            for (ClientSession s : burst) t.remove(s);
        }
        done.set(true);
        for (Thread reader : readers) reader.join();
        assertThat(miss.get()).isNull();
        assertThat(t.size()).isEqualTo(200);
    }
}
