package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.script.NumberFormat;
import io.tide.store.GeoHash;
import io.tide.store.ZSetValue;
import io.tide.store.ZSetValue.ScoreRange;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Thread-safe (stateless). The geo commands (Redis's geo.c): a geo set is a sorted set whose scores are
 * 52-bit geohashes ({@link GeoHash}); GEOADD goes through ZADD, searches scan the nine cells Redis scans and
 * filter by the same haversine distance. Distances are printed with four decimals and coordinates as Redis
 * prints them ({@code %.17Lf} without trailing zeros), in RESP3 as double frames with that same text.
 */
public final class GeoCommands {

    // georadiusGeneric's flags.
    private static final int RADIUS_COORDS = 1;
    private static final int RADIUS_MEMBER = 1 << 1;
    private static final int RADIUS_NOSTORE = 1 << 2;
    private static final int GEOSEARCH = 1 << 3;
    private static final int GEOSEARCHSTORE = 1 << 4;
    private static final int SORT_NONE = 0;
    private static final int SORT_ASC = 1;
    private static final int SORT_DESC = 2;

    private GeoCommands() {}

    public static void register(CommandTable t) {
        t.group("geo");
        t.add("geoadd", -5, "write denyoom", 1, 1, 1, "@geo", "3.2.0",
                "Adds one or more members to a geospatial index. The key is created if it doesn't exist.",
                Handler.GEOADD);
        t.add("geodist", -4, "readonly", 1, 1, 1, "@geo", "3.2.0",
                "Returns the distance between two members of a geospatial index.", Handler.GEODIST);
        t.add("geohash", -2, "readonly", 1, 1, 1, "@geo", "3.2.0",
                "Returns members from a geospatial index as geohash strings.", Handler.GEOHASH);
        t.add("geopos", -2, "readonly", 1, 1, 1, "@geo", "3.2.0",
                "Returns the longitude and latitude of members from a geospatial index.", Handler.GEOPOS);
        t.add("georadius", -6, "write denyoom", 1, 1, 1, "@geo", "3.2.0",
                "Queries a geospatial index for members within a distance from a coordinate, optionally stores "
                        + "the result.", Handler.GEORADIUS).keysBy(radiusKeys(6));
        t.add("georadius_ro", -6, "readonly", 1, 1, 1, "@geo", "3.2.10",
                "Returns members from a geospatial index that are within a distance from a coordinate.",
                Handler.GEORADIUS_RO);
        t.add("georadiusbymember", -5, "write denyoom", 1, 1, 1, "@geo", "3.2.0",
                "Queries a geospatial index for members within a distance from a member, optionally stores the "
                        + "result.", Handler.GEORADIUSBYMEMBER).keysBy(radiusKeys(5));
        t.add("georadiusbymember_ro", -5, "readonly", 1, 1, 1, "@geo", "3.2.10",
                "Returns members from a geospatial index that are within a distance from a member.",
                Handler.GEORADIUSBYMEMBER_RO);
        t.add("geosearch", -7, "readonly", 1, 1, 1, "@geo", "6.2.0",
                "Queries a geospatial index for members inside an area of a box or a circle.", Handler.GEOSEARCH);
        t.add("geosearchstore", -8, "write denyoom", 1, 2, 1, "@geo", "6.2.0",
                "Queries a geospatial index for members inside an area of a box or a circle, optionally stores "
                        + "the result.", Handler.GEOSEARCHSTORE);
    }

    /**
     * GEORADIUS[BYMEMBER]'s keys, as Redis's key specs find them: the source, then the key after the first
     * STORE and the key after the first STOREDIST among the options (from argv[{@code optionsFrom}]); then any
     * later STORE/STOREDIST key, since the last one given is the one written.
     */
    static CommandSpec.KeyFinder radiusKeys(int optionsFrom) {
        return argv -> {
            if (argv.length < 2) return new byte[0][];
            List<byte[]> keys = new ArrayList<>(3);
            keys.add(argv[1]);
            List<Integer> taken = new ArrayList<>();
            for (String keyword : new String[] {"store", "storedist"}) {
                for (int i = optionsFrom; i < argv.length; i++) {
                    if (Args.is(argv[i], keyword)) {
                        if (i + 1 < argv.length) {
                            keys.add(argv[i + 1]);
                            taken.add(i + 1);
                        }
                        break;
                    }
                }
            }
            for (int i = optionsFrom; i < argv.length; i++) {
                if ((Args.is(argv[i], "store") || Args.is(argv[i], "storedist")) && i + 1 < argv.length) {
                    if (!taken.contains(i + 1)) keys.add(argv[i + 1]);
                    i++;
                }
            }
            return keys.toArray(new byte[0][]);
        };
    }

    // ------------------------------------------------------------------ formatting

    /** Redis's ld2string(LD_STR_HUMAN) of a double: {@code %.17Lf} without trailing zeros, "-0" as "0". */
    static String human(double d) {
        if (Double.isInfinite(d)) return d > 0 ? "inf" : "-inf";
        String s = NumberFormat.f(d, 17);
        int end = s.length();
        while (s.charAt(end - 1) == '0') end--;
        if (s.charAt(end - 1) == '.') end--;
        s = s.substring(0, end);
        return s.equals("-0") ? "0" : s;
    }

    /** A coordinate reply (addReplyHumanLongDouble): a bulk string in RESP2, a double with that text in RESP3. */
    private static Reply coordinate(double d, boolean resp3) {
        String text = human(d);
        if (!resp3) return Reply.bulk(text);
        return new Reply.Raw(("," + text + "\r\n").getBytes(StandardCharsets.US_ASCII));
    }

    // ------------------------------------------------------------------ argument helpers

    /** extractLongLatOrReply: two floats within Redis's longitude and latitude limits. */
    private static double[] lonLat(byte[][] argv, int at) {
        double lon = ZSetCommands.parseDouble(argv[at], Errors.NOT_FLOAT);
        double lat = ZSetCommands.parseDouble(argv[at + 1], Errors.NOT_FLOAT);
        if (lon < GeoHash.LONG_MIN || lon > GeoHash.LONG_MAX || lat < GeoHash.LAT_MIN || lat > GeoHash.LAT_MAX) {
            throw Errors.error(Errors.GEO_INVALID_PAIR + NumberFormat.f(lon, 6) + "," + NumberFormat.f(lat, 6));
        }
        return new double[] {lon, lat};
    }

    /** extractUnitOrReply: meters per unit. */
    private static double unit(byte[] u) {
        if (Args.is(u, "m")) return 1;
        if (Args.is(u, "km")) return 1000;
        if (Args.is(u, "ft")) return 0.3048;
        if (Args.is(u, "mi")) return 1609.34;
        throw Errors.error(Errors.GEO_UNIT);
    }

    /** The stored position of {@code member}, or null. */
    private static double[] position(ZSetValue z, byte[] member) {
        double s = z.score(member);
        return Double.isNaN(s) ? null : GeoHash.decodeScore(s);
    }

    // ------------------------------------------------------------------ GEOADD, GEODIST, GEOHASH, GEOPOS

    static Reply geoadd(CommandContext ctx, byte[][] argv) {
        boolean xx = false;
        boolean nx = false;
        int longIdx = 2;
        while (longIdx < argv.length) {
            byte[] o = argv[longIdx];
            if (Args.is(o, "nx")) nx = true;
            else if (Args.is(o, "xx")) xx = true;
            else if (!Args.is(o, "ch")) break;
            longIdx++;
        }
        if ((argv.length - longIdx) % 3 != 0 || (xx && nx)) throw Errors.syntax();
        int elements = (argv.length - longIdx) / 3;
        byte[][] zadd = new byte[longIdx + elements * 2][];
        zadd[0] = "zadd".getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(argv, 1, zadd, 1, longIdx - 1);
        for (int i = 0; i < elements; i++) {
            int at = longIdx + i * 3;
            double[] xy = lonLat(argv, at);
            zadd[longIdx + i * 2] = Args.bytes(GeoHash.scoreOf(xy[0], xy[1]));
            zadd[longIdx + i * 2 + 1] = argv[at + 2];
        }
        return ZSetCommands.zaddGeneric(ctx, zadd, 0);
    }

    static Reply geodist(CommandContext ctx, byte[][] argv) {
        double toMeter = 1;
        if (argv.length == 5) toMeter = unit(argv[4]);
        else if (argv.length > 5) throw Errors.syntax();
        ZSetValue z = ZSetCommands.zset(ctx.read(argv[1]));
        if (z == null) return Reply.NULL;
        double[] a = position(z, argv[2]);
        double[] b = a == null ? null : position(z, argv[3]);
        if (b == null) return Reply.NULL;
        return Reply.bulk(NumberFormat.f(GeoHash.distance(a[0], a[1], b[0], b[1]) / toMeter, 4));
    }

    static Reply geohash(CommandContext ctx, byte[][] argv) {
        ZSetValue z = ZSetCommands.zset(ctx.read(argv[1]));
        Reply[] out = new Reply[argv.length - 2];
        for (int j = 2; j < argv.length; j++) {
            double s = z == null ? Double.NaN : z.score(argv[j]);
            out[j - 2] = Double.isNaN(s) ? Reply.NULL : Reply.bulk(GeoHash.standardGeohash(s));
        }
        return Reply.array(out);
    }

    static Reply geopos(CommandContext ctx, byte[][] argv) {
        ZSetValue z = ZSetCommands.zset(ctx.read(argv[1]));
        boolean resp3 = ZSetCommands.resp3(ctx);
        Reply[] out = new Reply[argv.length - 2];
        for (int j = 2; j < argv.length; j++) {
            double[] xy = z == null ? null : position(z, argv[j]);
            out[j - 2] = xy == null ? Reply.NULL_ARRAY
                    : Reply.array(coordinate(xy[0], resp3), coordinate(xy[1], resp3));
        }
        return Reply.array(out);
    }

    // ------------------------------------------------------------------ searches

    static Reply georadius(CommandContext ctx, byte[][] argv) {
        return search(ctx, argv, 1, RADIUS_COORDS);
    }

    static Reply georadiusRo(CommandContext ctx, byte[][] argv) {
        return search(ctx, argv, 1, RADIUS_COORDS | RADIUS_NOSTORE);
    }

    static Reply georadiusbymember(CommandContext ctx, byte[][] argv) {
        return search(ctx, argv, 1, RADIUS_MEMBER);
    }

    static Reply georadiusbymemberRo(CommandContext ctx, byte[][] argv) {
        return search(ctx, argv, 1, RADIUS_MEMBER | RADIUS_NOSTORE);
    }

    static Reply geosearch(CommandContext ctx, byte[][] argv) {
        return search(ctx, argv, 1, GEOSEARCH);
    }

    static Reply geosearchstore(CommandContext ctx, byte[][] argv) {
        return search(ctx, argv, 2, GEOSEARCH | GEOSEARCHSTORE);
    }

    /** A search shape under construction: centre, circle or box, unit. */
    private static final class Area {
        double lon;
        double lat;
        boolean circle = true;
        double radius;
        double width;
        double height;
        double conversion = 1;

        /** extractDistanceOrReply. */
        void radius(byte[][] argv, int at) {
            double d = ZSetCommands.parseDouble(argv[at], Errors.GEO_NEED_RADIUS);
            if (d < 0) throw Errors.error(Errors.GEO_RADIUS_NEGATIVE);
            radius = d;
            conversion = unit(argv[at + 1]);
            circle = true;
        }

        /** extractBoxOrReply. */
        void box(byte[][] argv, int at) {
            double w = ZSetCommands.parseDouble(argv[at], Errors.GEO_NEED_WIDTH);
            double h = ZSetCommands.parseDouble(argv[at + 1], Errors.GEO_NEED_HEIGHT);
            if (h < 0 || w < 0) throw Errors.error(Errors.GEO_BOX_NEGATIVE);
            width = w;
            height = h;
            conversion = unit(argv[at + 2]);
            circle = false;
        }

        GeoHash.Shape shape() {
            return new GeoHash.Shape(lon, lat, circle, radius, width, height, conversion);
        }
    }

    /** A point found by a search. */
    private record Point(byte[] member, double lon, double lat, double dist, double score) {}

    /** Redis's georadiusGeneric. */
    private static Reply search(CommandContext ctx, byte[][] argv, int srcKeyIndex, int flags) {
        byte[] storeKey = null;
        boolean storeDist = false;
        ZSetValue z = ZSetCommands.zset(ctx.read(argv[srcKeyIndex]));
        Area area = new Area();
        int base;
        if ((flags & RADIUS_COORDS) != 0) {
            base = 6;
            double[] xy = lonLat(argv, 2);
            area.lon = xy[0];
            area.lat = xy[1];
            area.radius(argv, base - 2);
        } else if ((flags & RADIUS_MEMBER) != 0 && z == null) {
            base = 5;
        } else if ((flags & RADIUS_MEMBER) != 0) {
            base = 5;
            double[] xy = position(z, argv[2]);
            if (xy == null) throw Errors.error(Errors.GEO_MEMBER);
            area.lon = xy[0];
            area.lat = xy[1];
            area.radius(argv, base - 2);
        } else {
            base = 2;
            if ((flags & GEOSEARCHSTORE) != 0) {
                base = 3;
                storeKey = argv[1];
            }
        }
        boolean withDist = false;
        boolean withHash = false;
        boolean withCoords = false;
        boolean fromMember = false;
        boolean fromLoc = false;
        boolean byRadius = false;
        boolean byBox = false;
        int sort = SORT_NONE;
        boolean any = false;
        long count = 0;
        boolean search = (flags & GEOSEARCH) != 0;
        boolean mayStore = (flags & RADIUS_NOSTORE) == 0 && !search;
        for (int i = base; i < argv.length; i++) {
            byte[] arg = argv[i];
            int left = argv.length - i - 1;
            if (Args.is(arg, "withdist")) {
                withDist = true;
            } else if (Args.is(arg, "withhash")) {
                withHash = true;
            } else if (Args.is(arg, "withcoord")) {
                withCoords = true;
            } else if (Args.is(arg, "any")) {
                any = true;
            } else if (Args.is(arg, "asc")) {
                sort = SORT_ASC;
            } else if (Args.is(arg, "desc")) {
                sort = SORT_DESC;
            } else if (Args.is(arg, "count") && left >= 1) {
                count = Args.parseLong(argv[i + 1]);
                if (count <= 0) throw Errors.error(Errors.COUNT_NOT_ABOVE_ZERO);
                i++;
            } else if (Args.is(arg, "store") && left >= 1 && mayStore) {
                storeKey = argv[i + 1];
                storeDist = false;
                i++;
            } else if (Args.is(arg, "storedist") && left >= 1 && mayStore) {
                storeKey = argv[i + 1];
                storeDist = true;
                i++;
            } else if (Args.is(arg, "storedist") && search && (flags & GEOSEARCHSTORE) != 0) {
                storeDist = true;
            } else if (Args.is(arg, "frommember") && left >= 1 && search && !fromLoc) {
                if (z != null) {
                    double[] xy = position(z, argv[i + 1]);
                    if (xy == null) throw Errors.error(Errors.GEO_MEMBER);
                    area.lon = xy[0];
                    area.lat = xy[1];
                }
                fromMember = true;
                i++;
            } else if (Args.is(arg, "fromlonlat") && left >= 2 && search && !fromMember) {
                double[] xy = lonLat(argv, i + 1);
                area.lon = xy[0];
                area.lat = xy[1];
                fromLoc = true;
                i += 2;
            } else if (Args.is(arg, "byradius") && left >= 2 && search && !byBox) {
                area.radius(argv, i + 1);
                byRadius = true;
                i += 2;
            } else if (Args.is(arg, "bybox") && left >= 3 && search && !byRadius) {
                area.box(argv, i + 1);
                byBox = true;
                i += 3;
            } else {
                throw Errors.syntax();
            }
        }
        if (storeKey != null && (withDist || withHash || withCoords)) {
            throw Errors.error((flags & GEOSEARCHSTORE) != 0 ? Errors.GEOSEARCHSTORE_OPTIONS
                    : Errors.GEORADIUS_STORE_OPTIONS);
        }
        if (search && !(fromMember || fromLoc)) throw Errors.error(Errors.GEO_FROM + Args.text(argv[0]));
        if (search && !(byRadius || byBox)) throw Errors.error(Errors.GEO_BY + Args.text(argv[0]));
        if (any && count == 0) throw Errors.error(Errors.GEO_ANY_NEEDS_COUNT);
        if (z == null) {
            if (storeKey != null) {
                if (ctx.db(storeKey).remove(storeKey) != null) ctx.notify(KeyspaceEvents.GENERIC, "del", storeKey);
                return Reply.ZERO;
            }
            return Reply.EMPTY_ARRAY;
        }
        if (count != 0 && sort == SORT_NONE && !any) sort = SORT_ASC;

        GeoHash.Shape shape = area.shape();
        List<Point> points = collect(z, shape, any ? count : 0);
        if (points.isEmpty() && storeKey == null) return Reply.EMPTY_ARRAY;
        int returned = count == 0 || points.size() < count ? points.size() : (int) count;
        if (sort == SORT_ASC) points.sort(Comparator.comparingDouble(Point::dist));
        else if (sort == SORT_DESC) points.sort(Comparator.comparingDouble(Point::dist).reversed());

        if (storeKey == null) {
            boolean resp3 = ZSetCommands.resp3(ctx);
            boolean options = withDist || withHash || withCoords;
            Reply[] out = new Reply[returned];
            for (int i = 0; i < returned; i++) {
                Point p = points.get(i);
                if (!options) {
                    out[i] = Reply.bulk(p.member());
                    continue;
                }
                List<Reply> item = new ArrayList<>(4);
                item.add(Reply.bulk(p.member()));
                if (withDist) item.add(Reply.bulk(NumberFormat.f(p.dist() / shape.conversion(), 4)));
                if (withHash) item.add(Reply.integer((long) p.score()));
                if (withCoords) item.add(Reply.array(coordinate(p.lon(), resp3), coordinate(p.lat(), resp3)));
                out[i] = Reply.array(item);
            }
            return Reply.array(out);
        }
        if (returned == 0) {
            if (ctx.db(storeKey).remove(storeKey) != null) ctx.notify(KeyspaceEvents.GENERIC, "del", storeKey);
            return Reply.ZERO;
        }
        List<Point> kept = new ArrayList<>(points.subList(0, returned));
        boolean byDist = storeDist;
        double conv = shape.conversion();
        kept.sort((a, b) -> {
            double sa = byDist ? a.dist() / conv : a.score();
            double sb = byDist ? b.dist() / conv : b.score();
            if (sa < sb) return -1;
            if (sa > sb) return 1;
            return java.util.Arrays.compareUnsigned(a.member(), b.member());
        });
        byte[][] members = new byte[returned][];
        double[] scores = new double[returned];
        for (int i = 0; i < returned; i++) {
            Point p = kept.get(i);
            members[i] = p.member();
            scores[i] = byDist ? p.dist() / conv : p.score();
        }
        ZSetValue out = ZSetValue.fromSorted(members, scores, returned, ZSetCommands.limits(ctx));
        ctx.db(storeKey).put(storeKey, out, 0, ctx.now());
        ctx.notify(KeyspaceEvents.ZSET, search ? "geosearchstore" : "georadiusstore", storeKey);
        return Reply.integer(returned);
    }

    /** membersOfAllNeighbors: the points of the nine cells within the shape, stopping at {@code limit} (ANY). */
    private static List<Point> collect(ZSetValue z, GeoHash.Shape shape, long limit) {
        List<Point> points = new ArrayList<>();
        double[] dist = new double[1];
        for (long[] cell : GeoHash.searchIntervals(shape)) {
            if (cell == null) continue;
            if (!points.isEmpty() && limit > 0 && points.size() >= limit) break;
            ScoreRange range = new ScoreRange(cell[0], false, cell[1], true);
            int first = z.firstInRange(range);
            if (first < 0) continue;
            z.walk(first, false, (m, s) -> {
                if (!range.lteMax(s)) return false;
                double[] xy = GeoHash.decodeScore(s);
                if (shape.contains(xy[0], xy[1], dist)) points.add(new Point(m, xy[0], xy[1], dist[0], s));
                return !(!points.isEmpty() && limit > 0 && points.size() >= limit);
            });
        }
        return points;
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        GEOADD,
        GEODIST,
        GEOHASH,
        GEOPOS,
        GEORADIUS,
        GEORADIUS_RO,
        GEORADIUSBYMEMBER,
        GEORADIUSBYMEMBER_RO,
        GEOSEARCH,
        GEOSEARCHSTORE;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case GEOADD -> geoadd(ctx, argv);
                case GEODIST -> geodist(ctx, argv);
                case GEOHASH -> geohash(ctx, argv);
                case GEOPOS -> geopos(ctx, argv);
                case GEORADIUS -> georadius(ctx, argv);
                case GEORADIUS_RO -> georadiusRo(ctx, argv);
                case GEORADIUSBYMEMBER -> georadiusbymember(ctx, argv);
                case GEORADIUSBYMEMBER_RO -> georadiusbymemberRo(ctx, argv);
                case GEOSEARCH -> geosearch(ctx, argv);
                case GEOSEARCHSTORE -> geosearchstore(ctx, argv);
            };
        }
    }
}
