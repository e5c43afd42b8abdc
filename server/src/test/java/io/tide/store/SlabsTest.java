package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

class SlabsTest {

    private static final long MB = 1L << 20;

    /** The region sizes G1 chose on JDK 25 for these -Xmx values ({@code -XX:+PrintFlagsFinal}: G1HeapRegionSize). */
    @Test
    void slabSize_isTheRegionSizeG1ChoosesForTheHeap() {
        assertThat(1 << Slabs.slabBits(null, 256 * MB)).isEqualTo(MB);
        assertThat(1 << Slabs.slabBits(null, 2048 * MB)).isEqualTo(MB);
        assertThat(1 << Slabs.slabBits(null, 3072 * MB)).isEqualTo(2 * MB);
        assertThat(1 << Slabs.slabBits(null, 4096 * MB)).isEqualTo(2 * MB);
        assertThat(1 << Slabs.slabBits(null, 6320816128L)).isEqualTo(4 * MB); // the default heap of a 24 GB machine
        assertThat(1 << Slabs.slabBits(null, 16384 * MB)).isEqualTo(8 * MB);
        assertThat(1 << Slabs.slabBits(null, 65536 * MB)).isEqualTo(32 * MB);
        assertThat(1 << Slabs.slabBits(null, 1L << 40)).isEqualTo(32 * MB);
        assertThat(1 << Slabs.slabBits("262144", 1L << 40)).isEqualTo(256 * 1024);
        assertThat(1 << Slabs.slabBits("3000000", 0)).isEqualTo(4 * MB);
    }

    /** This JVM's own choice, where G1 chose it: a full slab with its header fills one region. */
    @Test
    void aFullSlab_fillsOneRegionOfThisJvm() {
        HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        VMOption region = vm.getVMOption("G1HeapRegionSize");
        assumeTrue(Boolean.parseBoolean(vm.getVMOption("UseG1GC").getValue()), "G1 only");
        assumeTrue(region.getOrigin() != VMOption.Origin.VM_CREATION, "a region size set on the command line");
        assumeTrue(System.getProperty("tide.slab-size") == null, "a slab size set by property");
        assertThat(Slabs.MAX_SLAB + 16L).isEqualTo(Long.parseLong(region.getValue()));
    }

    /** References of the largest slab's last entry and of the last slab index stay clear of 0 and -1. */
    @Test
    void references_roundTripAtTheLimits() {
        byte[][] arr = new byte[2][];
        int lastOffset = (Slabs.MAX_SLAB - 4) & ~3;
        int r = Slabs.ref(1, lastOffset);
        assertThat(Slabs.offset(r)).isEqualTo(lastOffset);
        arr[1] = new byte[0];
        assertThat(Slabs.slab(arr, r)).isSameAs(arr[1]);
        int maxIndex = (1 << (34 - Slabs.SLAB_BITS)) - 1;
        int top = Slabs.ref(maxIndex, lastOffset);
        assertThat(top).isNotIn(0, -1);
        assertThat(top >>> (Slabs.SLAB_BITS - 2)).isEqualTo(maxIndex);
        assertThat(Slabs.offset(top)).isEqualTo(lastOffset);
    }
}
