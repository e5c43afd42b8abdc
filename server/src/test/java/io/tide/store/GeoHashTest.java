package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** GeoHash against values Redis produces for the same coordinates. */
class GeoHashTest {

    @Test
    void scoreOf_isRedisGeohash() {
        assertThat(GeoHash.scoreOf(13.361389, 38.115556)).isEqualTo(3479099956230698L);
        assertThat(GeoHash.scoreOf(15.087269, 37.502669)).isEqualTo(3479447370796909L);
        assertThat(GeoHash.encodeWGS84(200, 0, 26)).isEqualTo(-1);
        assertThat(GeoHash.encodeWGS84(0, 86, 26)).isEqualTo(-1);
    }

    @Test
    void decodeScore_isCellCentre() {
        double[] xy = GeoHash.decodeScore(3479099956230698L);
        assertThat(xy[0]).isEqualTo(13.361389338970184);
        assertThat(xy[1]).isEqualTo(38.1155563954963);
    }

    @Test
    void standardGeohash_matchesRedis() {
        assertThat(GeoHash.standardGeohash(3479099956230698L)).isEqualTo("sqc8b49rny0");
        assertThat(GeoHash.standardGeohash(3479447370796909L)).isEqualTo("sqdtr74hyu0");
    }

    @Test
    void distance_isHaversineOnRedisRadius() {
        double[] a = GeoHash.decodeScore(3479099956230698L);
        double[] b = GeoHash.decodeScore(3479447370796909L);
        assertThat(GeoHash.distance(a[0], a[1], b[0], b[1])).isBetween(166274.1515, 166274.1516);
        assertThat(GeoHash.distance(10, 10, 10, 11)).isEqualTo(GeoHash.latDistance(10, 11));
    }

    @Test
    void searchIntervals_coverTheCentreCellFirst() {
        GeoHash.Shape shape = new GeoHash.Shape(15, 37, true, 200, 0, 0, 1000);
        long[][] cells = GeoHash.searchIntervals(shape);
        assertThat(cells.length).isEqualTo(9);
        long centre = GeoHash.scoreOf(15, 37);
        assertThat(cells[0][0]).isLessThanOrEqualTo(centre);
        assertThat(cells[0][1]).isGreaterThan(centre);
        double[] d = new double[1];
        assertThat(shape.contains(15.087269, 37.502669, d)).isTrue();
        assertThat(d[0]).isBetween(56000.0, 57000.0);
        assertThat(shape.contains(2.35, 48.86, d)).isFalse();
    }
}
