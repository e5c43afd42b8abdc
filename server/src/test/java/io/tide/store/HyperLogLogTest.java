package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The HyperLogLog value layout and algorithm, without a server. */
class HyperLogLogTest {

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void empty_isRedisSparseLayout() {
        byte[] v = HyperLogLog.empty().toBytes();
        // "HYLL", sparse, three unused bytes, cached cardinality 0, then XZERO:16384 (0x7f 0xff).
        assertThat(v).containsExactly('H', 'Y', 'L', 'L', 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x7f, (byte) 0xff);
        assertThat(HyperLogLog.isValid(v)).isTrue();
        assertThat(HyperLogLog.cacheValid(v)).isTrue();
        assertThat(HyperLogLog.count(v)).isZero();
        assertThat(HyperLogLog.decodeSparse(v)).isEqualTo("Z:16384");
    }

    @Test
    void murmurHash64A_matchesTheReferenceAlgorithm() {
        // MurmurHash64A's published behaviour for the empty input: only the finalisation of seed ^ 0.
        long m = 0xc6a4a7935bd1e995L;
        long h = 0xadc83b19L;
        h ^= h >>> 47;
        h *= m;
        h ^= h >>> 47;
        assertThat(HyperLogLog.murmurHash64A(new byte[0], 0xadc83b19L)).isEqualTo(h);
        // Tails of every length differ from each other and from the 8-byte block path.
        long[] seen = new long[17];
        for (int n = 0; n <= 16; n++) {
            byte[] key = new byte[n];
            Arrays.fill(key, (byte) 'a');
            seen[n] = HyperLogLog.murmurHash64A(key, 0xadc83b19L);
        }
        assertThat(Arrays.stream(seen).distinct().count()).isEqualTo(17);
    }

    @Test
    void sparseAndDense_agreeOnEveryRegisterAndCount() {
        HyperLogLog sparse = HyperLogLog.empty();
        HyperLogLog dense = HyperLogLog.empty();
        assertThat(dense.toDense()).isTrue();
        for (int i = 0; i < 1500; i++) {
            byte[] e = b("element:" + i);
            int s = sparse.add(e, Long.MAX_VALUE);
            int d = dense.add(e, Long.MAX_VALUE);
            assertThat(s).as("element %d", i).isEqualTo(d);
        }
        byte[] sv = sparse.toBytes();
        byte[] dv = dense.toBytes();
        assertThat(sparse.isSparse()).isTrue();
        assertThat(dv).hasSize(HyperLogLog.DENSE_SIZE);
        assertThat(HyperLogLog.registers(sv)).isEqualTo(HyperLogLog.registers(dv));
        assertThat(HyperLogLog.count(sv)).isEqualTo(HyperLogLog.count(dv));
        // Converting the sparse one gives the dense one's registers, header copied over.
        HyperLogLog converted = HyperLogLog.of(sv);
        assertThat(converted.toDense()).isTrue();
        byte[] cv = converted.toBytes();
        assertThat(Arrays.copyOfRange(cv, 16, cv.length)).isEqualTo(Arrays.copyOfRange(dv, 16, dv.length));
        assertThat(Arrays.copyOfRange(cv, 8, 16)).isEqualTo(Arrays.copyOfRange(sv, 8, 16));
    }

    @Test
    void count_isWithinTheStandardErrorAtManyCardinalities() {
        HyperLogLog h = HyperLogLog.empty();
        int added = 0;
        for (int target : new int[] {10, 100, 1000, 10_000, 100_000, 1_000_000}) {
            for (; added < target; added++) h.add(b("k" + added), 3000);
            long count = HyperLogLog.count(h.toBytes());
            double error = Math.abs(count - target) / (double) target;
            // 1.04 / sqrt(16384) = 0.81% standard error; allow five of them.
            assertThat(error).as("cardinality %d counted %d", target, count).isLessThan(0.05);
        }
        assertThat(h.isSparse()).isFalse();
    }

    @Test
    void sparse_promotesWhenALongRunValueAppears() {
        HyperLogLog h = HyperLogLog.empty();
        assertThat(h.set(5, 32, Long.MAX_VALUE)).isEqualTo(1);
        assertThat(h.isSparse()).isTrue();
        assertThat(h.set(6, 33, Long.MAX_VALUE)).isEqualTo(1);
        assertThat(h.isSparse()).isFalse();
        int[] regs = HyperLogLog.registers(h.toBytes());
        assertThat(regs[5]).isEqualTo(32);
        assertThat(regs[6]).isEqualTo(33);
        assertThat(h.set(6, 20, Long.MAX_VALUE)).isZero();
    }

    @Test
    void sparse_mergesAdjacentEqualValues_asRedisDoes() {
        HyperLogLog h = HyperLogLog.empty();
        h.set(10, 3, Long.MAX_VALUE);
        h.set(11, 3, Long.MAX_VALUE);
        h.set(12, 3, Long.MAX_VALUE);
        assertThat(HyperLogLog.decodeSparse(h.toBytes())).isEqualTo("z:10 v:3,3 Z:16371");
        h.set(11, 4, Long.MAX_VALUE);
        assertThat(HyperLogLog.decodeSparse(h.toBytes())).isEqualTo("z:10 v:3,1 v:4,1 v:3,1 Z:16371");
    }

    @Test
    void corruptSparse_isReported() {
        byte[] v = HyperLogLog.empty().toBytes();
        byte[] truncated = Arrays.copyOf(v, 17); // XZERO missing its second byte
        assertThat(HyperLogLog.count(Arrays.copyOf(v, 16))).isEqualTo(-1);
        assertThat(HyperLogLog.mergeInto(new byte[HyperLogLog.REGISTERS], Arrays.copyOf(v, 16))).isFalse();
        assertThat(HyperLogLog.of(Arrays.copyOf(v, 16)).add(b("x"), 3000)).isEqualTo(-1);
        assertThat(HyperLogLog.of(Arrays.copyOf(v, 16)).toDense()).isFalse();
        assertThat(HyperLogLog.isValid(truncated)).isTrue(); // only the header is checked up front
        byte[] badMagic = v.clone();
        badMagic[0] = 'h';
        assertThat(HyperLogLog.isValid(badMagic)).isFalse();
    }

    @Test
    void bytesPerElement_sparseIsSmallerThanDense() {
        int n = 100;
        HyperLogLog sparse = HyperLogLog.empty();
        HyperLogLog dense = HyperLogLog.empty();
        dense.toDense();
        for (int i = 0; i < n; i++) {
            sparse.add(b("member-" + i), 3000);
            dense.add(b("member-" + i), 3000);
        }
        assertThat(sparse.isSparse()).isTrue();
        double small = MemoryCost.of(sparse.toBytes()) / (double) n;
        double large = MemoryCost.of(dense.toBytes()) / (double) n;
        System.out.printf("HyperLogLog, %d elements: sparse %.1f bytes/element, dense %.1f bytes/element%n",
                n, small, large);
        assertThat(small).isLessThan(large);
    }
}
