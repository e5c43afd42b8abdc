package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A hop whose bookkeeping on its target shard throws (outside the command, which answers its own failures) is answered
 * with an error, and the other hops of its batch run and are answered: no client of the batch waits forever.
 */
class HopFaultTest {

    @AfterEach
    void clearFault() {
        Dispatcher.hopFaultForTests = null;
    }

    @Test
    void aHopThatFailsOnItsTarget_isAnsweredWithAnError_andTheRestOfItsBatchRuns() throws Exception {
        AtomicInteger faults = new AtomicInteger();
        Dispatcher.hopFaultForTests = argv -> {
            if (argv.length > 1 && new String(argv[1], StandardCharsets.UTF_8).startsWith("boom")) {
                faults.incrementAndGet();
                throw new IllegalStateException("injected");
            }
        };
        try (Server server = TestServers.start(2); RawClient c = new RawClient(server.port())) {
            c.timeout(10_000);
            // One write: the keys of the other shard travel as one batch of hops, "boom" keys among them.
            List<String[]> cmds = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                cmds.add(new String[] {"SET", "k" + i, "v" + i});
                cmds.add(new String[] {"SET", "boom" + i, "x"}); // 40 keys: some are the other shard's (all but 2^-40)
            }
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (String[] cmd : cmds) all.writeBytes(RawClient.encode(cmd));
            c.send(all.toByteArray());
            int errors = 0;
            for (String[] cmd : cmds) {
                String reply = c.readReply();
                if (cmd[1].startsWith("boom") && reply.startsWith("-")) {
                    assertThat(reply).isEqualTo("-ERR internal error while executing 'set': IllegalStateException\r\n");
                    errors++;
                } else {
                    assertThat(reply).as(String.join(" ", cmd)).isEqualTo("+OK\r\n");
                }
            }
            assertThat(faults.get()).isPositive(); // some "boom" keys were the other shard's, so they hopped
            assertThat(errors).isEqualTo(faults.get());
            Dispatcher.hopFaultForTests = null;
            for (int i = 0; i < 40; i++) assertThat(c.call("GET", "k" + i)).isEqualTo("$" + ("v" + i).length() + "\r\nv" + i + "\r\n");
            assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
        }
    }
}
