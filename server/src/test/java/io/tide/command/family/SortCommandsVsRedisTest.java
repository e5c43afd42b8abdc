package io.tide.command.family;

import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * SORT and SORT_RO against a real redis-server, byte for byte, in RESP2 and RESP3. Tide runs two shards,
 * so BY and GET patterns read keys on both (the command then runs with every shard parked).
 */
class SortCommandsVsRedisTest extends VsRedis {

    SortCommandsVsRedisTest() {
        super("s");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void lists_numericAlphaDescLimitStore(int proto) throws IOException {
        protocol(proto);
        same("RPUSH", k("l"), "3", "10", "-2.5", "1e2", "7", "10", "0");
        same("SORT", k("l"));
        same("SORT", k("l"), "DESC");
        same("SORT", k("l"), "ALPHA");
        same("SORT", k("l"), "ALPHA", "DESC");
        same("SORT", k("l"), "LIMIT", "1", "3");
        same("SORT", k("l"), "LIMIT", "-5", "2");
        same("SORT", k("l"), "LIMIT", "2", "-1");
        same("SORT", k("l"), "LIMIT", "100", "5");
        same("SORT", k("l"), "LIMIT", "0", "0");
        same("SORT", k("l"), "BY", "nosort");
        same("SORT", k("l"), "BY", "nosort", "DESC", "LIMIT", "1", "2");
        same("SORT", k("l"), "STORE", k("dst"));
        same("LRANGE", k("dst"), "0", "-1");
        same("TYPE", k("dst"));
        same("SORT", k("missing"), "STORE", k("dst"));
        same("EXISTS", k("dst"));
        same("SORT_RO", k("l"), "DESC");
        same("SORT_RO", k("l"), "STORE", k("dst"));
        same("SORT", k("missing"));
        same("SORT", k("l"), "LIMIT", "a", "1");
        same("SORT", k("l"), "LIMIT", "1");
        same("SORT", k("l"), "BOGUS");
        same("RPUSH", k("words"), "pear", "apple", "fig");
        same("SORT", k("words"));
        same("SORT", k("words"), "ALPHA");
        same("SET", k("str"), "x");
        same("SORT", k("str"));
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void patterns_byAndGet_overStringsAndHashFields(int proto) throws IOException {
        protocol(proto);
        same("RPUSH", k("ids"), "1", "2", "3", "4", "5");
        Random rnd = new Random(3);
        for (int i = 1; i <= 5; i++) {
            if (i != 4) same("SET", k("w_") + i, Integer.toString(rnd.nextInt(100) - 50));
            same("SET", k("name_") + i, "user" + (char) ('e' - i));
            if (i != 2) same("HSET", k("h_") + i, "age", Integer.toString(20 + rnd.nextInt(40)), "nick", "n" + i);
        }
        same("SORT", k("ids"), "BY", k("w_*"));
        same("SORT", k("ids"), "BY", k("w_*"), "DESC");
        same("SORT", k("ids"), "BY", k("name_*"), "ALPHA");
        same("SORT", k("ids"), "BY", k("h_*->age"));
        same("SORT", k("ids"), "BY", k("h_*->age"), "GET", "#", "GET", k("h_*->nick"), "GET", k("name_*"));
        same("SORT", k("ids"), "BY", k("w_*"), "GET", k("missing_*"), "GET", "#");
        same("SORT", k("ids"), "GET", k("name_*"), "LIMIT", "1", "2");
        same("SORT", k("ids"), "BY", "nosort", "GET", k("h_*->nick"));
        same("SORT", k("ids"), "BY", k("w_*"), "GET", k("name_*"), "STORE", k("out"));
        same("LRANGE", k("out"), "0", "-1");
        same("SORT", k("ids"), "BY", k("name_*"));
        same("SORT", k("ids"), "GET", k("nostar"));
        same("SORT", k("ids"), "BY", k("h_*->"), "GET", k("h_*->"));
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void setsAndSortedSets(int proto) throws IOException {
        protocol(proto);
        List<String> members = new ArrayList<>();
        for (int i = 0; i < 40; i++) members.add(Integer.toString((i * 37) % 101));
        List<String> sadd = new ArrayList<>(List.of("SADD", k("s")));
        sadd.addAll(members);
        same(sadd.toArray(new String[0]));
        same("SORT", k("s"));
        same("SORT", k("s"), "DESC", "LIMIT", "3", "5");
        same("SORT", k("s"), "ALPHA");
        same("SORT", k("s"), "BY", "nosort", "STORE", k("sd"));
        same("LRANGE", k("sd"), "0", "-1");
        same("SADD", k("ws"), "b", "a", "c");
        same("SORT", k("ws"), "ALPHA");
        same("SORT", k("ws"));
        for (int i = 0; i < 20; i++) same("ZADD", k("z"), Integer.toString((i * 7) % 13), "m" + i);
        same("SORT", k("z"), "BY", "nosort");
        same("SORT", k("z"), "BY", "nosort", "DESC");
        same("SORT", k("z"), "BY", "nosort", "LIMIT", "2", "5");
        same("SORT", k("z"), "BY", "nosort", "DESC", "LIMIT", "2", "5");
        same("SORT", k("z"), "ALPHA");
        same("SORT", k("z"), "ALPHA", "DESC", "LIMIT", "0", "4");
        // SORT turns a listpack sorted set into a skip list, whatever its options; a later ZSCAN then walks the table
        same("ZADD", k("zl"), "1", "a", "2", "b", "3", "c");
        same("OBJECT", "ENCODING", k("zl"));
        same("SORT_RO", k("zl"), "BY", "nosort", "LIMIT", "0", "1");
        same("OBJECT", "ENCODING", k("zl"));
        same("ZADD", k("zl2"), "1", "a");
        same("SORT", k("zl2"), "STORE", k("zl2out"));
        same("OBJECT", "ENCODING", k("zl2"));
        same("ZREM", k("zl2"), "a");
        same("EXISTS", k("zl2"));
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void getPatterns_missingAndInvalidEntries_withAndWithoutStore(int proto) throws IOException {
        protocol(proto);
        same("RPUSH", k("ids"), "3", "1", "2", "4");
        same("SET", k("name_1"), "one");
        same("SET", k("name_3"), "");
        same("RPUSH", k("name_2"), "a list");            // not a string: GET gives nothing
        same("HSET", k("h_1"), "f", "h1");
        same("HSET", k("h_2"), "g", "other");            // hash without the field
        same("SET", k("h_3"), "a string");               // not a hash
        same("SET", k("w_1"), "");                       // empty weight
        same("SET", k("w_2"), " 5");
        same("SET", k("w_3"), "7");
        for (String by : new String[] {"nosort", k("w_*")}) {
            String[][] getSets = {
                {"GET", "#", "GET", k("missing_*"), "GET", k("h_*->f"), "GET", k("name_*")},
                {"GET", k("missing_*")},
                {"GET", k("h_*->f"), "GET", "#"},
                {"GET", k("name_*"), "GET", k("name_*")},
            };
            for (String[] gets : getSets) {
                List<String> cmd = new ArrayList<>(List.of("SORT", k("ids"), "BY", by));
                cmd.addAll(List.of(gets));
                same(cmd.toArray(new String[0]));
                List<String> ro = new ArrayList<>(cmd);
                ro.set(0, "SORT_RO");
                same(ro.toArray(new String[0]));
                cmd.add("LIMIT");
                cmd.add("1");
                cmd.add("2");
                same(cmd.toArray(new String[0]));
                cmd.add("STORE");
                cmd.add(k("out"));
                same(cmd.toArray(new String[0]));
                same("LRANGE", k("out"), "0", "-1");
                same("LLEN", k("out"));
                cmd.subList(cmd.size() - 5, cmd.size() - 2).clear();
                same(cmd.toArray(new String[0]));
                same("LRANGE", k("out"), "0", "-1");
            }
        }
        same("SORT", k("ids"), "BY", k("w_*"), "DESC", "GET", "#");
        same("SET", k("w_4"), "5 ");
        same("SORT", k("ids"), "BY", k("w_*"), "GET", "#", "STORE", k("out"));
        same("EXISTS", k("out"));
        same("SET", k("w_4"), "0x10");
        same("SORT", k("ids"), "BY", k("w_*"), "GET", "#");
        same("SET", k("w_4"), "nan");
        same("SORT", k("ids"), "BY", k("w_*"), "GET", "#");
        same("SET", k("w_4"), " ");
        same("SORT", k("ids"), "BY", k("w_*"), "GET", "#");
        same("SET", k("w_4"), "-inf");
        same("SORT", k("ids"), "BY", k("w_*"), "GET", "#");
        // Last: Redis's SORT reads errno without clearing it, so after an ERANGE it refuses every weight for a while.
        same("SET", k("w_4"), "1e-310");
        same("SORT", k("ids"), "BY", k("w_*"), "GET", "#");
        same("SET", k("w_4"), "1e999");
        same("SORT", k("ids"), "BY", k("w_*"), "GET", "#");
        same("SADD", k("set"), "c", "a", "b");
        same("SORT", k("set"), "BY", "nosort", "GET", "#", "GET", k("missing_*"), "STORE", k("out"));
        same("LRANGE", k("out"), "0", "-1");
        same("EVAL", "return redis.call('sort', KEYS[1], 'by', 'nosort')", "1", k("set"));
        same("ZADD", k("z"), "1", "b", "2", "a");
        same("SORT", k("z"), "BY", "nosort", "GET", "#", "GET", k("missing_*"));
        same("SORT", k("z"), "ALPHA");
    }
}
