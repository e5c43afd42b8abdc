package io.tide.command.family;

import static io.tide.testing.TestServers.awaitBlocked;
import static io.tide.testing.TestServers.keysOnDifferentShards;
import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.ServerPerShardCount;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.StreamEntryID;

/**
 * XREAD BLOCK and XREADGROUP BLOCK through real sockets: served by XADD from another client (on another shard
 * too), {@code $} meaning "after the last entry when blocking", first blocked first served, timeouts, disconnects,
 * and the errors Redis gives a waiting XREADGROUP whose group or stream goes away. One and two shards.
 */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class StreamBlockingTest extends ServerPerShardCount {

    private static Jedis jedis() {
        return jedis(2);
    }

    private static RawClient raw(int proto) throws Exception {
        RawClient c = new RawClient(server.port());
        if (proto == 3) assertThat(c.call("HELLO", "3")).startsWith("%");
        return c;
    }

    private static String entryReply(String key, String id, String field, String value) {
        return "*1\r\n*2\r\n$" + key.length() + "\r\n" + key + "\r\n*1\r\n*2\r\n$" + id.length() + "\r\n" + id
                + "\r\n*2\r\n$" + field.length() + "\r\n" + field + "\r\n$" + value.length() + "\r\n" + value + "\r\n";
    }

    @Test
    void xread_block_dollar_isServedOnlyByEntriesAddedAfterBlocking() throws Exception {
        try (Jedis admin = jedis(); RawClient waiter = raw(2)) {
            admin.del("dollar");
            admin.xadd("dollar", new StreamEntryID("1-0"), Map.of("old", "1"));
            waiter.sendCommand("XREAD", "BLOCK", "10000", "STREAMS", "dollar", "$");
            awaitBlocked(admin, 1);
            admin.xadd("dollar", new StreamEntryID("2-0"), Map.of("new", "2"));
            assertThat(waiter.readReply()).isEqualTo(entryReply("dollar", "2-0", "new", "2"));
            awaitBlocked(admin, 0);
        }
    }

    @Test
    void xread_block_onStreamsAcrossShards_isServedByAnXaddToEither_inResp3AsAMap() throws Exception {
        String[] k = keysOnDifferentShards(server, "across");
        try (Jedis admin = jedis(); RawClient waiter = raw(3)) {
            admin.del(k[0], k[1]);
            waiter.sendCommand("XREAD", "BLOCK", "0", "STREAMS", k[0], k[1], "$", "$");
            awaitBlocked(admin, 1);
            admin.xadd(k[1], new StreamEntryID("5-5"), Map.of("f", "v"));
            assertThat(waiter.readReply()).isEqualTo("%1\r\n$" + k[1].length() + "\r\n" + k[1]
                    + "\r\n*1\r\n*2\r\n$3\r\n5-5\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n");
        }
    }

    @Test
    void xreadgroup_block_waitersAreServedFirstBlockedFirstServed_andConsumersAppearWhenServed() throws Exception {
        try (Jedis admin = jedis(); RawClient first = raw(2); RawClient second = raw(2)) {
            admin.del("fifo");
            admin.xgroupCreate("fifo", "g", new StreamEntryID("0-0"), true);
            first.sendCommand("XREADGROUP", "GROUP", "g", "c1", "BLOCK", "10000", "STREAMS", "fifo", ">");
            awaitBlocked(admin, 1);
            second.sendCommand("XREADGROUP", "GROUP", "g", "c2", "BLOCK", "10000", "STREAMS", "fifo", ">");
            awaitBlocked(admin, 2);
            assertThat(admin.xinfoConsumers("fifo", "g")).isEmpty(); // Redis 7.0 creates them when serving
            admin.xadd("fifo", new StreamEntryID("1-0"), Map.of("n", "1"));
            assertThat(first.readReply()).isEqualTo(entryReply("fifo", "1-0", "n", "1"));
            awaitBlocked(admin, 1);
            admin.xadd("fifo", new StreamEntryID("2-0"), Map.of("n", "2"));
            assertThat(second.readReply()).isEqualTo(entryReply("fifo", "2-0", "n", "2"));
            assertThat(admin.xpending("fifo", "g").getConsumerMessageCount())
                    .isEqualTo(Map.of("c1", 1L, "c2", 1L));
        }
    }

    @Test
    void xread_block_timesOut_andRepliesNil_inBothProtocols() throws Exception {
        for (int proto : new int[] {2, 3}) {
            try (RawClient c = raw(proto)) {
                long t0 = System.nanoTime();
                assertThat(c.call("XREAD", "BLOCK", "250", "STREAMS", "never", "$"))
                        .isEqualTo(proto == 2 ? "*-1\r\n" : "_\r\n");
                long ms = (System.nanoTime() - t0) / 1_000_000;
                assertThat(ms).isBetween(240L, 5000L);
                assertThat(c.call("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0.5", "STREAMS", "never", ">"))
                        .isEqualTo("-ERR timeout is not an integer or out of range\r\n");
            }
        }
    }

    @Test
    void xreadgroup_block_withAGroupDestroyedWhileWaiting_repliesNogroup() throws Exception {
        try (Jedis admin = jedis(); RawClient waiter = raw(2)) {
            admin.del("destroyed");
            admin.xgroupCreate("destroyed", "g", StreamEntryID.XGROUP_LAST_ENTRY, true);
            waiter.sendCommand("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "destroyed", ">");
            awaitBlocked(admin, 1);
            admin.xgroupDestroy("destroyed", "g");
            assertThat(waiter.readReply())
                    .isEqualTo("-NOGROUP the consumer group this client was blocked on no longer exists\r\n");
        }
    }

    @Test
    void xreadgroup_block_withTheStreamDeletedWhileWaiting_repliesUnblocked_butXreadKeepsWaiting() throws Exception {
        try (Jedis admin = jedis(); RawClient group = raw(2); RawClient plain = raw(2)) {
            admin.del("deleted");
            admin.xgroupCreate("deleted", "g", StreamEntryID.XGROUP_LAST_ENTRY, true);
            group.sendCommand("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "deleted", ">");
            plain.sendCommand("XREAD", "BLOCK", "0", "STREAMS", "deleted", "$");
            awaitBlocked(admin, 2);
            admin.del("deleted");
            assertThat(group.readReply()).isEqualTo("-UNBLOCKED the stream key no longer exists\r\n");
            awaitBlocked(admin, 1);
            admin.set("deleted", "now a string");
            admin.del("deleted");
            admin.xadd("deleted", new StreamEntryID("3-0"), Map.of("f", "v"));
            assertThat(plain.readReply()).isEqualTo(entryReply("deleted", "3-0", "f", "v"));
        }
    }

    @Test
    void disconnectingABlockedReader_freesIt() throws Exception {
        try (Jedis admin = jedis()) {
            RawClient gone = raw(2);
            gone.sendCommand("XREAD", "BLOCK", "0", "STREAMS", "dropped", "$");
            awaitBlocked(admin, 1);
            gone.close();
            awaitBlocked(admin, 0);
            admin.xadd("dropped", new StreamEntryID("1-0"), Map.of("f", "v"));
            assertThat(admin.xlen("dropped")).isEqualTo(1);
        }
    }

    @Test
    void xreadgroup_blockForever_onAStreamReplacedDeletedOrExpired_getsUnblockedError() throws Exception {
        String[][] actions = {{"SET", "gone", "x"}, {"DEL", "gone"}, {"PEXPIRE", "gone", "20"}, {"FLUSHALL"}};
        for (String[] action : actions) {
            try (RawClient admin = raw(2); RawClient waiter = raw(3)) {
                admin.call("DEL", "gone");
                admin.call("XGROUP", "CREATE", "gone", "g", "$", "MKSTREAM");
                waiter.sendCommand("XREADGROUP", "GROUP", "g", "c", "BLOCK", "0", "STREAMS", "gone", ">");
                try (Jedis j = jedis()) {
                    awaitBlocked(j, 1);
                    admin.call(action);
                    assertThat(waiter.readReply()).as(String.join(" ", action))
                            .isEqualTo("-UNBLOCKED the stream key no longer exists\r\n");
                    awaitBlocked(j, 0);
                }
            }
        }
    }
}
