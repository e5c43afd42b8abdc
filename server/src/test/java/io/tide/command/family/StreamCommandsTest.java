package io.tide.command.family;

import static io.tide.testing.TestServers.keysOnDifferentShards;
import static io.tide.testing.TestServers.onShard;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.Consumer;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XAddArgs;
import io.lettuce.core.XAutoClaimArgs;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.models.stream.ClaimedMessages;
import io.lettuce.core.models.stream.PendingMessages;
import io.tide.shard.Shard;
import io.tide.testing.RawClient;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.StreamEntryID;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;
import redis.clients.jedis.params.XAddParams;
import redis.clients.jedis.params.XAutoClaimParams;
import redis.clients.jedis.params.XClaimParams;
import redis.clients.jedis.params.XPendingParams;
import redis.clients.jedis.params.XReadGroupParams;
import redis.clients.jedis.params.XReadParams;
import redis.clients.jedis.params.XTrimParams;
import redis.clients.jedis.resps.StreamEntry;
import redis.clients.jedis.resps.StreamFullInfo;
import redis.clients.jedis.resps.StreamGroupInfo;
import redis.clients.jedis.resps.StreamInfo;
import redis.clients.jedis.resps.StreamPendingEntry;
import redis.clients.jedis.resps.StreamPendingSummary;

/** Stream commands through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class StreamCommandsTest extends ServerPerShardCount {

    private static final ProtocolCommand XSETID = () -> "XSETID".getBytes(StandardCharsets.US_ASCII);
    private static final String WRONGTYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static Map<String, String> fields(String... kv) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < kv.length; i += 2) m.put(kv[i], kv[i + 1]);
        return m;
    }

    private static StreamEntryID id(String s) {
        return new StreamEntryID(s);
    }

    private static List<String> ids(List<StreamEntry> entries) {
        return entries.stream().map(e -> e.getID().toString()).toList();
    }

    // ------------------------------------------------------------------ XADD, XLEN

    @Test
    void xadd_generatesIncreasingIds_andXlenCounts_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "add" + proto;
                StreamEntryID a = j.xadd(k, StreamEntryID.NEW_ENTRY, fields("f", "1"));
                StreamEntryID b = j.xadd(k, StreamEntryID.NEW_ENTRY, fields("f", "2"));
                assertThat(b).isGreaterThan(a);
                assertThat(a.getTime()).isCloseTo(System.currentTimeMillis(), within(60_000L));
                assertThat(j.xlen(k)).isEqualTo(2);
                assertThat(j.xlen("nostream" + proto)).isZero();
                assertThat(j.type(k)).isEqualTo("stream");
                assertThat(j.objectEncoding(k)).isEqualTo("stream");
            }
        }
    }

    @Test
    void xadd_explicitIds_mustGrow_andMsStarGeneratesTheSequence() {
        try (Jedis j = jedis(2)) {
            assertThat(j.xadd("explicit", id("5-3"), fields("a", "1"))).isEqualTo(id("5-3"));
            assertThatThrownBy(() -> j.xadd("explicit", id("5-3"), fields("a", "1")))
                    .hasMessage("ERR The ID specified in XADD is equal or smaller than the target stream top item");
            assertThatThrownBy(() -> j.xadd("explicit0", id("0-0"), fields("a", "1")))
                    .hasMessage("ERR The ID specified in XADD must be greater than 0-0");
            assertThat(j.exists("explicit0")).isFalse();
            assertThat(j.sendCommand(Protocol.Command.XADD, "explicit", "5-*", "a", "2")).isEqualTo(bytes("5-4"));
            assertThat(j.sendCommand(Protocol.Command.XADD, "explicit", "9-*", "a", "3")).isEqualTo(bytes("9-0"));
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.XADD, "explicit", "1-x", "a", "3"))
                    .hasMessage("ERR Invalid stream ID specified as stream command argument");
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.XADD, "explicit", "*", "a"))
                    .hasMessage("ERR wrong number of arguments for 'xadd' command");
        }
    }

    @Test
    void xadd_nomkstream_onMissingKey_repliesNil_andCreatesNothing() {
        try (Jedis j = jedis(3)) {
            assertThat(j.xadd("nomk", XAddParams.xAddParams().noMkStream(), fields("a", "1"))).isNull();
            assertThat(j.exists("nomk")).isFalse();
        }
    }

    @Test
    void xadd_withMaxlenAndMinid_trims() {
        try (Jedis j = jedis(2)) {
            for (int i = 1; i <= 10; i++) j.xadd("capped", id(i + "-0"), fields("n", Integer.toString(i)));
            j.xadd("capped", XAddParams.xAddParams().id("11-0").maxLen(3).exactTrimming(), fields("n", "11"));
            assertThat(ids(j.xrange("capped", "-", "+"))).containsExactly("9-0", "10-0", "11-0");
            j.xadd("capped", XAddParams.xAddParams().id("12-0").minId("11"), fields("n", "12"));
            assertThat(ids(j.xrange("capped", "-", "+"))).containsExactly("11-0", "12-0");
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.XADD, "capped", "MAXLEN", "=", "1", "LIMIT", "5",
                    "*", "a", "1")).hasMessage("ERR syntax error, LIMIT cannot be used without the special ~ option");
        }
    }

    @Test
    void streamCommands_onWrongType_replyWrongType() {
        try (Jedis j = jedis(2)) {
            j.set("str", "x");
            assertThatThrownBy(() -> j.xadd("str", StreamEntryID.NEW_ENTRY, fields("a", "1"))).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.xlen("str")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.xrange("str", "-", "+")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.xdel("str", id("1-1"))).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.xtrim("str", 1, false)).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.xread(XReadParams.xReadParams(), Map.of("str", id("0-0"))))
                    .hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.xinfoStream("str")).hasMessage(WRONGTYPE);
            assertThatThrownBy(() -> j.xgroupCreate("str", "g", id("0-0"), false)).hasMessage(WRONGTYPE);
        }
    }

    // ------------------------------------------------------------------ XRANGE, XREVRANGE, XDEL, XTRIM

    @Test
    void xrange_andXrevrange_withExclusiveBoundsAndCount() {
        try (Jedis j = jedis(3)) {
            for (int i = 1; i <= 5; i++) j.xadd("range", id(i + "-1"), fields("f", "v" + i));
            assertThat(ids(j.xrange("range", "(2-1", "+"))).containsExactly("3-1", "4-1", "5-1");
            assertThat(ids(j.xrange("range", "2", "3"))).containsExactly("2-1", "3-1");
            assertThat(ids(j.xrevrange("range", "(5-1", "-", 2))).containsExactly("4-1", "3-1");
            assertThat(ids(j.xrange("range", "-", "+", 1))).containsExactly("1-1");
            assertThat(j.xrange("range", "-", "+").get(4).getFields()).isEqualTo(Map.of("f", "v5"));
            assertThat(j.xrange("nokey", "-", "+")).isEmpty();
            assertThatThrownBy(() -> j.xrange("range", "(18446744073709551615-18446744073709551615", "+"))
                    .hasMessage("ERR invalid start ID for the interval");
        }
    }

    @Test
    void xdel_removesEntries_andXinfoTracksTheDeletedAndFirstIds() {
        try (Jedis j = jedis(2)) {
            for (int i = 1; i <= 4; i++) j.xadd("del", id(i + "-0"), fields("f", "v"));
            assertThat(j.xdel("del", id("1-0"), id("3-0"), id("9-0"))).isEqualTo(2);
            assertThat(ids(j.xrange("del", "-", "+"))).containsExactly("2-0", "4-0");
            Map<String, Object> info = j.xinfoStream("del").getStreamInfo();
            assertThat(info.get("max-deleted-entry-id")).isEqualTo(id("3-0"));
            assertThat(info.get("recorded-first-entry-id")).isEqualTo(id("2-0"));
            assertThat(info.get("entries-added")).isEqualTo(4L);
            assertThat(j.xdel("del", id("2-0"), id("4-0"))).isEqualTo(2);
            assertThat(j.exists("del")).isTrue(); // an empty stream stays, as in Redis
            assertThat(j.xlen("del")).isZero();
        }
    }

    @Test
    void xtrim_approximate_removesWholeNodesOnly() {
        try (Jedis j = jedis(2)) {
            for (int i = 1; i <= 250; i++) j.xadd("trim", id(i + "-0"), fields("f", "v"));
            assertThat(j.xtrim("trim", XTrimParams.xTrimParams().maxLen(180).approximateTrimming())).isZero();
            assertThat(j.xtrim("trim", XTrimParams.xTrimParams().maxLen(120).approximateTrimming())).isEqualTo(100);
            assertThat(j.xtrim("trim", XTrimParams.xTrimParams().maxLen(120))).isEqualTo(30);
            assertThat(j.xtrim("trim", XTrimParams.xTrimParams().minId("200"))).isEqualTo(69);
            assertThat(j.xlen("trim")).isEqualTo(51);
            assertThat(j.xinfoStream("trim").getRadixTreeKeys()).isEqualTo(2);
        }
    }

    // ------------------------------------------------------------------ XREAD, XREADGROUP

    @Test
    void xread_acrossShards_repliesPerStream_asArrayInResp2_andMapInResp3() throws Exception {
        String[] k = keysOnDifferentShards(server, "read");
        try (Jedis j2 = jedis(2); Jedis j3 = jedis(3)) {
            j2.xadd(k[0], id("1-0"), fields("a", "1"));
            j2.xadd(k[1], id("2-0"), fields("b", "2"));
            j2.xadd(k[1], id("3-0"), fields("b", "3"));
            Map<String, StreamEntryID> from = new LinkedHashMap<>();
            from.put(k[0], id("0-0"));
            from.put(k[1], id("2-0"));
            for (Jedis j : new Jedis[] {j2, j3}) {
                Map<String, List<StreamEntry>> got = j.xreadAsMap(XReadParams.xReadParams(), from);
                assertThat(got).containsOnlyKeys(k[0], k[1]);
                assertThat(ids(got.get(k[0]))).containsExactly("1-0");
                assertThat(ids(got.get(k[1]))).containsExactly("3-0");
            }
            Object raw2 = j2.sendCommand(Protocol.Command.XREAD, "STREAMS", k[0], "0");
            assertThat(raw2).isInstanceOf(List.class);
            assertThat(((List<?>) ((List<?>) raw2).get(0)).get(0)).isEqualTo(bytes(k[0]));
            try (RawClient raw = new RawClient(server.port())) {
                raw.call("HELLO", "3");
                assertThat(raw.call("XREAD", "STREAMS", k[0], "0")).startsWith("%1");
            }
            assertThat(j2.xread(XReadParams.xReadParams(), Map.of(k[0], StreamEntryID.XREAD_NEW_ENTRY))).isNull();
            assertThat(j3.xread(XReadParams.xReadParams().count(1), Map.of(k[1], id("0-0")))).hasSize(1);
        }
    }

    @Test
    void xread_plus_returnsTheLastEntry() {
        try (Jedis j = jedis(2)) {
            j.xadd("plus", id("1-0"), fields("a", "1"));
            j.xadd("plus", id("2-0"), fields("a", "2"));
            Object r = j.sendCommand(Protocol.Command.XREAD, "STREAMS", "plus", "+");
            List<?> entries = (List<?>) ((List<?>) ((List<?>) r).get(0)).get(1);
            assertThat(entries).hasSize(1);
            assertThat(((List<?>) entries.get(0)).get(0)).isEqualTo(bytes("2-0"));
        }
    }

    @Test
    void xreadgroup_deliversNewEntries_thenServesTheConsumersHistory_andXackEmptiesIt() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "grp" + proto;
                for (int i = 1; i <= 3; i++) j.xadd(k, id(i + "-0"), fields("f", "v" + i));
                assertThat(j.xgroupCreate(k, "g", id("0-0"), false)).isEqualTo("OK");
                Map<String, List<StreamEntry>> first = j.xreadGroupAsMap("g", "alice",
                        XReadGroupParams.xReadGroupParams().count(2), Map.of(k, StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
                assertThat(ids(first.get(k))).containsExactly("1-0", "2-0");
                Map<String, List<StreamEntry>> rest = j.xreadGroupAsMap("g", "bob",
                        XReadGroupParams.xReadGroupParams(), Map.of(k, StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
                assertThat(ids(rest.get(k))).containsExactly("3-0");
                Map<String, List<StreamEntry>> history = j.xreadGroupAsMap("g", "alice",
                        XReadGroupParams.xReadGroupParams(), Map.of(k, id("0-0")));
                assertThat(ids(history.get(k))).containsExactly("1-0", "2-0");
                assertThat(j.xack(k, "g", id("1-0"), id("2-0"), id("9-0"))).isEqualTo(2);
                history = j.xreadGroupAsMap("g", "alice", XReadGroupParams.xReadGroupParams(), Map.of(k, id("0-0")));
                assertThat(history.get(k)).isEmpty();
                StreamGroupInfo gi = j.xinfoGroups(k).get(0);
                assertThat(gi.getName()).isEqualTo("g");
                assertThat(gi.getConsumers()).isEqualTo(2);
                assertThat(gi.getPending()).isEqualTo(1);
                assertThat(gi.getLastDeliveredId()).isEqualTo(id("3-0"));
                assertThat(gi.getGroupInfo().get("entries-read")).isEqualTo(3L);
                assertThat(gi.getGroupInfo().get("lag")).isEqualTo(0L);
            }
        }
    }

    @Test
    void xreadgroup_missingGroup_repliesNogroup_andDollarIsRefused() {
        try (Jedis j = jedis(2)) {
            j.xadd("nog", id("1-0"), fields("f", "v"));
            assertThatThrownBy(() -> j.xreadGroup("g", "c", XReadGroupParams.xReadGroupParams(),
                    Map.of("nog", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY)))
                    .hasMessage("NOGROUP No such key 'nog' or consumer group 'g' in XREADGROUP with GROUP option");
            j.xgroupCreate("nog", "g", id("0-0"), false);
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.XREADGROUP, "GROUP", "g", "c", "STREAMS", "nog", "$"))
                    .hasMessageStartingWith("ERR The $ ID is meaningless in the context of XREADGROUP");
        }
    }

    @Test
    void xreadgroup_noack_advancesTheGroupWithoutPendingEntries() {
        try (Jedis j = jedis(3)) {
            j.xadd("noack", id("1-0"), fields("f", "v"));
            j.xgroupCreate("noack", "g", id("0-0"), false);
            j.xreadGroup("g", "c", XReadGroupParams.xReadGroupParams().noAck(),
                    Map.of("noack", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            assertThat(j.xpending("noack", "g").getTotal()).isZero();
            assertThat(j.xinfoGroups("noack").get(0).getLastDeliveredId()).isEqualTo(id("1-0"));
        }
    }

    // ------------------------------------------------------------------ XPENDING, XCLAIM, XAUTOCLAIM

    @Test
    void xpending_summaryAndExtendedForms() {
        try (Jedis j = jedis(2)) {
            for (int i = 1; i <= 3; i++) j.xadd("pend", id(i + "-0"), fields("f", "v"));
            j.xgroupCreate("pend", "g", id("0-0"), false);
            j.xreadGroup("g", "alice", XReadGroupParams.xReadGroupParams().count(2),
                    Map.of("pend", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            j.xreadGroup("g", "bob", XReadGroupParams.xReadGroupParams(),
                    Map.of("pend", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            StreamPendingSummary sum = j.xpending("pend", "g");
            assertThat(sum.getTotal()).isEqualTo(3);
            assertThat(sum.getMinId()).isEqualTo(id("1-0"));
            assertThat(sum.getMaxId()).isEqualTo(id("3-0"));
            assertThat(sum.getConsumerMessageCount()).isEqualTo(Map.of("alice", 2L, "bob", 1L));
            List<StreamPendingEntry> ext = j.xpending("pend", "g", XPendingParams.xPendingParams().count(10));
            assertThat(ext).extracting(e -> e.getID().toString()).containsExactly("1-0", "2-0", "3-0");
            assertThat(ext.get(0).getConsumerName()).isEqualTo("alice");
            assertThat(ext.get(0).getDeliveredTimes()).isEqualTo(1);
            List<StreamPendingEntry> bobs = j.xpending("pend", "g",
                    XPendingParams.xPendingParams("-", "+", 10).consumer("bob"));
            assertThat(bobs).extracting(StreamPendingEntry::getConsumerName).containsExactly("bob");
            assertThat(j.xpending("pend", "g", XPendingParams.xPendingParams().count(10).idle(60_000))).isEmpty();
            assertThatThrownBy(() -> j.xpending("pend", "nope"))
                    .hasMessage("NOGROUP No such key 'pend' or consumer group 'nope'");
        }
    }

    @Test
    void xclaim_movesOwnership_countsDeliveries_andJustIdDoesNot() {
        try (Jedis j = jedis(2)) {
            for (int i = 1; i <= 2; i++) j.xadd("claim", id(i + "-0"), fields("f", "v" + i));
            j.xgroupCreate("claim", "g", id("0-0"), false);
            j.xreadGroup("g", "alice", XReadGroupParams.xReadGroupParams(),
                    Map.of("claim", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            List<StreamEntry> got = j.xclaim("claim", "g", "bob", 0, XClaimParams.xClaimParams(), id("1-0"));
            assertThat(ids(got)).containsExactly("1-0");
            assertThat(got.get(0).getFields()).isEqualTo(Map.of("f", "v1"));
            assertThat(j.xclaimJustId("claim", "g", "bob", 0, XClaimParams.xClaimParams().retryCount(7), id("2-0")))
                    .containsExactly(id("2-0"));
            List<StreamPendingEntry> pel = j.xpending("claim", "g", XPendingParams.xPendingParams().count(10));
            assertThat(pel).extracting(StreamPendingEntry::getConsumerName).containsExactly("bob", "bob");
            assertThat(pel).extracting(StreamPendingEntry::getDeliveredTimes).containsExactly(2L, 7L);
            // Still idle for less than an hour: nothing to claim.
            assertThat(j.xclaim("claim", "g", "carol", 3_600_000, XClaimParams.xClaimParams(), id("1-0"))).isEmpty();
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.XCLAIM, "claim", "g", "c", "0", "1-0", "NOPE"))
                    .hasMessage("ERR Unrecognized XCLAIM option 'NOPE'");
        }
    }

    @Test
    void xautoclaim_returnsCursorClaimedEntriesAndDeletedIds() {
        try (Jedis j = jedis(3)) {
            for (int i = 1; i <= 4; i++) j.xadd("auto", id(i + "-0"), fields("f", "v" + i));
            j.xgroupCreate("auto", "g", id("0-0"), false);
            j.xreadGroup("g", "alice", XReadGroupParams.xReadGroupParams(),
                    Map.of("auto", StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            j.xdel("auto", id("2-0"));
            Map.Entry<StreamEntryID, List<StreamEntry>> r = j.xautoclaim("auto", "g", "bob", 0, id("0-0"),
                    XAutoClaimParams.xAutoClaimParams().count(2));
            assertThat(r.getKey()).isEqualTo(id("3-0"));
            assertThat(ids(r.getValue())).containsExactly("1-0");
            Object raw = j.sendCommand(Protocol.Command.XAUTOCLAIM, "auto", "g", "bob", "0", "0", "JUSTID");
            List<?> parts = (List<?>) raw;
            assertThat(parts.get(0)).isEqualTo(bytes("0-0"));
            assertThat((List<?>) parts.get(1)).hasSize(3);
            assertThat((List<?>) parts.get(2)).isEmpty();
        }
    }

    // ------------------------------------------------------------------ XGROUP, XSETID, XINFO

    @Test
    void xgroup_subcommands_createSetidConsumersDestroy() {
        try (Jedis j = jedis(2)) {
            assertThatThrownBy(() -> j.xgroupCreate("xg", "g", id("0-0"), false))
                    .hasMessageStartingWith("ERR The XGROUP subcommand requires the key to exist.");
            assertThat(j.xgroupCreate("xg", "g", StreamEntryID.XGROUP_LAST_ENTRY, true)).isEqualTo("OK");
            assertThat(j.xlen("xg")).isZero();
            assertThatThrownBy(() -> j.xgroupCreate("xg", "g", id("0-0"), false))
                    .hasMessage("BUSYGROUP Consumer Group name already exists");
            assertThat(j.xgroupCreateConsumer("xg", "g", "c1")).isTrue();
            assertThat(j.xgroupCreateConsumer("xg", "g", "c1")).isFalse();
            assertThat(j.xgroupSetID("xg", "g", id("7-0"))).isEqualTo("OK");
            assertThat(j.xinfoGroups("xg").get(0).getLastDeliveredId()).isEqualTo(id("7-0"));
            assertThat(j.xinfoConsumers("xg", "g")).extracting(c -> c.getName()).containsExactly("c1");
            assertThat(j.xgroupDelConsumer("xg", "g", "c1")).isZero();
            assertThatThrownBy(() -> j.xgroupSetID("xg", "nope", id("1-0")))
                    .hasMessage("NOGROUP No such consumer group 'nope' for key name 'xg'");
            assertThat(j.xgroupDestroy("xg", "g")).isEqualTo(1);
            assertThat(j.xgroupDestroy("xg", "g")).isZero();
            assertThat(j.sendCommand(Protocol.Command.XGROUP, "HELP")).asList().hasSize(17);
        }
    }

    @Test
    void xsetid_movesTheLastId_andRefusesToGoBelowTheTopEntry() {
        try (Jedis j = jedis(2)) {
            j.xadd("setid", id("5-0"), fields("f", "v"));
            assertThat(j.sendCommand(XSETID, "setid", "10-0", "ENTRIESADDED", "7", "MAXDELETEDID", "3-0"))
                    .isEqualTo(bytes("OK"));
            StreamInfo info = j.xinfoStream("setid");
            assertThat(info.getLastGeneratedId()).isEqualTo(id("10-0"));
            assertThat(info.getStreamInfo().get("entries-added")).isEqualTo(7L);
            assertThatThrownBy(() -> j.sendCommand(XSETID, "setid", "4-0"))
                    .hasMessage("ERR The ID specified in XSETID is smaller than the target stream top item");
            assertThatThrownBy(() -> j.sendCommand(XSETID, "nokey", "4-0"))
                    .hasMessage("ERR no such key");
            assertThat(j.xadd("setid", StreamEntryID.NEW_ENTRY, fields("f", "v")).getTime())
                    .isGreaterThan(10);
        }
    }

    @Test
    void xinfo_streamAndFull_parseInBothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "info" + proto;
                for (int i = 1; i <= 3; i++) j.xadd(k, id(i + "-0"), fields("f", "v" + i));
                j.xgroupCreate(k, "g", id("0-0"), false);
                j.xreadGroup("g", "c", XReadGroupParams.xReadGroupParams().count(1),
                        Map.of(k, StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
                StreamInfo info = j.xinfoStream(k);
                assertThat(info.getLength()).isEqualTo(3);
                assertThat(info.getRadixTreeKeys()).isEqualTo(1);
                assertThat(info.getRadixTreeNodes()).isEqualTo(2);
                assertThat(info.getGroups()).isEqualTo(1);
                assertThat(info.getFirstEntry().getID()).isEqualTo(id("1-0"));
                assertThat(info.getLastEntry().getID()).isEqualTo(id("3-0"));
                StreamFullInfo full = j.xinfoStreamFull(k);
                assertThat(ids(full.getEntries())).containsExactly("1-0", "2-0", "3-0");
                assertThat(full.getGroups()).hasSize(1);
                assertThat(full.getGroups().get(0).getName()).isEqualTo("g");
                assertThat(full.getGroups().get(0).getPelCount()).isEqualTo(1);
                assertThat(full.getGroups().get(0).getConsumers().get(0).getName()).isEqualTo("c");
                assertThatThrownBy(() -> j.xinfoStream("missing" + proto)).hasMessage("ERR no such key");
            }
        }
    }

    @Test
    void copy_ofAStream_isIndependent() {
        try (Jedis j = jedis(2)) {
            j.xadd("copysrc", id("1-0"), fields("f", "v"));
            j.xgroupCreate("copysrc", "g", id("0-0"), false);
            assertThat(j.copy("copysrc", "copydst", false)).isTrue();
            j.xadd("copydst", id("2-0"), fields("f", "w"));
            j.xgroupDestroy("copydst", "g");
            assertThat(j.xlen("copysrc")).isEqualTo(1);
            assertThat(j.xinfoGroups("copysrc")).hasSize(1);
            assertThat(j.xlen("copydst")).isEqualTo(2);
        }
    }

    @Test
    void usedMemory_returnsToItsBaseline_afterAStreamIsDeleted() throws Exception {
        try (Jedis j = jedis(2)) {
            j.select(9);
            String k = "mem";
            Shard s = server.context().shards().shardOf(bytes(k));
            long baseline = onShard(server, k, () -> io.tide.testing.SettledMemory.usedBytes(s.db(9)));
            for (int i = 1; i <= 500; i++) j.xadd(k, id(i + "-0"), fields("f", "v".repeat(i % 40)));
            j.xgroupCreate(k, "g", id("0-0"), false);
            j.xreadGroup("g", "c", XReadGroupParams.xReadGroupParams().count(100),
                    Map.of(k, StreamEntryID.XREADGROUP_UNDELIVERED_ENTRY));
            j.xack(k, "g", id("3-0"));
            j.xdel(k, id("7-0"), id("150-0"));
            j.xtrim(k, XTrimParams.xTrimParams().maxLen(300).approximateTrimming());
            long withStream = onShard(server, k, () -> s.db(9).usedBytes());
            assertThat(withStream).isGreaterThan(baseline + 300 * 10);
            j.del(k);
            assertThat(onShard(server, k, () -> io.tide.testing.SettledMemory.usedBytes(s.db(9)))).isEqualTo(baseline);
        }
    }

    // ------------------------------------------------------------------ Lettuce

    @Test
    void lettuce_streamFlow_inResp2AndResp3() {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> conn = client.connect()) {
                RedisCommands<String, String> c = conn.sync();
                String k = "lettuce" + proto;
                String first = c.xadd(k, Map.of("a", "1"));
                String second = c.xadd(k, Map.of("b", "2"));
                assertThat(c.xlen(k)).isEqualTo(2);
                List<StreamMessage<String, String>> all = c.xrange(k, Range.create("-", "+"));
                assertThat(all).extracting(StreamMessage::getId).containsExactly(first, second);
                assertThat(c.xrevrange(k, Range.create("-", "+"), Limit.from(1)))
                        .extracting(StreamMessage::getId).containsExactly(second);
                List<StreamMessage<String, String>> read = c.xread(XReadArgs.StreamOffset.from(k, first));
                assertThat(read).extracting(StreamMessage::getBody).containsExactly(Map.of("b", "2"));
                assertThat(c.xgroupCreate(XReadArgs.StreamOffset.from(k, "0"), "g")).isEqualTo("OK");
                // One entry per call: Lettuce 7.2 folds a second entry of an XREADGROUP reply into the first
                // (it does so with redis-server too).
                for (String expected : new String[] {first, second}) {
                    List<StreamMessage<String, String>> delivered = c.xreadgroup(Consumer.from("g", "c1"),
                            XReadArgs.Builder.count(1), XReadArgs.StreamOffset.lastConsumed(k));
                    assertThat(delivered).extracting(StreamMessage::getId).containsExactly(expected);
                }
                PendingMessages pending = c.xpending(k, "g");
                assertThat(pending.getCount()).isEqualTo(2);
                assertThat(pending.getConsumerMessageCount()).isEqualTo(Map.of("c1", 2L));
                ClaimedMessages<String, String> claimed = c.xautoclaim(k,
                        XAutoClaimArgs.Builder.xautoclaim(Consumer.from("g", "c2"), 0, "0-0").count(1));
                assertThat(claimed.getMessages()).extracting(StreamMessage::getId).containsExactly(first);
                assertThat(claimed.getId()).isEqualTo(second);
                assertThat(c.xack(k, "g", first)).isEqualTo(1);
                List<Object> info = c.xinfoStream(k);
                assertThat(info).contains("length", 2L, "entries-added");
                assertThat(c.xinfoGroups(k)).hasSize(1);
                assertThat(c.xtrim(k, 1)).isEqualTo(1);
                assertThat(c.xdel(k, second)).isEqualTo(1);
                assertThat(c.xgroupCreate(XReadArgs.StreamOffset.from(k + "new", "$"), "g",
                        XGroupCreateArgs.Builder.mkstream())).isEqualTo("OK");
                assertThat(c.xadd(k, new XAddArgs().id("99999999999999-0"), Map.of("x", "y"))).isEqualTo("99999999999999-0");
                assertThatThrownBy(() -> c.xadd(k, new XAddArgs().id("1-1"), Map.of("x", "y")))
                        .isInstanceOf(RedisCommandExecutionException.class)
                        .hasMessage("ERR The ID specified in XADD is equal or smaller than the target stream top item");
            } finally {
                client.shutdown();
            }
        }
    }

    @Test
    void jedisErrors_areRedisTexts() {
        try (Jedis j = jedis(3)) {
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.XREAD, "STREAMS", "a", "b", "0"))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessage("ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.");
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.XTRIM, "x", "LIMIT", "5"))
                    .hasMessage("ERR syntax error, LIMIT cannot be used without specifying a trimming strategy");
            j.xadd("errs", id("1-0"), fields("f", "v"));
            assertThatThrownBy(() -> j.sendCommand(Protocol.Command.XINFO, "STREAM", "errs", "FULL", "NOPE", "1"))
                    .hasMessage("ERR unknown subcommand or wrong number of arguments for 'STREAM'. Try XINFO HELP.");
        }
    }
}
