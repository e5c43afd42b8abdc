package io.tide.journal;

import static io.tide.journal.JournalReplayTest.call;
import static io.tide.journal.JournalReplayTest.show;
import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/** What the journal records for particular commands, through a real client on 1 and 4 shards. Runs on the test thread. */
class JournalEffectsTest {

    /** Every record of every shard, as text ("tx<seq>/<parts>" before a transaction's effects). */
    private static List<String> records(CapturingSink[] sinks) {
        List<String> out = new ArrayList<>();
        for (CapturingSink s : sinks) {
            for (CapturingSink.Rec r : s.records()) {
                if (r.tx()) out.add("tx" + (r.seq() > 0 ? "+" : "0") + "/" + r.parts());
                for (Effect e : r.effects()) out.add(show(e));
            }
            s.clear();
        }
        return out;
    }

    @Test
    void noOpWrites_recordNothing() throws Exception {
        try (Server server = TestServers.start(1); Jedis j = TestServers.jedis(server.port(), 2)) {
            call(j, "SET", "s", "v");
            call(j, "SADD", "set", "a");
            call(j, "HSET", "h", "f", "v");
            call(j, "ZADD", "z", "1", "m");
            call(j, "RPUSH", "l", "a");
            call(j, "XADD", "x", "1-1", "f", "v");
            call(j, "XGROUP", "CREATE", "x", "g", "$");
            CapturingSink[] sinks = CapturingSink.attach(server);
            call(j, "SET", "s", "w", "NX");
            call(j, "SADD", "set", "a");
            call(j, "HDEL", "h", "nope");
            call(j, "ZADD", "z", "XX", "2", "nope");
            call(j, "EXPIRE", "missing", "100");
            call(j, "LREM", "l", "0", "nope");
            call(j, "XACK", "x", "g", "9-9");
            call(j, "XCLAIM", "x", "g", "c", "0", "9-9");
            call(j, "GETEX", "s", "PERSIST");
            call(j, "PERSIST", "s");
            assertThat(records(sinks)).isEmpty();
        }
    }

    /**
     * A string past 1 KB is changed where it lies (store.RawString): each write that changed it is recorded as sent,
     * and one that changed nothing (a bit already set, a BITFIELD of GETs) records nothing.
     */
    @Test
    void writesToAStringChangedInPlace_areJournalled_unchangedOnesAreNot() throws Exception {
        try (Server server = TestServers.start(1); Jedis j = TestServers.jedis(server.port(), 2)) {
            call(j, "SETRANGE", "ls", "2000", "x");
            CapturingSink[] sinks = CapturingSink.attach(server);
            call(j, "APPEND", "ls", "ab");
            call(j, "SETRANGE", "ls", "5", "cd");
            call(j, "SETBIT", "ls", "3", "1");
            call(j, "SETBIT", "ls", "3", "1");
            call(j, "BITFIELD", "ls", "SET", "u8", "#1", "7");
            call(j, "BITFIELD", "ls", "GET", "u8", "0");
            call(j, "SETBIT", "ls", "40000", "1");
            assertThat(records(sinks)).containsExactly("db0: APPEND ls ab", "db0: SETRANGE ls 5 cd",
                    "db0: SETBIT ls 3 1", "db0: BITFIELD ls SET u8 #1 7", "db0: SETBIT ls 40000 1");
            // A dense HyperLogLog, whose registers and cached cardinality change in place.
            String[] add = new String[3002];
            add[0] = "PFADD";
            add[1] = "hll";
            for (int i = 0; i < 3000; i++) add[i + 2] = "e" + i;
            call(j, add);
            call(j, "PFADD", "hll", "more");
            records(sinks);
            call(j, "PFADD", "hll", "new1", "new2");
            call(j, "PFADD", "hll", "new1");
            call(j, "PFCOUNT", "hll");
            call(j, "PFCOUNT", "hll");
            assertThat(records(sinks)).containsExactly("db0: PFADD hll new1 new2", "db0: PFCOUNT hll");
        }
    }

    @Test
    void relativeAndPastExpiries_areJournalledAbsolute() throws Exception {
        try (Server server = TestServers.start(1); Jedis j = TestServers.jedis(server.port(), 2)) {
            CapturingSink[] sinks = CapturingSink.attach(server);
            long before = System.currentTimeMillis();
            call(j, "SET", "k", "v", "EX", "100", "GET");
            call(j, "EXPIRE", "k", "-1");
            call(j, "SETEX", "k", "100", "v");
            call(j, "PEXPIRE", "k", "5000");
            call(j, "GETDEL", "k");
            call(j, "HSET", "h", "a", "1", "b", "2");
            call(j, "HEXPIRE", "h", "100", "FIELDS", "1", "a");
            call(j, "HPEXPIREAT", "h", "1", "FIELDS", "1", "b");
            call(j, "INCRBYFLOAT", "f", "1.5");
            List<String> r = records(sinks);
            assertThat(r).hasSize(9);
            assertThat(r.get(0)).startsWith("db0: SET k v PXAT ");
            long at = Long.parseLong(r.get(0).substring(r.get(0).lastIndexOf(' ') + 1));
            assertThat(at).isBetween(before + 100_000, System.currentTimeMillis() + 100_000);
            assertThat(r.get(1)).isEqualTo("db0: DEL k");
            assertThat(r.get(2)).startsWith("db0: SET k v PXAT ");
            assertThat(r.get(3)).startsWith("db0: PEXPIREAT k ");
            assertThat(r.get(4)).isEqualTo("db0: DEL k");
            assertThat(r.get(6)).startsWith("db0: HPEXPIREAT h ").endsWith(" FIELDS 1 a");
            assertThat(r.get(7)).isEqualTo("db0: HDEL h b");
            assertThat(r.get(8)).isEqualTo("db0: SET f 1.5 KEEPTTL");
        }
    }

    @Test
    void setIfeqAndDelifeq_areJournalledWithoutTheirConditions() throws Exception {
        try (Server server = TestServers.start(1); Jedis j = TestServers.jedis(server.port(), 2)) {
            call(j, "SET", "k", "a");
            call(j, "SET", "lock", "tok");
            CapturingSink[] sinks = CapturingSink.attach(server);
            long before = System.currentTimeMillis();
            call(j, "SET", "k", "b", "IFEQ", "nope");
            call(j, "SET", "k", "b", "IFEQ", "a");
            call(j, "SET", "k", "c", "IFEQ", "b", "EX", "100", "GET");
            call(j, "SET", "k", "d", "IFEQ", "c", "KEEPTTL");
            call(j, "SET", "k", "e", "IFEQ", "d", "PXAT", "99999999999999");
            call(j, "DELIFEQ", "lock", "other");
            call(j, "DELIFEQ", "lock", "tok");
            List<String> r = records(sinks);
            assertThat(r).hasSize(5);
            assertThat(r.get(0)).isEqualTo("db0: SET k b");
            assertThat(r.get(1)).startsWith("db0: SET k c PXAT ");
            long at = Long.parseLong(r.get(1).substring(r.get(1).lastIndexOf(' ') + 1));
            assertThat(at).isBetween(before + 100_000, System.currentTimeMillis() + 100_000);
            assertThat(r.get(2)).isEqualTo("db0: SET k d KEEPTTL");
            assertThat(r.get(3)).isEqualTo("db0: SET k e PXAT 99999999999999");
            assertThat(r.get(4)).isEqualTo("db0: DEL lock");
        }
    }

    @Test
    void hashGetAndSetWithTtl_areJournalledDeterministically() throws Exception {
        try (Server server = TestServers.start(1); Jedis j = TestServers.jedis(server.port(), 2)) {
            call(j, "HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4");
            CapturingSink[] sinks = CapturingSink.attach(server);
            long before = System.currentTimeMillis();
            call(j, "HGETDEL", "h", "FIELDS", "2", "a", "zz");
            call(j, "HGETDEL", "h", "FIELDS", "1", "zz");
            call(j, "HGETEX", "h", "FIELDS", "1", "b");
            call(j, "HGETEX", "h", "EX", "100", "FIELDS", "2", "b", "zz");
            call(j, "HGETEX", "h", "PERSIST", "FIELDS", "2", "b", "c");
            call(j, "HGETEX", "h", "PXAT", "1", "FIELDS", "1", "b");
            call(j, "HSETEX", "h", "PX", "5000", "FIELDS", "1", "c", "x");
            call(j, "HSETEX", "h", "FXX", "EX", "0", "FIELDS", "1", "d", "y");
            call(j, "HSETEX", "h", "FNX", "FIELDS", "1", "c", "z");
            call(j, "HSETEX", "h", "KEEPTTL", "FIELDS", "1", "c", "w");
            List<String> r = records(sinks);
            assertThat(r).hasSize(7);
            assertThat(r.get(0)).isEqualTo("db0: HDEL h a zz");
            assertThat(r.get(1)).startsWith("db0: HPEXPIREAT h ").endsWith(" FIELDS 1 b");
            long at = Long.parseLong(r.get(1).split(" ")[3]);
            assertThat(at).isBetween(before + 100_000, System.currentTimeMillis() + 100_000);
            assertThat(r.get(2)).isEqualTo("db0: HPERSIST h FIELDS 1 b");
            assertThat(r.get(3)).isEqualTo("db0: HDEL h b");
            assertThat(r.get(4)).startsWith("db0: HSETEX h PXAT ").endsWith(" FIELDS 1 c x");
            at = Long.parseLong(r.get(4).split(" ")[4]);
            assertThat(at).isBetween(before + 5000, System.currentTimeMillis() + 5000);
            assertThat(r.get(5)).isEqualTo("db0: HDEL h d");
            assertThat(r.get(6)).isEqualTo("db0: HSETEX h KEEPTTL FIELDS 1 c w");
            // A named field that just expired is dropped first, so that a replay (clock 0, nothing expired) agrees:
            // FNX is met here, and the journalled HSETEX has no condition to test again.
            call(j, "HSET", "h2", "f", "v", "g", "w");
            call(j, "HPEXPIRE", "h2", "1", "FIELDS", "1", "f");
            Thread.sleep(20);
            records(sinks);
            call(j, "HSETEX", "h2", "FNX", "FIELDS", "1", "f", "v2");
            assertThat(records(sinks)).containsSubsequence("db0: HDEL h2 f", "db0: HSETEX h2 FIELDS 1 f v2");
        }
    }

    @Test
    void transactionAcrossShards_isOneGroupWithAPartPerShard() throws Exception {
        try (Server server = TestServers.start(4); Jedis j = TestServers.jedis(server.port(), 2)) {
            String[] keys = TestServers.keysOnDifferentShards(server, "t");
            CapturingSink[] sinks = CapturingSink.attach(server);
            call(j, "MULTI");
            call(j, "SET", keys[0], "1");
            call(j, "INCR", keys[0]);
            call(j, "SET", keys[1], "2");
            call(j, "EXEC");
            List<Long> seqs = new ArrayList<>();
            List<String> parts = new ArrayList<>();
            for (CapturingSink s : sinks) {
                for (CapturingSink.Rec r : s.records()) {
                    assertThat(r.tx()).isTrue();
                    assertThat(r.parts()).isEqualTo(2);
                    seqs.add(r.seq());
                    for (Effect e : r.effects()) parts.add(show(e));
                }
            }
            assertThat(seqs).hasSize(2);
            assertThat(seqs.get(0)).isPositive().isEqualTo(seqs.get(1));
            assertThat(parts).containsExactlyInAnyOrder("db0: SET " + keys[0] + " 1", "db0: INCR " + keys[0],
                    "db0: SET " + keys[1] + " 2");
        }
    }

    @Test
    void script_isJournalledByItsEffects() throws Exception {
        try (Server server = TestServers.start(1); Jedis j = TestServers.jedis(server.port(), 2)) {
            call(j, "SADD", "s", "only");
            CapturingSink[] sinks = CapturingSink.attach(server);
            call(j, "EVAL", "redis.call('SET', KEYS[1], 'x'); return redis.call('SPOP', KEYS[2])", "2", "k", "s");
            assertThat(records(sinks)).containsExactly("tx0/1", "db0: SET k x", "db0: SREM s only");
        }
    }

    @Test
    void expiredKey_isJournalledAsDelBeforeTheCommandThatNoticedIt() throws Exception {
        try (Server server = TestServers.start(1); Jedis j = TestServers.jedis(server.port(), 2)) {
            call(j, "CONFIG", "SET", "hz", "1");
            call(j, "SET", "k", "old", "PX", "20");
            CapturingSink[] sinks = CapturingSink.attach(server);
            Thread.sleep(40);
            call(j, "APPEND", "k", "new");
            List<String> r = records(sinks);
            // Active expiry may have deleted it first (a DEL of its own); either way the DEL comes first.
            assertThat(r).containsSubsequence("db0: DEL k", "db0: APPEND k new");
            assertThat(r).doesNotContain("db0: APPEND k old");
        }
    }
}
