package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.protocol.ProtocolLimits;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ShardClientsTest {

    private static ShardClients registry() {
        return new ShardClients(null, null, null, null, null, new ProtocolLimits());
    }

    private static ConnectionHandler connection(ShardClients clients) {
        return new ConnectionHandler(clients);
    }

    /** Random adds and removes against a set: the registry holds exactly the connections added and not removed. */
    @Test
    void holdsWhatWasAddedAndNotRemoved() {
        Random rnd = new Random(5);
        ShardClients clients = registry();
        List<ConnectionHandler> pool = new ArrayList<>();
        for (int i = 0; i < 200; i++) pool.add(connection(clients));
        Set<ConnectionHandler> model = new HashSet<>();
        for (int op = 0; op < 20_000; op++) {
            ConnectionHandler c = pool.get(rnd.nextInt(pool.size()));
            if (rnd.nextInt(3) == 0) {
                clients.remove(c);
                model.remove(c);
            } else {
                clients.add(c);
                model.add(c);
            }
            if (op % 997 == 0) assertThat(new HashSet<>(clients.snapshot())).isEqualTo(model);
        }
        assertThat(clients.snapshot()).hasSize(model.size()).doesNotHaveDuplicates();
        for (ConnectionHandler c : pool) clients.remove(c);
        assertThat(clients.snapshot()).isEmpty();
        clients.add(pool.get(0));
        assertThat(clients.snapshot()).containsExactly(pool.get(0));
    }
}
