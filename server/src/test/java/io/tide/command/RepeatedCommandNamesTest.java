package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A connection's repeated command names reach the dispatcher as one shared array, which remembers what the table
 * found for it (ClientSession.lastCommandSpec): a pipeline that switches between names, unknown ones included, gets
 * each command's own reply.
 */
class RepeatedCommandNamesTest {

    @Test
    void aPipelineSwitchingBetweenRepeatedNames_getsEachCommandsReply() throws Exception {
        String[][] commands = {{"PING"}, {"NOSUCH"}, {"NOSUCH"}, {"PING"}, {"SET", "a", "1"}, {"GET", "a"},
            {"get", "a"}, {"GET", "a"}, {"NOSUCH"}, {"INCR", "a"}, {"GET", "a"}, {"PING"}, {"PING"}, {"INCR", "a"},
            {"INCR", "a"}};
        try (Server server = TestServers.start(1); RawClient c = new RawClient(server.port())) {
            ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
            for (int round = 0; round < 3; round++) {
                for (String[] cmd : commands) pipeline.writeBytes(RawClient.encode(cmd));
            }
            c.send(pipeline.toByteArray());
            List<String> replies = new ArrayList<>();
            for (int i = 0; i < 3 * commands.length; i++) replies.add(c.readReply());
            for (int round = 0; round < 3; round++) {
                String nosuch = "-ERR unknown command 'NOSUCH', with args beginning with: \r\n";
                assertThat(replies.subList(round * commands.length, (round + 1) * commands.length)).containsExactly(
                        "+PONG\r\n", nosuch, nosuch, "+PONG\r\n", "+OK\r\n", "$1\r\n1\r\n", "$1\r\n1\r\n",
                        "$1\r\n1\r\n", nosuch, ":2\r\n", "$1\r\n2\r\n",
                        "+PONG\r\n", "+PONG\r\n", ":3\r\n", ":4\r\n");
            }
        }
    }
}
