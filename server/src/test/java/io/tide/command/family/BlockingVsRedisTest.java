package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Not thread-safe: runs on the test's thread only. Every blocking command against redis-server 7.0 and Tide (two
 * shards) when the key it waits on is deleted, changes type, expires, is flushed, swapped in by SWAPDB or renamed
 * onto: the blocked client's reply (served, an error, or the timeout reply after one second of still waiting) must
 * be byte-identical.
 */
class BlockingVsRedisTest extends VsRedis {

    BlockingVsRedisTest() {
        super("blk");
    }

    /** {@code K} in a command stands for the waited-on key, {@code O} for a second key of the test. */
    record Scenario(String name, List<String[]> setup, String[] blocking, List<String[]> action) {
        @Override
        public String toString() {
            return name;
        }
    }

    private static String[] c(String line) {
        return line.split(" ");
    }

    private static List<String[]> cs(String... lines) {
        List<String[]> out = new ArrayList<>();
        for (String l : lines) out.add(c(l));
        return out;
    }

    private static final String TYPE_CHANGE = "MULTI;ZADD K 1 a;DEL K;SET K x;EXEC";

    static Stream<Arguments> scenarios() {
        List<Scenario> s = new ArrayList<>();
        String[][] waits = {
            {"blpop", "BLPOP K 1", "RPUSH O a"},
            {"brpop", "BRPOP K 1", "RPUSH O a"},
            {"blmove", "BLMOVE K O LEFT RIGHT 1", "RPUSH O a"},
            {"brpoplpush", "BRPOPLPUSH K O 1", "RPUSH O a"},
            {"blmpop", "BLMPOP 1 1 K LEFT", "RPUSH O a"},
            {"bzpopmin", "BZPOPMIN K 1", "ZADD O 1 a"},
            {"bzpopmax", "BZPOPMAX K 1", "ZADD O 1 a"},
            {"bzmpop", "BZMPOP 1 1 K MIN", "ZADD O 1 a"},
            {"xread", "XREAD BLOCK 1000 STREAMS K 5-0", "XADD O 9-1 f v"},
        };
        for (String[] w : waits) {
            String create = w[2].replace(" O ", " K ");
            s.add(new Scenario(w[0] + " typeChangedInMulti", List.of(), c(w[1]),
                    cs(("MULTI;" + create + ";DEL K;SET K x;EXEC").split(";"))));
            s.add(new Scenario(w[0] + " setAsString", List.of(), c(w[1]), cs("SET K x")));
            s.add(new Scenario(w[0] + " flushall", List.of(), c(w[1]), cs("FLUSHALL")));
            s.add(new Scenario(w[0] + " swapdbWithData", cs("SELECT 9", w[2].replace(" O ", " K "), "SELECT 0"),
                    c(w[1]), cs("SWAPDB 0 9")));
            s.add(new Scenario(w[0] + " renameOnto", cs(w[2]), c(w[1]), cs("RENAME O K")));
            s.add(new Scenario(w[0] + " renameOntoWrongType", cs("SET O x"), c(w[1]), cs("RENAME O K")));
        }
        // Two keys: the first becomes a string while the second gets data, in one MULTI (Redis serves the second).
        s.add(new Scenario("blpop firstKeyRetypedSecondServed", List.of(), c("BLPOP K O 1"),
                cs("MULTI", "SET K x", "RPUSH O a", "EXEC")));
        s.add(new Scenario("blmpop firstKeyRetypedSecondServed", List.of(), c("BLMPOP 1 2 K O LEFT"),
                cs("MULTI", "SET K x", "RPUSH O a", "EXEC")));
        s.add(new Scenario("bzpopmin firstKeyRetypedSecondServed", List.of(), c("BZPOPMIN K O 1"),
                cs("MULTI", "SET K x", "ZADD O 1 a", "EXEC")));
        s.add(new Scenario("bzmpop firstKeyRetypedSecondServed", List.of(), c("BZMPOP 1 2 K O MIN"),
                cs("MULTI", "SET K x", "ZADD O 1 a", "EXEC")));
        s.add(new Scenario("blmove destinationWrongType", cs("SET O x"), c("BLMOVE K O LEFT RIGHT 1"),
                cs("RPUSH K a")));
        s.add(new Scenario("brpoplpush destinationWrongType", cs("SET O x"), c("BRPOPLPUSH K O 1"),
                cs("RPUSH K a")));
        // A list or sorted set stored over a key of another type (Redis's setKey overwrite) readies only the clients
        // that must hear of a deletion: the list and sorted-set waiters go on waiting.
        s.add(new Scenario("blpop sortStoreOverAStream", cs("RPUSH O a"), c("BLPOP K 1"),
                cs("MULTI", "XADD K 5-1 f v", "SORT O ALPHA STORE K", "EXEC")));
        s.add(new Scenario("bzpopmin zunionstoreOverAStream", cs("ZADD O 1 a"), c("BZPOPMIN K 1"),
                cs("MULTI", "XADD K 5-1 f v", "ZUNIONSTORE K 1 O", "EXEC")));
        String group = "XGROUP CREATE K g $ MKSTREAM";
        String[] xrg = c("XREADGROUP GROUP g c BLOCK 1000 STREAMS K >");
        s.add(new Scenario("xreadgroup setAsString", cs(group), xrg, cs("SET K x")));
        s.add(new Scenario("xreadgroup del", cs(group), xrg, cs("DEL K")));
        s.add(new Scenario("xreadgroup typeChangedInMulti", cs(group), xrg, cs("MULTI", "DEL K", "SET K x", "EXEC")));
        s.add(new Scenario("xreadgroup flushall", cs(group), xrg, cs("FLUSHALL")));
        s.add(new Scenario("xreadgroup swapdb", cs(group), xrg, cs("SWAPDB 0 9")));
        s.add(new Scenario("xreadgroup expired", cs(group), xrg, cs("PEXPIRE K 50")));
        s.add(new Scenario("xread expired", cs("XADD K 5-0 f v"), c("XREAD BLOCK 1000 STREAMS K 5-0"),
                cs("PEXPIRE K 50")));
        s.add(new Scenario("xreadgroup groupDestroyed", cs(group), xrg, cs("XGROUP DESTROY K g")));
        s.add(new Scenario("xreadgroup renameOntoWithoutGroup", cs(group, "XADD O 9-1 f v"), xrg, cs("RENAME O K")));
        s.add(new Scenario("xreadgroup renameOntoWithGroup",
                cs(group, "XGROUP CREATE O g $ MKSTREAM", "XADD O 9-1 f v"), xrg, cs("RENAME O K")));
        s.add(new Scenario("xreadgroup delAndRecreatedInMulti", cs(group), xrg,
                cs("MULTI", "DEL K", "XGROUP CREATE K g $ MKSTREAM", "XADD K 9-1 f v", "EXEC")));
        return s.stream().map(Arguments::of);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("scenarios")
    void blockedClient_seesWhatRedisSends(Scenario sc) throws Exception {
        String expected = run(redis().port(), sc);
        String actual = run(tide().port(), sc);
        assertThat(actual).as(sc.name()).isEqualTo(expected);
    }

    private String run(int port, Scenario sc) throws IOException, InterruptedException {
        try (RawClient a = new RawClient(port); RawClient b = new RawClient(port)) {
            a.call("FLUSHALL");
            for (String[] cmd : sc.setup()) a.call(keys(cmd));
            b.sendCommand(keys(sc.blocking()));
            awaitBlocked(a);
            for (String[] cmd : sc.action()) a.call(keys(cmd));
            String reply = b.readReply();
            a.call("FLUSHALL");
            return reply;
        }
    }

    private String[] keys(String[] cmd) {
        String[] out = cmd.clone();
        for (int i = 0; i < out.length; i++) {
            if (out[i].equals("K")) out[i] = k("key");
            else if (out[i].equals("O")) out[i] = k("other");
        }
        return out;
    }

    private static void awaitBlocked(RawClient a) throws IOException, InterruptedException {
        for (int i = 0; i < 200; i++) {
            if (a.call("INFO", "clients").contains("blocked_clients:1\r\n")) return;
            Thread.sleep(5);
        }
        throw new AssertionError("the client never blocked");
    }
}
