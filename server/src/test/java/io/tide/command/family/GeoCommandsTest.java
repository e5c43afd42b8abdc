package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.lettuce.core.GeoArgs;
import io.lettuce.core.GeoCoordinates;
import io.lettuce.core.GeoRadiusStoreArgs;
import io.lettuce.core.GeoSearch;
import io.lettuce.core.GeoWithin;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.tide.testing.ServerPerShardCount;
import io.tide.testing.TestServers;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedClass;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.GeoCoordinate;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Protocol;
import redis.clients.jedis.args.GeoUnit;
import redis.clients.jedis.params.GeoAddParams;
import redis.clients.jedis.params.GeoRadiusParam;
import redis.clients.jedis.params.GeoRadiusStoreParam;
import redis.clients.jedis.params.GeoSearchParam;
import redis.clients.jedis.resps.GeoRadiusResponse;

/** Geo commands through real sockets with Jedis and Lettuce, RESP2 and RESP3, on one and two shards. */
@ParameterizedClass(name = "shards={0}")
@ValueSource(ints = {1, 2})
class GeoCommandsTest extends ServerPerShardCount {

    private static void sicily(Jedis j, String key) {
        Map<String, GeoCoordinate> m = new LinkedHashMap<>();
        m.put("Palermo", new GeoCoordinate(13.361389, 38.115556));
        m.put("Catania", new GeoCoordinate(15.087269, 37.502669));
        m.put("Agrigento", new GeoCoordinate(13.583333, 37.316667));
        j.geoadd(key, m);
    }

    @Test
    void geoaddPosDistHash_withJedis_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "sicily" + proto;
                sicily(j, k);
                assertThat(j.type(k)).isEqualTo("zset");
                assertThat(j.zscore(k, "Palermo")).isEqualTo(3479099956230698.0);
                assertThat(j.geoadd(k, GeoAddParams.geoAddParams().nx(),
                        Map.of("Palermo", new GeoCoordinate(0, 0)))).isZero();
                assertThat(j.geoadd(k, GeoAddParams.geoAddParams().xx().ch(),
                        Map.of("Agrigento", new GeoCoordinate(13.583334, 37.316667)))).isZero(); // same 26-bit cell
                assertThat(j.geoadd(k, GeoAddParams.geoAddParams().xx().ch(),
                        Map.of("Agrigento", new GeoCoordinate(13.6, 37.316667)))).isEqualTo(1);
                List<GeoCoordinate> pos = j.geopos(k, "Palermo", "Nowhere");
                assertThat(pos.get(0).getLongitude()).isEqualTo(13.36138933897018433);
                assertThat(pos.get(0).getLatitude()).isEqualTo(38.11555639549629859);
                assertThat(pos.get(1)).isNull();
                assertThat(j.geodist(k, "Palermo", "Catania")).isEqualTo(166274.1516);
                assertThat(j.geodist(k, "Palermo", "Catania", GeoUnit.KM)).isEqualTo(166.2742);
                assertThat(j.geodist(k, "Palermo", "Nowhere")).isNull();
                assertThat(j.geohash(k, "Palermo", "Catania", "Nowhere"))
                        .containsExactly("sqc8b49rny0", "sqdtr74hyu0", null);
                assertThatThrownBy(() -> j.geoadd(k, 200, 10, "bad"))
                        .hasMessage("ERR invalid longitude,latitude pair 200.000000,10.000000");
                assertThatThrownBy(() -> j.sendCommand(Protocol.Command.GEODIST, k, "Palermo", "Catania", "yd"))
                        .hasMessage("ERR unsupported unit provided. please use M, KM, FT, MI");
            }
        }
    }

    @Test
    void searches_withJedis_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            try (Jedis j = jedis(proto)) {
                String k = "search" + proto;
                sicily(j, k);
                List<GeoRadiusResponse> near = j.geosearch(k, GeoSearchParam.geoSearchParam()
                        .fromLonLat(15, 37).byRadius(200, GeoUnit.KM).asc().withDist().withCoord().withHash());
                assertThat(near).extracting(GeoRadiusResponse::getMemberByString)
                        .containsExactly("Catania", "Agrigento", "Palermo");
                assertThat(near.get(0).getDistance()).isEqualTo(56.4413);
                assertThat(near.get(0).getRawScore()).isEqualTo(3479447370796909L);
                assertThat(near.get(0).getCoordinate().getLongitude()).isCloseTo(15.087269, within(1e-5));
                List<GeoRadiusResponse> box = j.geosearch(k, GeoSearchParam.geoSearchParam()
                        .fromMember("Palermo").byBox(400, 300, GeoUnit.KM).desc());
                assertThat(box).extracting(GeoRadiusResponse::getMemberByString)
                        .containsExactly("Catania", "Agrigento", "Palermo");
                assertThat(j.geosearch(k, GeoSearchParam.geoSearchParam().fromMember("Palermo")
                        .byBox(400, 100, GeoUnit.KM))).extracting(GeoRadiusResponse::getMemberByString)
                        .containsExactly("Palermo");
                List<GeoRadiusResponse> any = j.geosearch(k, GeoSearchParam.geoSearchParam()
                        .fromLonLat(15, 37).byRadius(500, GeoUnit.KM).count(1, true));
                assertThat(any).hasSize(1);
                List<GeoRadiusResponse> radius = j.georadius(k, 15, 37, 100, GeoUnit.KM,
                        GeoRadiusParam.geoRadiusParam().withDist().sortAscending());
                assertThat(radius).extracting(GeoRadiusResponse::getMemberByString).containsExactly("Catania");
                List<GeoRadiusResponse> byMember = j.georadiusByMemberReadonly(k, "Palermo", 100, GeoUnit.KM);
                assertThat(byMember).extracting(GeoRadiusResponse::getMemberByString)
                        .containsExactlyInAnyOrder("Palermo", "Agrigento");
                assertThatThrownBy(() -> j.sendCommand(Protocol.Command.GEOSEARCH, k, "BYRADIUS", "1", "km", "ASC",
                        "WITHDIST"))
                        .hasMessage("ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH");
            }
        }
    }

    @Test
    void stores_acrossShards() {
        try (Jedis j = jedis(2)) {
            sicily(j, "src-geo");
            assertThat(j.geosearchStore("dst-geo-other", "src-geo", GeoSearchParam.geoSearchParam()
                    .fromLonLat(15, 37).byRadius(200, GeoUnit.KM))).isEqualTo(3);
            assertThat(j.zrange("dst-geo-other", 0, -1)).containsExactly("Agrigento", "Palermo", "Catania");
            assertThat(j.geosearchStoreStoreDist("dst-geo-dist", "src-geo", GeoSearchParam.geoSearchParam()
                    .fromLonLat(15, 37).byRadius(200, GeoUnit.KM))).isEqualTo(3);
            assertThat(j.zscore("dst-geo-dist", "Catania")).isCloseTo(56.4413, within(1e-4));
            assertThat(j.georadiusByMemberStore("src-geo", "Palermo", 100, GeoUnit.KM,
                    GeoRadiusParam.geoRadiusParam(), GeoRadiusStoreParam.geoRadiusStoreParam().store("st-geo")))
                    .isEqualTo(2);
            assertThat(j.zcard("st-geo")).isEqualTo(2);
            assertThat(j.geosearchStore("dst-geo-other", "src-geo", GeoSearchParam.geoSearchParam()
                    .fromLonLat(0, 0).byRadius(1, GeoUnit.M))).isZero();
            assertThat(j.exists("dst-geo-other")).isFalse();
            // STORE makes GEORADIUS a write with two keys: COMMAND GETKEYS finds both
            Object keys = j.sendCommand(Protocol.Command.COMMAND, "GETKEYS", "GEORADIUS", "src-geo", "15", "37",
                    "100", "km", "STORE", "x1", "STOREDIST", "x2");
            assertThat(keys.toString()).isNotNull();
            @SuppressWarnings("unchecked")
            List<byte[]> list = (List<byte[]>) keys;
            assertThat(list).extracting(String::new).containsExactly("src-geo", "x1", "x2");
            // a repeated STORE writes the last key: it is routed too (Redis's key specs only name the first)
            assertThat(j.georadiusByMemberStore("src-geo", "Palermo", 100, GeoUnit.KM,
                    GeoRadiusParam.geoRadiusParam(), GeoRadiusStoreParam.geoRadiusStoreParam().store("st-a")))
                    .isEqualTo(2);
            for (int i = 0; i < 20; i++) {
                j.sendCommand(Protocol.Command.GEORADIUS, "src-geo", "15", "37", "200", "km", "STORE", "first",
                        "STORE", "last" + i);
                assertThat(j.zcard("last" + i)).isEqualTo(3);
            }
            assertThat(j.exists("first")).isFalse();
        }
    }

    @Test
    void lettuce_bothProtocols() {
        for (int proto : new int[] {2, 3}) {
            RedisClient client = TestServers.lettuce(server.port(), proto);
            try (StatefulRedisConnection<String, String> c = client.connect()) {
                RedisCommands<String, String> r = c.sync();
                String k = "lgeo" + proto;
                assertThat(r.geoadd(k, 13.361389, 38.115556, "Palermo", 15.087269, 37.502669, "Catania"))
                        .isEqualTo(2);
                List<GeoCoordinates> pos = r.geopos(k, "Palermo", "x");
                assertThat(pos.get(0).getX().doubleValue()).isEqualTo(13.36138933897018433);
                assertThat(pos.get(1)).isNull();
                assertThat(r.geodist(k, "Palermo", "Catania", GeoArgs.Unit.km)).isEqualTo(166.2742);
                assertThat(r.geohash(k, "Palermo").get(0).getValue()).isEqualTo("sqc8b49rny0");
                List<GeoWithin<String>> found = r.geosearch(k, GeoSearch.fromCoordinates(15, 37),
                        GeoSearch.byRadius(200, GeoArgs.Unit.km),
                        new GeoArgs().withDistance().withCoordinates().withHash().asc());
                assertThat(found).extracting(GeoWithin::getMember).containsExactly("Catania", "Palermo");
                assertThat(found.get(0).getDistance()).isEqualTo(56.4413);
                assertThat(found.get(1).getCoordinates().getY().doubleValue()).isEqualTo(38.11555639549629859);
                assertThat(r.georadius(k, 15, 37, 200, GeoArgs.Unit.km)).containsExactlyInAnyOrder("Palermo",
                        "Catania");
                assertThat(r.georadius(k, 15, 37, 200, GeoArgs.Unit.km,
                        new GeoRadiusStoreArgs<String>().withStore("lstore" + proto))).isEqualTo(2);
                assertThat(r.geosearchstore("lss" + proto, k, GeoSearch.fromMember("Palermo"),
                        GeoSearch.byBox(400, 400, GeoArgs.Unit.km), new GeoArgs(), true)).isEqualTo(2);
                assertThat(r.zscore("lss" + proto, "Palermo")).isZero();
            } finally {
                client.shutdown();
            }
        }
    }
}
