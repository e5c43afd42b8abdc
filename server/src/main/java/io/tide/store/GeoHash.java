package io.tide.store;

/**
 * Thread-safe (pure functions). Redis's geohash arithmetic (geohash.c, geohash_helper.c): 52-bit
 * interleaved cell numbers (latitude in the even bits, longitude in the odd ones) over longitudes
 * -180..180 and the Web Mercator latitudes -85.05112878..85.05112878, the haversine distance on Redis's
 * earth radius, and the choice of the nine cells (centre plus neighbours) a radius or box search scans.
 * The same operations in the same order as Redis, so results agree to the last bit.
 */
public final class GeoHash {

    public static final double LONG_MIN = -180;
    public static final double LONG_MAX = 180;
    public static final double LAT_MIN = -85.05112878;
    public static final double LAT_MAX = 85.05112878;
    /** Bits per coordinate of a stored position: 26, so a score has 52 bits. */
    public static final int STEP_MAX = 26;
    public static final double EARTH_RADIUS_IN_METERS = 6372797.560856;
    private static final double MERCATOR_MAX = 20037726.37;
    private static final double D_R = Math.PI / 180.0;
    private static final double GEO_EPSILON = 1e-15;

    private GeoHash() {}

    private static double degRad(double ang) {
        return ang * D_R;
    }

    private static double radDeg(double ang) {
        return ang / D_R;
    }

    // ---------------------------------------------------------------- bits

    private static long spread(long x) {
        x &= 0xFFFFFFFFL;
        x = (x | (x << 16)) & 0x0000FFFF0000FFFFL;
        x = (x | (x << 8)) & 0x00FF00FF00FF00FFL;
        x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FL;
        x = (x | (x << 2)) & 0x3333333333333333L;
        x = (x | (x << 1)) & 0x5555555555555555L;
        return x;
    }

    private static long squash(long x) {
        x &= 0x5555555555555555L;
        x = (x | (x >>> 1)) & 0x3333333333333333L;
        x = (x | (x >>> 2)) & 0x0F0F0F0F0F0F0F0FL;
        x = (x | (x >>> 4)) & 0x00FF00FF00FF00FFL;
        x = (x | (x >>> 8)) & 0x0000FFFF0000FFFFL;
        x = (x | (x >>> 16)) & 0x00000000FFFFFFFFL;
        return x;
    }

    /**
     * geohashEncode over the given ranges: the cell of {@code step} bits per coordinate holding the point, or
     * -1 when the point is outside the WGS84 limits or the ranges.
     */
    public static long encode(double longMin, double longMax, double latMin, double latMax,
                              double longitude, double latitude, int step) {
        if (longitude > LONG_MAX || longitude < LONG_MIN || latitude > LAT_MAX || latitude < LAT_MIN) return -1;
        if (latitude < latMin || latitude > latMax || longitude < longMin || longitude > longMax) return -1;
        double latOffset = (latitude - latMin) / (latMax - latMin);
        double longOffset = (longitude - longMin) / (longMax - longMin);
        latOffset *= (double) (1L << step);
        longOffset *= (double) (1L << step);
        return spread((long) latOffset) | (spread((long) longOffset) << 1);
    }

    /** geohashEncodeWGS84. */
    public static long encodeWGS84(double longitude, double latitude, int step) {
        return encode(LONG_MIN, LONG_MAX, LAT_MIN, LAT_MAX, longitude, latitude, step);
    }

    /** geohashAlign52Bits: the cell's bits shifted to a 52-bit score prefix. */
    public static long align52(long bits, int step) {
        return bits << (52 - step * 2);
    }

    /** The score of a stored position: the 26-step WGS84 cell, as GEOADD computes it. */
    public static long scoreOf(double longitude, double latitude) {
        return align52(encodeWGS84(longitude, latitude, STEP_MAX), STEP_MAX);
    }

    /** geohashDecode over the WGS84 ranges: {lonMin, lonMax, latMin, latMax} of the cell. */
    static double[] decodeArea(long bits, int step) {
        long sep = squash(bits) | (squash(bits >>> 1) << 32);
        double ilato = (double) (sep & 0xFFFFFFFFL);
        double ilono = (double) (sep >>> 32);
        double cells = (double) (1L << step);
        double latScale = LAT_MAX - LAT_MIN;
        double longScale = LONG_MAX - LONG_MIN;
        return new double[] {
            LONG_MIN + (ilono * 1.0 / cells) * longScale,
            LONG_MIN + (plusOne(ilono) * 1.0 / cells) * longScale,
            LAT_MIN + (ilato * 1.0 / cells) * latScale,
            LAT_MIN + (plusOne(ilato) * 1.0 / cells) * latScale,
        };
    }

    /** {@code uint32 + 1} as C computes it: wraps to 0. */
    private static double plusOne(double u32) {
        return u32 == 4294967295.0 ? 0 : u32 + 1;
    }

    /**
     * decodeGeohash: the position (longitude, latitude) a score stands for: the centre of its 26-step cell,
     * clamped to the valid ranges. The score is converted to an unsigned 64-bit integer as C does.
     */
    public static double[] decodeScore(double score) {
        long bits = toUint64(score);
        double[] a = decodeArea(bits, STEP_MAX);
        double x = (a[0] + a[1]) / 2;
        if (x > LONG_MAX) x = LONG_MAX;
        if (x < LONG_MIN) x = LONG_MIN;
        double y = (a[2] + a[3]) / 2;
        if (y > LAT_MAX) y = LAT_MAX;
        if (y < LAT_MIN) y = LAT_MIN;
        return new double[] {x, y};
    }

    /**
     * (uint64_t) d as x86-64 compilers do it (for scores not written by GEOADD): below 2^63 a truncating conversion to
     * a signed integer, else that of d - 2^63 with the top bit flipped. The conversion (cvttsd2si) gives 2^63 for
     * what does not fit, where Java's cast saturates: so -inf and scores under -2^63 come out as 2^63, +inf and
     * scores from 2^64 as 0.
     */
    static long toUint64(double d) {
        if (d >= 0x1p63) return truncate(d - 0x1p63) ^ Long.MIN_VALUE;
        return truncate(d);
    }

    /** cvttsd2si: the double truncated to a long, or Long.MIN_VALUE (the "integer indefinite") when it has none. */
    private static long truncate(double d) {
        return d >= 0x1p63 || d < -0x1p63 || Double.isNaN(d) ? Long.MIN_VALUE : (long) d;
    }

    /**
     * The 11-character standard geohash GEOHASH reports for a score: the position re-encoded over latitudes
     * -90..90 (Redis's own cells use the Mercator limits), 52 bits plus a final '0'.
     */
    public static String standardGeohash(double score) {
        String alphabet = "0123456789bcdefghjkmnpqrstuvwxyz";
        double[] xy = decodeScore(score);
        long bits = encode(-180, 180, -90, 90, xy[0], xy[1], STEP_MAX);
        char[] out = new char[11];
        for (int i = 0; i < 11; i++) {
            int idx = i == 10 ? 0 : (int) ((bits >>> (52 - ((i + 1) * 5))) & 0x1f);
            out[i] = alphabet.charAt(idx);
        }
        return new String(out);
    }

    // ---------------------------------------------------------------- neighbours

    private static long moveX(long bits, int step, int d) {
        return move(bits, step, d, 0xaaaaaaaaaaaaaaaaL);
    }

    private static long moveY(long bits, int step, int d) {
        return move(bits, step, d, 0x5555555555555555L);
    }

    /**
     * geohash_move_x and geohash_move_y: one cell in direction {@code d} along the coordinate whose
     * interleaved bits {@code mask} selects (the odd bits for x, the even ones for y); the other is kept.
     */
    private static long move(long bits, int step, int d, long mask) {
        long moved = bits & mask;
        long kept = bits & ~mask;
        long zz = ~mask >>> (64 - step * 2);
        if (d > 0) {
            moved = moved + (zz + 1);
        } else {
            moved = moved | zz;
            moved = moved - (zz + 1);
        }
        moved &= mask >>> (64 - step * 2);
        return moved | kept;
    }

    // ---------------------------------------------------------------- distances

    /** geohashGetLatDistance: the distance along a meridian. */
    public static double latDistance(double lat1d, double lat2d) {
        return EARTH_RADIUS_IN_METERS * Math.abs(degRad(lat2d) - degRad(lat1d));
    }

    /** geohashGetDistance: the haversine great-circle distance in meters. */
    public static double distance(double lon1d, double lat1d, double lon2d, double lat2d) {
        double lon1r = degRad(lon1d);
        double lon2r = degRad(lon2d);
        double v = Math.sin((lon2r - lon1r) / 2);
        if (Math.abs(v) <= GEO_EPSILON) return latDistance(lat1d, lat2d);
        double lat1r = degRad(lat1d);
        double lat2r = degRad(lat2d);
        double u = Math.sin((lat2r - lat1r) / 2);
        double a = u * u + Math.cos(lat1r) * Math.cos(lat2r) * v * v;
        return 2.0 * EARTH_RADIUS_IN_METERS * Math.asin(Math.sqrt(a));
    }

    // ---------------------------------------------------------------- search areas

    /**
     * A search shape around (longitude, latitude): a circle of {@code radius} or a {@code width} x
     * {@code height} box, in units of {@code conversion} meters.
     */
    public record Shape(double longitude, double latitude, boolean circle, double radius, double width,
                        double height, double conversion) {

        /**
         * Whether the point lies within the shape; its distance from the centre in meters goes to
         * {@code distance[0]} when it does.
         */
        public boolean contains(double lon, double lat, double[] distance) {
            if (circle) {
                double d = distance(longitude, latitude, lon, lat);
                if (d > radius * conversion) return false;
                distance[0] = d;
                return true;
            }
            double widthM = width * conversion;
            double heightM = height * conversion;
            if (latDistance(lat, latitude) > heightM / 2) return false;
            if (distance(lon, lat, longitude, lat) > widthM / 2) return false;
            distance[0] = distance(longitude, latitude, lon, lat);
            return true;
        }
    }

    /** geohashEstimateStepsByRadius. */
    static int estimateSteps(double rangeMeters, double lat) {
        if (rangeMeters == 0) return 26;
        int step = 1;
        while (rangeMeters < MERCATOR_MAX) {
            rangeMeters *= 2;
            step++;
        }
        step -= 2;
        if (lat > 66 || lat < -66) {
            step--;
            if (lat > 80 || lat < -80) step--;
        }
        if (step < 1) step = 1;
        if (step > 26) step = 26;
        return step;
    }

    /**
     * geohashCalculateAreasByShapeWGS84 followed by scoresOfGeoHashBox: the score intervals [min, max) of the
     * cells to scan, in Redis's order (centre, N, S, E, W, NE, NW, SE, SW); a skipped cell is null.
     */
    public static long[][] searchIntervals(Shape shape) {
        double longitude = shape.longitude();
        double latitude = shape.latitude();
        double height = shape.conversion() * (shape.circle() ? shape.radius() : shape.height() / 2);
        double width = shape.conversion() * (shape.circle() ? shape.radius() : shape.width() / 2);
        double latDelta = radDeg(height / EARTH_RADIUS_IN_METERS);
        double longDeltaTop = radDeg(width / EARTH_RADIUS_IN_METERS / Math.cos(degRad(latitude + latDelta)));
        double longDeltaBottom = radDeg(width / EARTH_RADIUS_IN_METERS / Math.cos(degRad(latitude - latDelta)));
        boolean southern = latitude < 0;
        double minLon = southern ? longitude - longDeltaBottom : longitude - longDeltaTop;
        double maxLon = southern ? longitude + longDeltaBottom : longitude + longDeltaTop;
        double minLat = latitude - latDelta;
        double maxLat = latitude + latDelta;

        double radiusMeters = shape.circle() ? shape.radius()
                : Math.sqrt((shape.width() / 2) * (shape.width() / 2) + (shape.height() / 2) * (shape.height() / 2));
        radiusMeters *= shape.conversion();

        int steps = estimateSteps(radiusMeters, latitude);
        long hash = encodeWGS84(longitude, latitude, steps);
        long[] nb = neighbours(hash, steps);
        double[] north = decodeArea(nb[0], steps);
        double[] south = decodeArea(nb[1], steps);
        double[] east = decodeArea(nb[2], steps);
        double[] west = decodeArea(nb[3], steps);
        boolean decrease = north[3] < maxLat || south[2] > minLat || east[1] < maxLon || west[0] > minLon;
        if (steps > 1 && decrease) {
            steps--;
            hash = encodeWGS84(longitude, latitude, steps);
            nb = neighbours(hash, steps);
        }
        double[] area = decodeArea(hash, steps);
        // cells: centre, then nb = N, S, E, W, NE, NW, SE, SW
        long[] cells = {hash, nb[0], nb[1], nb[2], nb[3], nb[4], nb[5], nb[6], nb[7]};
        boolean[] zero = new boolean[9];
        if (steps >= 2) {
            if (area[2] < minLat) zero[2] = zero[8] = zero[7] = true;   // south, south-west, south-east
            if (area[3] > maxLat) zero[1] = zero[5] = zero[6] = true;   // north, north-east, north-west
            if (area[0] < minLon) zero[4] = zero[8] = zero[6] = true;   // west, south-west, north-west
            if (area[1] > maxLon) zero[3] = zero[7] = zero[5] = true;   // east, south-east, north-east
        }
        long[][] out = new long[9][];
        int lastProcessed = 0;
        for (int i = 0; i < 9; i++) {
            if (zero[i]) continue;
            if (lastProcessed != 0 && cells[i] == cells[lastProcessed]) continue;
            out[i] = new long[] {align52(cells[i], steps), align52(cells[i] + 1, steps)};
            lastProcessed = i;
        }
        return out;
    }

    /** geohashNeighbors: N, S, E, W, NE, NW, SE, SW. */
    private static long[] neighbours(long hash, int step) {
        long east = moveX(hash, step, 1);
        long west = moveX(hash, step, -1);
        long south = moveY(hash, step, -1);
        long north = moveY(hash, step, 1);
        long northWest = moveY(moveX(hash, step, -1), step, 1);
        long southWest = moveY(moveX(hash, step, -1), step, -1);
        long northEast = moveY(moveX(hash, step, 1), step, 1);
        long southEast = moveY(moveX(hash, step, 1), step, -1);
        return new long[] {north, south, east, west, northEast, northWest, southEast, southWest};
    }
}
