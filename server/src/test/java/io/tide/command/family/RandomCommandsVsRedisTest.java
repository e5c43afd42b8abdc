package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RandomCommands;
import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A differential fuzz: the same seeded stream of random commands (strings, bits, lists, hashes, sets, sorted sets,
 * streams and their groups, HyperLogLogs, geo, keys, TTLs, scripts, MULTI/EXEC/WATCH) with valid and invalid arguments
 * over six keys that change type as the commands go, sent to redis-server and to Tide (two shards, so multi-key
 * commands cross shards), and every reply compared byte for byte. Left out on purpose, where Tide follows a later
 * Redis than the 7.0 it is compared with or where no two servers agree: the order of set and hash members (Redis's
 * dict order is seeded per process), doubles printed with an exponent (Redis 7.0's %.17g; Tide prints 7.2's
 * shortest text, as for every double), OBJECT ENCODING and DUMP (Tide keeps 7.2's listpack encodings), IDs made from
 * the clock (XADD *), times from it (TTL, XPENDING's idle times: a millisecond apart on the two servers, they round
 * differently), TTLs short enough to expire between the two servers' replies, the {@code +} ID of XREAD
 * (7.4's), and integer-parse order in BITCOUNT/BITPOS ranges on a key of the wrong type (7.2 checks the range first).
 */
class RandomCommandsVsRedisTest extends VsRedis {
    /** Commands whose reply lists set or hash members in the server's own order. */
    private static final Set<String> UNORDERED = Set.of("SMEMBERS", "SUNION", "SINTER", "SDIFF", "HKEYS", "HVALS",
            "HGETALL", "EXEC");

    private Random rnd;

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void randomCommands_replyAsRedisDoes(int proto) throws IOException {
        if (proto == 3) {
            r().call("HELLO", "3");
            t().call("HELLO", "3");
        }
        for (int seed = 1; seed <= 3; seed++) {
            rnd = new Random(proto * 100 + seed);
            for (String[] reset : new String[][] {{"DISCARD"}, {"UNWATCH"}, {"FLUSHALL"}}) { // the last round's state
                r().call(reset);
                t().call(reset);
            }
            List<Supplier<String[]>> gen = new RandomCommands(rnd).commands();
            List<String> recent = new ArrayList<>();
            for (int i = 0; i < 4000; i++) {
                String[] cmd = gen.get(rnd.nextInt(gen.size())).get();
                String expected = r().call(cmd);
                String actual = t().call(cmd);
                recent.add(String.join(" ", cmd));
                if (recent.size() > 12) recent.remove(0);
                if (actual.equals(expected) || sameExceptOrder(cmd[0], actual, expected) || expected.contains("e+")) {
                    continue;
                }
                assertThat(actual).as("seed %d, command %d: %s (after %s)", proto * 100 + seed, i,
                        String.join(" ", cmd), recent).isEqualTo(expected);
            }
        }
    }

    private static boolean sameExceptOrder(String command, String a, String b) {
        if (!UNORDERED.contains(command) || a.isEmpty() || "*~".indexOf(a.charAt(0)) < 0) return false;
        List<String> la = new ArrayList<>(Arrays.asList(a.split("\r\n", -1)));
        List<String> lb = new ArrayList<>(Arrays.asList(b.split("\r\n", -1)));
        la.sort(null);
        lb.sort(null);
        return la.equals(lb);
    }
}
