package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.TestServers;
import java.io.ByteArrayOutputStream;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * LPOP and RPOP written from the list's own bytes when the reply leaves at once (ListValue.popInPlace), and copied
 * otherwise: pipelines that pop from both ends of lists of every kind of element (short and long strings, integers,
 * elements in plain nodes of their own), with pushes in between, over listpacks and many-node lists with compressed
 * middles, on one shard (inline) and on two (most pops hop to the other shard), against a model of each list.
 */
class ListPopInPlaceTest {

    private static String element(Random rnd, int i) {
        return switch (rnd.nextInt(6)) {
            case 0 -> Integer.toString(rnd.nextInt(200) - 100); // stored as an integer
            case 1 -> Long.toString(rnd.nextLong()); // a 64-bit integer
            case 2 -> "s" + i; // a short string
            case 3 -> "m".repeat(60 + rnd.nextInt(8)) + i; // over the 63-byte string encoding
            case 4 -> "L".repeat(5000) + i; // a node of its own past 4 KB
            default -> "e-" + i + "-" + "x".repeat(rnd.nextInt(20));
        };
    }

    private static String bulk(String s) {
        return s == null ? "$-1\r\n" : "$" + s.length() + "\r\n" + s + "\r\n";
    }

    @ParameterizedTest(name = "shards={0}")
    @ValueSource(ints = {1, 2})
    void pipelinedPopsAndPushes_matchTheModel(int shards) throws Exception {
        try (Server server = TestServers.start(shards); RawClient c = new RawClient(server.port())) {
            c.timeout(30_000);
            // Small nodes and compressed middles: pops cross node boundaries and unlink nodes.
            assertThat(c.call("CONFIG", "SET", "list-max-listpack-size", "4", "list-compress-depth", "1"))
                    .isEqualTo("+OK\r\n");
            Random rnd = new Random(42);
            int lists = 6;
            List<Deque<String>> model = new ArrayList<>();
            for (int k = 0; k < lists; k++) model.add(new ArrayDeque<>());
            int next = 0;
            for (int round = 0; round < 40; round++) {
                ByteArrayOutputStream pipeline = new ByteArrayOutputStream();
                List<String> want = new ArrayList<>();
                for (int op = 0; op < 64; op++) {
                    int k = rnd.nextInt(lists);
                    String key = "list:" + k;
                    Deque<String> m = model.get(k);
                    int what = rnd.nextInt(4);
                    if (what < 2 && m.size() < 40) {
                        String e = element(rnd, next++);
                        boolean head = what == 0;
                        pipeline.writeBytes(RawClient.encode(head ? "LPUSH" : "RPUSH", key, e));
                        if (head) m.addFirst(e);
                        else m.addLast(e);
                        want.add(":" + m.size() + "\r\n");
                    } else {
                        boolean head = what % 2 == 0;
                        pipeline.writeBytes(RawClient.encode(head ? "LPOP" : "RPOP", key));
                        want.add(bulk(head ? m.pollFirst() : m.pollLast()));
                    }
                }
                c.send(pipeline.toByteArray());
                for (int i = 0; i < want.size(); i++) {
                    assertThat(c.readReply()).as("round %d, command %d", round, i).isEqualTo(want.get(i));
                }
            }
            for (int k = 0; k < lists; k++) {
                List<String> rest = new ArrayList<>();
                for (String e : model.get(k)) rest.add(bulk(e));
                StringBuilder all = new StringBuilder("*" + rest.size() + "\r\n");
                rest.forEach(all::append);
                assertThat(c.call("LRANGE", "list:" + k, "0", "-1")).isEqualTo(all.toString());
            }
        }
    }
}
