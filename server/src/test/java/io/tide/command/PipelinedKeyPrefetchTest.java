package io.tide.command;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A one-shard server prefetches the keys of the requests one read brings before running the first, and a shard the
 * keys of a batch of hops before running it (decision 0023). The prefetch reads only: a pipeline sent in one write
 * gets the replies the same commands get one at a time (where each read holds one request, so nothing is prefetched),
 * whatever the commands' key positions, arities, databases and the table's growth in the middle of the batch.
 */
class PipelinedKeyPrefetchTest {

    private static List<String[]> commands() {
        List<String[]> cmds = new ArrayList<>();
        for (int i = 0; i < 3000; i++) cmds.add(new String[] {"SET", "k" + i, "v" + i}); // the table grows mid-batch
        List<String> mset = new ArrayList<>(List.of("MSET"));
        List<String> mget = new ArrayList<>(List.of("MGET"));
        for (int i = 0; i < 40; i++) { // more keys than one prefetch pass takes
            mset.add("m" + i);
            mset.add("x" + i);
            mget.add(i % 3 == 0 ? "missing" + i : "m" + i);
        }
        cmds.add(mset.toArray(String[]::new));
        cmds.add(mget.toArray(String[]::new));
        String[][] mixed = {
            {"GET", "k1"}, {"GET", "missing"}, {"SELECT", "1"}, {"GET", "k1"}, {"SET", "k1", "db1"}, {"GET", "k1"},
            {"SELECT", "0"}, {"GET", "k1"}, {"OBJECT", "ENCODING", "k1"}, {"BITOP", "AND", "dest", "k1", "k2"},
            {"GET"}, {"MSET", "a"}, {"MGET"}, {"EVAL", "return redis.call('GET', KEYS[1])", "1", "k3"},
            {"HSET", "h", "f", "v"}, {"HGET", "h", "f"}, {"LPUSH", "l", "a", "b"}, {"RPOP", "l"},
            {"ZADD", "z", "1", "m"}, {"ZSCORE", "z", "m"}, {"SADD", "s", "x"}, {"DEL", "k5"}, {"EXISTS", "k5"},
            {"PING"}, {"ECHO", "hi"}, {"NOSUCH", "x"}, {"NOSUCH", "x", "y"}, {"PUBLISH", "ch", "m"}, {"INCR", "c"}, {"INCR", "c"}, {"INCR", "k7"},
            {"SETRANGE", "k8", "1", "zz"}, {"GETRANGE", "k8", "0", "-1"}, {"RENAME", "k9", "k9b"}, {"GET", "k9b"},
            {"XADD", "st", "1-1", "f", "v"}, {"XLEN", "st"}, {"GETDEL", "k10"}, {"GET", "k10"},
        };
        for (int round = 0; round < 20; round++) cmds.addAll(List.of(mixed));
        return cmds;
    }

    @ParameterizedTest(name = "shards={0}")
    @ValueSource(ints = {1, 2})
    void aPipelineSentInOneWrite_getsTheRepliesOfTheSameCommandsSentOneByOne(int shards) throws Exception {
        List<String[]> cmds = commands();
        List<String> oneByOne = new ArrayList<>();
        try (Server server = TestServers.start(shards); RawClient c = new RawClient(server.port())) {
            for (String[] cmd : cmds) oneByOne.add(c.call(cmd));
        }
        assertThat(oneByOne.get(3000)).isEqualTo("+OK\r\n");
        assertThat(oneByOne).contains("$3\r\ndb1\r\n", "-ERR wrong number of arguments for 'get' command\r\n");

        // Groups of a few commands, each sent in one write once the previous group's replies are in: each read
        // then holds one group, so every command is in a batch small enough for all its keys to be prefetched.
        int[] sizes = {2, 3, 5, 7, 4};
        List<String> grouped = new ArrayList<>();
        try (Server server = TestServers.start(shards); RawClient c = new RawClient(server.port())) {
            for (int i = 0, g = 0; i < cmds.size(); g++) {
                int n = Math.min(i < 3000 ? 50 : sizes[g % sizes.length], cmds.size() - i);
                ByteArrayOutputStream group = new ByteArrayOutputStream();
                for (int k = 0; k < n; k++) group.writeBytes(RawClient.encode(cmds.get(i + k)));
                c.send(group.toByteArray());
                for (int k = 0; k < n; k++) grouped.add(c.readReply());
                i += n;
            }
        }
        assertThat(grouped).isEqualTo(oneByOne);

        // All in one write: batches as large as a read, past the keys one prefetch pass takes.
        List<String> pipelined = new ArrayList<>();
        try (Server server = TestServers.start(shards); RawClient c = new RawClient(server.port())) {
            ByteArrayOutputStream all = new ByteArrayOutputStream();
            for (String[] cmd : cmds) all.writeBytes(RawClient.encode(cmd));
            c.send(all.toByteArray());
            for (int i = 0; i < cmds.size(); i++) pipelined.add(c.readReply());
            assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
        }
        assertThat(pipelined).isEqualTo(oneByOne);
    }
}
