package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.VsRedis;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Geo commands against a real redis-server: byte-identical replies for positions, distances, geohashes and
 * searches over real coordinates (both hemispheres, near the poles and the antimeridian), in RESP2 and RESP3,
 * with Tide on two shards so STORE variants run coordinated.
 */
class GeoCommandsVsRedisTest extends VsRedis {

    private static final String[] CITIES = {
        "13.361389 38.115556 Palermo", "15.087269 37.502669 Catania", "2.349014 48.864716 Paris",
        "-0.118092 51.509865 London", "-74.005974 40.712776 NewYork", "139.691711 35.689487 Tokyo",
        "151.209290 -33.868820 Sydney", "-43.172897 -22.906847 Rio", "18.423300 -33.918861 CapeTown",
        "174.763336 -36.848461 Auckland", "-149.900284 61.218056 Anchorage", "179.9999 0.0001 East",
        "-179.9999 -0.0001 West", "0 0 Origin", "-180 -85.05112878 SouthWest", "180 85.05112878 NorthEast",
        "12.496366 41.902782 Rome", "9.189982 45.464204 Milan", "14.268124 40.851775 Naples",
        "13.361389 39.115556 NorthOfPalermo", "-58.381592 -34.603722 BuenosAires", "37.617300 55.755826 Moscow",
        "-122.419418 37.774929 SanFrancisco", "103.819836 1.352083 Singapore", "25.0 82.0 Svalbard",
    };

    GeoCommandsVsRedisTest() {
        super("g");
    }

    /**
     * Like {@link #same} for replies holding arbitrary doubles (STOREDIST scores), which Redis 7.0 prints with
     * %.17g and Redis 7.2+ (and Tide) in the shortest form: numbers must be the same doubles, the rest equal.
     */
    private void sameNumbers(String... args) throws IOException {
        String[] expected = r().call(args).split("\r\n");
        String[] actual = t().call(args).split("\r\n");
        assertThat(actual.length).as(String.join(" ", args)).isEqualTo(expected.length);
        for (int i = 0; i < expected.length; i++) {
            String e = expected[i];
            String a = actual[i];
            if (e.startsWith("$") && a.startsWith("$")) continue;
            String en = e.startsWith(",") ? e.substring(1) : e;
            String an = a.startsWith(",") ? a.substring(1) : a;
            if (en.matches("-?[0-9.e+]+") && an.matches("-?[0-9.e+]+")) {
                assertThat(Double.parseDouble(an)).as(String.join(" ", args)).isEqualTo(Double.parseDouble(en));
            } else {
                assertThat(a).as(String.join(" ", args)).isEqualTo(e);
            }
        }
    }

    private void script(String... lines) throws IOException {
        for (String line : lines) {
            String[] words = line.trim().split(" +");
            for (int i = 0; i < words.length; i++) words[i] = words[i].replace("%", prefix());
            if (line.startsWith("~")) {
                words[0] = words[0].substring(1);
                sameNumbers(words);
            } else {
                same(words);
            }
        }
    }

    private void addCities(String key) throws IOException {
        List<String> args = new ArrayList<>(List.of("GEOADD", key));
        for (String c : CITIES) args.addAll(List.of(c.split(" ")));
        same(args.toArray(new String[0]));
    }

    private static List<String> names() {
        List<String> out = new ArrayList<>();
        for (String c : CITIES) out.add(c.split(" ")[2]);
        return out;
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void positionsDistancesAndHashes(int proto) throws IOException {
        protocol(proto);
        addCities(k("c"));
        List<String> pos = new ArrayList<>(List.of("GEOPOS", k("c")));
        pos.addAll(names());
        pos.add("Nowhere");
        same(pos.toArray(new String[0]));
        List<String> hash = new ArrayList<>(List.of("GEOHASH", k("c")));
        hash.addAll(names());
        hash.add("Nowhere");
        same(hash.toArray(new String[0]));
        List<String> n = names();
        for (int i = 0; i < n.size(); i++) {
            for (String unit : new String[] {"m", "km", "mi", "ft", "KM"}) {
                same("GEODIST", k("c"), n.get(i), n.get((i * 7 + 3) % n.size()), unit);
            }
            same("GEODIST", k("c"), n.get(i), n.get((i + 1) % n.size()));
        }
        same("ZRANGE", k("c"), "0", "-1", "WITHSCORES");
        script(
                "GEODIST %c Palermo Nowhere",
                "GEODIST %missing Palermo Catania",
                "GEODIST %c Palermo Catania yards",
                "GEODIST %c Palermo Catania km extra",
                "GEODIST %c Palermo NorthOfPalermo",
                "GEOPOS %missing a b",
                "GEOHASH %missing a");
    }

    /**
     * Positions of members whose scores ZADD wrote, not GEOADD: Redis casts the score to a 64-bit geohash as the x86-64
     * compiler does (out-of-range values, infinities included, come out as 2^63 or, past 2^63, as 0).
     */
    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void positions_ofScoresZaddWrote(int proto) throws IOException {
        protocol(proto);
        same("ZADD", k("z"), "inf", "pinf", "-inf", "ninf", "1e30", "huge", "-1e30", "nhuge", "-5", "neg", "2.5",
                "frac", "9007199254740991", "max52", "1.8446744073709552e19", "two64", "9.3e18", "above63");
        String[] members = {"pinf", "ninf", "huge", "nhuge", "neg", "frac", "max52", "two64", "above63"};
        same(cat("GEOPOS", k("z"), members));
        same(cat("GEOHASH", k("z"), members));
        for (String m : members) same("GEODIST", k("z"), "frac", m);
    }

    private static String[] cat(String command, String key, String[] rest) {
        String[] out = new String[rest.length + 2];
        out[0] = command;
        out[1] = key;
        System.arraycopy(rest, 0, out, 2, rest.length);
        return out;
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void geoadd_optionsAndErrors(int proto) throws IOException {
        protocol(proto);
        script(
                "GEOADD %g 13.361389 38.115556 Palermo",
                "GEOADD %g NX 13.361389 38.115556 Palermo 15.087269 37.502669 Catania",
                "GEOADD %g XX CH 14 38 Palermo 1 1 Nowhere",
                "GEOADD %g CH 14 38 Palermo",
                "GEOADD %g NX XX 1 1 a",
                "GEOADD %g GT 1 1 a",
                "GEOADD %g 1 1",
                "GEOADD %g 200 10 bad",
                "GEOADD %g 10 86 bad",
                "GEOADD %g -180.0000001 0 bad",
                "GEOADD %g x 1 bad",
                "GEOADD %g 1 inf bad",
                "GEOADD %g 1e400 1 bad",
                "GEOADD %g 1e-400 1 bad",
                "GEOADD %g 1 1 ok 1000 1 bad",
                "ZCARD %g",
                "SET %s x",
                "GEOADD %s 1 1 a",
                "GEOPOS %s a",
                "GEODIST %s a b",
                "GEOHASH %s a",
                "GEOSEARCH %s FROMLONLAT 0 0 BYRADIUS 1 km");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void searches_allShapesAndOptions(int proto) throws IOException {
        protocol(proto);
        addCities(k("c"));
        script(
                "GEOSEARCH %c FROMLONLAT 15 37 BYRADIUS 200 km ASC",
                "GEOSEARCH %c FROMLONLAT 15 37 BYRADIUS 200 km DESC WITHCOORD WITHDIST WITHHASH",
                "GEOSEARCH %c FROMLONLAT 15 37 BYRADIUS 500 km",
                "GEOSEARCH %c FROMLONLAT 15 37 BYRADIUS 500 km COUNT 2",
                "GEOSEARCH %c FROMLONLAT 15 37 BYRADIUS 500 km COUNT 2 ANY",
                "GEOSEARCH %c FROMLONLAT 15 37 BYRADIUS 500 km COUNT 2 ANY DESC WITHDIST",
                "GEOSEARCH %c FROMLONLAT 15 37 BYRADIUS 300 mi WITHDIST",
                "GEOSEARCH %c FROMLONLAT 15 37 BYRADIUS 900000 ft WITHDIST ASC",
                "GEOSEARCH %c FROMMEMBER Rome BYRADIUS 1000 km ASC WITHDIST",
                "GEOSEARCH %c FROMMEMBER Rome BYBOX 1200 800 km ASC WITHDIST WITHCOORD",
                "GEOSEARCH %c FROMLONLAT 0 0 BYBOX 20000 20000 km ASC",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 20000 km ASC",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 0 m WITHDIST",
                "GEOSEARCH %c FROMLONLAT 180 0 BYRADIUS 100 km WITHDIST ASC",
                "GEOSEARCH %c FROMLONLAT -180 0 BYBOX 100 100 km WITHDIST ASC",
                "GEOSEARCH %c FROMLONLAT 30 83 BYRADIUS 1500 km WITHDIST ASC",
                "GEOSEARCH %c FROMLONLAT 170 -40 BYRADIUS 3000 km WITHDIST ASC",
                "GEOSEARCH %c FROMLONLAT -60 -30 BYBOX 4000 2000 km WITHDIST DESC",
                "GEOSEARCH %c FROMMEMBER Nowhere BYRADIUS 1 km",
                "GEOSEARCH %missing FROMMEMBER Nowhere BYRADIUS 1 km",
                "GEOSEARCH %missing FROMLONLAT 0 0 BYRADIUS 1 km",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 1 km FROMMEMBER Rome",
                "GEOSEARCH %c FROMMEMBER Rome FROMLONLAT 0 0 BYRADIUS 1 km",
                "GEOSEARCH %c BYRADIUS 1 km FROMLONLAT 0 0 BYBOX 1 1 km",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 1 km",
                "GEOSEARCH %c BYRADIUS 1 km WITHDIST",
                "geosearch %c BYRADIUS 1 km ASC",
                "GEOSEARCH %c FROMLONLAT 0 0 WITHDIST ASC",
                "GeoSearch %c FROMLONLAT 0 0 WITHDIST ASC",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 1 km ANY",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 1 km COUNT 0",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 1 km COUNT x",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS -1 km",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS x km",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 1 parsec",
                "GEOSEARCH %c FROMLONLAT 0 0 BYBOX 1 -1 km",
                "GEOSEARCH %c FROMLONLAT 0 0 BYBOX x 1 km",
                "GEOSEARCH %c FROMLONLAT 0 0 BYBOX 1 x km",
                "GEOSEARCH %c FROMLONLAT 500 0 BYBOX 1 1 km",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 1 km STORE x",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 1 km STOREDIST",
                "GEOSEARCH %c FROMLONLAT 0 0 BYRADIUS 1",
                "GEOSEARCHSTORE %dst %c FROMLONLAT 15 37 BYRADIUS 500 km",
                "ZRANGE %dst 0 -1 WITHSCORES",
                "GEOSEARCHSTORE %dst %c FROMLONLAT 15 37 BYRADIUS 500 km STOREDIST COUNT 3",
                "~ZRANGE %dst 0 -1 WITHSCORES",
                "OBJECT ENCODING %dst",
                "GEOSEARCHSTORE %dst %c FROMLONLAT 15 37 BYRADIUS 1 m",
                "EXISTS %dst",
                "GEOSEARCHSTORE %dst %missing FROMLONLAT 15 37 BYRADIUS 1 m",
                "GEOSEARCHSTORE %dst %c FROMLONLAT 15 37 BYRADIUS 500 km WITHDIST",
                "GEOSEARCHSTORE %dst %c FROMLONLAT 15 37 BYRADIUS 500 km STORE x");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void georadius_legacyCommands(int proto) throws IOException {
        protocol(proto);
        addCities(k("c"));
        script(
                "GEORADIUS %c 15 37 200 km",
                "GEORADIUS %c 15 37 200 km WITHDIST WITHCOORD WITHHASH ASC",
                "GEORADIUS %c 15 37 2000 km COUNT 3 DESC",
                "GEORADIUS %c 15 37 2000 km COUNT 3 ANY",
                "GEORADIUS %c 15 37 2000 km STORE %st",
                "ZRANGE %st 0 -1 WITHSCORES",
                "GEORADIUS %c 15 37 2000 km STOREDIST %st COUNT 2",
                "~ZRANGE %st 0 -1 WITHSCORES",
                "GEORADIUS %c 15 37 2000 km STORE %st WITHDIST",
                "GEORADIUS %c 15 37 2000 km STORE",
                "GEORADIUS %c 15 37 -1 km",
                "GEORADIUS %c 200 37 1 km",
                "GEORADIUS %c 15 37 1 km FROMLONLAT 1 1",
                "GEORADIUS_RO %c 15 37 2000 km WITHDIST ASC",
                "GEORADIUS_RO %c 15 37 2000 km STORE %st",
                "GEORADIUSBYMEMBER %c Palermo 300 km WITHDIST ASC",
                "GEORADIUSBYMEMBER %c Palermo 300 km STORE %st2",
                "ZRANGE %st2 0 -1 WITHSCORES",
                "GEORADIUSBYMEMBER %c Nowhere 300 km",
                "GEORADIUSBYMEMBER %missing Nowhere -300 parsec",
                "GEORADIUSBYMEMBER %missing Nowhere 1 km STORE %st2",
                "EXISTS %st2",
                "GEORADIUSBYMEMBER_RO %c Tokyo 10000 km WITHCOORD DESC COUNT 4",
                "GEORADIUSBYMEMBER_RO %c Tokyo 10000 km STOREDIST %st");
    }

    @ParameterizedTest(name = "resp{0}")
    @ValueSource(ints = {2, 3})
    void manyPoints_skiplistEncoding(int proto) throws IOException {
        protocol(proto);
        Random rnd = new Random(42);
        List<String> args = new ArrayList<>(List.of("GEOADD", k("many")));
        for (int i = 0; i < 400; i++) {
            double lon = 10 + rnd.nextDouble() * 10;
            double lat = 35 + rnd.nextDouble() * 10;
            args.add(String.format(Locale.ROOT, "%.6f", lon));
            args.add(String.format(Locale.ROOT, "%.6f", lat));
            args.add("p" + i);
        }
        same(args.toArray(new String[0]));
        script(
                "OBJECT ENCODING %many",
                "GEOSEARCH %many FROMLONLAT 15 40 BYRADIUS 100 km ASC WITHDIST WITHCOORD",
                "GEOSEARCH %many FROMLONLAT 15 40 BYBOX 300 150 km DESC WITHDIST",
                "GEOSEARCH %many FROMMEMBER p7 BYRADIUS 250 km COUNT 10 WITHHASH",
                "GEOSEARCH %many FROMMEMBER p7 BYRADIUS 250 km COUNT 10 ANY",
                "GEOSEARCH %many FROMLONLAT 12 37 BYRADIUS 50 km",
                "GEOSEARCHSTORE %out %many FROMLONLAT 15 40 BYRADIUS 400 km",
                "OBJECT ENCODING %out",
                "ZCARD %out",
                "GEOPOS %many p0 p1 p2 p399",
                "GEOHASH %many p0 p1 p2 p399",
                "GEODIST %many p0 p399 km");
    }
}
