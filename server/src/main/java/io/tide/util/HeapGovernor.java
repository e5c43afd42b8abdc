package io.tide.util;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Thread-safe. Keeps G1's old generation near the live data (docs/decisions/0009). Keys that live a second or two
 * (TTL churn) survive a few young collections and die in the old generation, where G1 reclaims them only after a
 * concurrent marking cycle; it starts one when the old generation reaches a share of the <em>heap</em>, which with a
 * default heap (a quarter of the machine) lets a few MB of live keys drag gigabytes of dead ones. The governor compares
 * the old generation's occupancy with what the server holds (used_memory, the slabs' holes and the heap the process
 * had at start) every {@value #PERIOD_MS} ms, and when the old generation holds more than 1.25 times that plus
 * {@value #HEADROOM_MB} MB it asks for a concurrent cycle ({@code System.gc()} under
 * {@code -XX:+ExplicitGCInvokesConcurrent}); the mixed collections that follow free the dead regions (driven by the
 * governor itself when the server is idle, see {@link #drainWhileIdle}) and G1 gives the memory back
 * (MaxHeapFreeRatio). Once no young collection came for {@value #IDLE_PERIODS} periods (the server allocates little or
 * nothing, so nothing else will free what lies dead in the old generation: the arguments of one large command, say,
 * which stayed live until it ran and were promoted) the bar is lower, an eighth over what the server holds plus
 * {@value #IDLE_HEADROOM_MB} MB. A cycle that leaves the old generation over the bar found live heap the accounting
 * does not count; the wait before the next one then doubles, up to {@value #MAX_INTERVAL_MS} ms, so that such heap
 * costs a cycle a minute at most. (G1's periodic collection pauses as a young collection too, so while it is on, see
 * below, the server does not count as idle; it is on only while there is committed heap to give back.)
 *
 * <p>It also decides when G1's periodic collection runs (the launcher's {@code G1PeriodicGCInterval}, a manageable
 * flag): only while the committed heap exceeds what the heap needs (the old generation's occupancy and the young
 * generation, plus {@code MaxHeapFreeRatio}'s share) by {@value #PERIODIC_SLACK_MB} MB, so that it gives back what a
 * load or a deletion left committed, and otherwise stays off: a server that is busy but allocates little would
 * otherwise pause for a concurrent cycle every interval for nothing (docs/benchmarks/performance.md, tails).
 *
 * <p><b>Under Shenandoah</b> (decision 0027) the same bar steers the collector instead of asking for cycles. Shenandoah
 * starts a cycle when the free heap under its soft maximum runs low, and the soft maximum defaults to the heap's
 * maximum, so under TTL churn it let the heap grow to 3 GB before collecting. The governor keeps the manageable
 * {@code SoftMaxHeapSize} where Shenandoah starts a cycle at {@link #cycleAt} bytes in use ({@link #softMax}): the bar
 * above, or a quarter over what the last cycle left live plus {@value #HEADROOM_MB} MB where that is more (heap the
 * accounting does not see, which would otherwise make cycles run back to back), less what the server freed since that
 * cycle. Shenandoah reclaims every dead region in each cycle and gives empty ones back after
 * {@code ShenandoahUncommitDelay}, so nothing else is needed.
 *
 * <p>It runs only where {@code System.gc()} is concurrent: under G1 or Shenandoah with
 * {@code ExplicitGCInvokesConcurrent} given when the JVM started, as the launcher gives it (under Shenandoah it is the
 * default, so only the flag given counts). Embedded in a JVM without the flag it does nothing,
 * because there {@code System.gc()} is a full stop-the-world collection of the host's heap, and the host's collector
 * settings are the host's.
 */
public final class HeapGovernor implements AutoCloseable {

    static final long PERIOD_MS = 250;
    static final int HEADROOM_MB = 32;
    static final int IDLE_HEADROOM_MB = 16;
    /** Periods without a young collection after which the server counts as idle (2 s). */
    static final int IDLE_PERIODS = 8;
    /** At most one request per this many ms: a cycle and its mixed collections take a while to free anything. */
    static final long MIN_INTERVAL_MS = 2000;
    /** The longest wait between cycles that did not bring the old generation under the bar. */
    static final long MAX_INTERVAL_MS = 64_000;
    /** Young generations filled at most per cycle to drive its mixed collections (G1MixedGCCountTarget is 8). */
    static final int MAX_NUDGES = 10;
    /** The mixed collections are driven on while each frees at least this much. */
    static final int MIN_GAIN_MB = 1;
    private static final int NUDGE_ARRAY = 32 << 10;
    /** Committed heap beyond the need at which the periodic collection is turned on. */
    static final int PERIODIC_SLACK_MB = 16;

    private static final Logger LOG = LoggerFactory.getLogger("tide");
    /** Shenandoah's heap pool (its single-generation mode; the generational one has other pools and is not steered). */
    static final String SHENANDOAH_POOL = "Shenandoah";

    private final LongSupplier live;
    /** G1's old generation, or Shenandoah's one heap pool. */
    private final MemoryPoolMXBean oldGen;
    /** Whether {@code oldGen} is Shenandoah's heap: the governor steers SoftMaxHeapSize (see the class comment). */
    private final boolean shenandoah;
    /** The SoftMaxHeapSize last set, 0 before the first (INFO memory's tide_heap_soft_max). */
    private volatile long softMaxSet;
    private final String softMaxAtStart = VmOptions.value("SoftMaxHeapSize");
    private final MemoryPoolMXBean eden;
    /** G1's young collections, or Shenandoah's cycles. */
    private final java.lang.management.GarbageCollectorMXBean young;
    /** Where {@link #drainWhileIdle} drops its arrays (a field, so that the allocation is not optimised away). */
    private volatile Object sink;
    private final long startHeap;
    private final AtomicLong requests = new AtomicLong();
    private final Thread thread;
    private volatile boolean closed;
    /** The periodic collection's interval the JVM was started with ("0": none, and then it is left alone). */
    private String periodicInterval;
    private final long maxHeapFreePercent;
    private boolean periodicOn = true;
    private final AtomicLong periodicSwitches = new AtomicLong();

    private HeapGovernor(LongSupplier live, MemoryPoolMXBean oldGen) {
        this.live = live;
        this.oldGen = oldGen;
        this.shenandoah = oldGen.getName().equals(SHENANDOAH_POOL);
        MemoryPoolMXBean e = null;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getName().equals("G1 Eden Space")) e = p;
        }
        this.eden = e;
        java.lang.management.GarbageCollectorMXBean y = null;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            // Shenandoah: its cycles, each of which ends with the usage its heap pool reports as after a collection
            if (gc.getName().equals("G1 Young Generation") || gc.getName().equals("Shenandoah Cycles")) y = gc;
        }
        this.young = y;
        this.startHeap = oldGen.getUsage().getUsed();
        String interval = VmOptions.value("G1PeriodicGCInterval");
        String freePercent = VmOptions.value("MaxHeapFreeRatio");
        // a JVM without these options: the periodic collection is left alone
        this.periodicInterval = interval == null || freePercent == null ? "0" : interval;
        this.maxHeapFreePercent = freePercent == null ? 70 : Long.parseLong(freePercent);
        this.thread = Thread.ofPlatform().daemon().name("tide-heap-governor").unstarted(this::run);
    }

    /**
     * Starts a governor for a server whose held bytes {@code live} reports, or returns null where it cannot work
     * (another collector, or {@code System.gc()} would stop the world).
     */
    public static HeapGovernor startIfConcurrent(LongSupplier live) {
        MemoryPoolMXBean old = null;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getName().equals("G1 Old Gen") || p.getName().equals(SHENANDOAH_POOL)) old = p;
        }
        if (old == null || !explicitGcIsConcurrent()) return null;
        HeapGovernor g = new HeapGovernor(live, old);
        g.thread.start();
        return g;
    }

    /**
     * The launcher's {@code -XX:+ExplicitGCInvokesConcurrent}, given explicitly: Shenandoah makes {@code System.gc()}
     * concurrent by default, so only the flag given says the JVM is the server's own, whose collector the governor
     * may drive.
     */
    private static boolean explicitGcIsConcurrent() {
        return !VmOptions.isTrue("DisableExplicitGC") && VmOptions.isTrue("ExplicitGCInvokesConcurrent")
                && VmOptions.givenAtStart("ExplicitGCInvokesConcurrent");
    }

    /** The old-generation occupancy over which a cycle is asked for, given the bytes the server holds. */
    static long threshold(long liveBytes, long startHeap) {
        long held = liveBytes + startHeap;
        return held + held / 4 + HEADROOM_MB * 1024L * 1024;
    }

    /** The bar while the server is idle: an eighth more than what it holds plus {@value #IDLE_HEADROOM_MB} MB. */
    static long idleThreshold(long liveBytes, long startHeap) {
        long held = liveBytes + startHeap;
        return held + held / 8 + IDLE_HEADROOM_MB * 1024L * 1024;
    }

    /** The wait before the next cycle: doubled after one that left the old generation over the bar, else the least. */
    static long nextInterval(long interval, boolean stillOver) {
        return stillOver ? Math.min(interval * 2, MAX_INTERVAL_MS) : MIN_INTERVAL_MS;
    }

    /** Concurrent cycles asked for so far (INFO memory's tide_heap_governor_cycles). */
    public long requests() {
        return requests.get();
    }

    private void run() {
        try {
            if (shenandoah) steerSoftMax();
            else govern();
        } finally {
            restorePeriodic();
            restoreSoftMax();
        }
    }

    private void govern() {
        long last = 0;
        long interval = MIN_INTERVAL_MS;
        long seenYoung = youngCollections();
        int quiet = 0;
        while (!closed) {
            try {
                Thread.sleep(PERIOD_MS);
                steerPeriodic();
                long y = youngCollections();
                quiet = y == seenYoung ? quiet + 1 : 0;
                seenYoung = y;
                long now = System.currentTimeMillis();
                if (now - last < interval) continue;
                long live = this.live.getAsLong();
                long bar = quiet >= IDLE_PERIODS ? idleThreshold(live, startHeap) : threshold(live, startHeap);
                if (oldGen.getUsage().getUsed() > bar) {
                    last = now;
                    requests.incrementAndGet();
                    System.gc(); // concurrent: a marking cycle, without a pause of its length; returns when it is done
                    drainWhileIdle(bar);
                    interval = nextInterval(interval, oldGen.getUsage().getUsed() > bar);
                    seenYoung = youngCollections(); // the cycle's own collections are not the server's
                    quiet = 0;
                }
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("heap governor: {}", e.toString());
            }
        }
    }

    /**
     * Where Shenandoah should start a cycle for a server holding {@code liveBytes} (and {@code startHeap} at start)
     * whose last cycle left {@code afterCycle} bytes in use while it held {@code liveAtCycle}: the governor's bar, or a
     * quarter more than what that cycle left plus the headroom where that is more. What the server freed since that cycle (a
     * FLUSHALL, deletions) comes off what the cycle left, so a cycle that found the data live does not keep the bar up
     * once the data is gone.
     */
    static long cycleAt(long liveBytes, long startHeap, long afterCycle, long liveAtCycle) {
        long left = Math.max(0, afterCycle - Math.max(0, liveAtCycle - liveBytes));
        long byCycle = left + left / 4 + HEADROOM_MB * 1024L * 1024;
        return Math.max(threshold(liveBytes, startHeap), byCycle);
    }

    /**
     * The SoftMaxHeapSize at which Shenandoah starts a cycle once {@code cycleAt} bytes are in use, never over
     * {@code max}. Shenandoah counts as free what lies under the soft maximum less its evacuation reserve (a share of
     * the whole heap, {@code ShenandoahEvacReserve}, 5% by default) and starts a cycle when that is under
     * {@code ShenandoahMinFreeThreshold} (10%) of the soft maximum: a soft maximum under the reserve means no free heap
     * at all and cycles back to back.
     */
    static long softMax(long cycleAt, long max, long reservePercent, long minFreePercent) {
        long reserve = max / 100 * reservePercent;
        return Math.min(max, (cycleAt + reserve) / Math.max(1, 100 - minFreePercent) * 100);
    }

    /** Whether a new soft maximum differs enough from the one set to be worth setting (a sixteenth, or none set). */
    static boolean worthSetting(long current, long wanted) {
        return current == 0 || Math.abs(wanted - current) > current / 16;
    }

    private void steerSoftMax() {
        long max = Runtime.getRuntime().maxMemory();
        long reservePercent = percentOption("ShenandoahEvacReserve", 5);
        long minFreePercent = percentOption("ShenandoahMinFreeThreshold", 10);
        long seenCycles = -1;
        long liveAtCycle = 0;
        while (!closed) {
            try {
                long held = live.getAsLong();
                long c = young == null ? 0 : young.getCollectionCount();
                if (c != seenCycles) { // a cycle ended since the last look: what it left goes with what was held then
                    seenCycles = c;
                    liveAtCycle = held;
                }
                java.lang.management.MemoryUsage after = oldGen.getCollectionUsage();
                long at = cycleAt(held, startHeap, after == null ? 0 : after.getUsed(), liveAtCycle);
                long wanted = softMax(at, max, reservePercent, minFreePercent);
                if (worthSetting(softMaxSet, wanted)) {
                    VmOptions.set("SoftMaxHeapSize", Long.toString(wanted));
                    softMaxSet = wanted;
                }
                Thread.sleep(PERIOD_MS);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                LOG.warn("heap governor: cannot set Shenandoah's soft maximum ({}); leaving it as it is", e.toString());
                return;
            }
        }
    }

    private static long percentOption(String name, long otherwise) {
        String v = VmOptions.value(name);
        return v == null ? otherwise : Long.parseLong(v);
    }

    /** On close: the soft maximum the JVM had (an embedding JVM keeps its own). */
    private void restoreSoftMax() {
        if (softMaxSet == 0 || softMaxAtStart == null) return;
        try {
            VmOptions.set("SoftMaxHeapSize", softMaxAtStart);
        } catch (RuntimeException e) {
            LOG.warn("heap governor: cannot restore Shenandoah's soft maximum ({})", e.toString());
        }
    }

    /** The SoftMaxHeapSize the governor last set under Shenandoah; 0 under G1. */
    public long softMaxSet() {
        return softMaxSet;
    }

    /** Whether the committed heap exceeds the need by more than the slack (see the class comment). */
    static boolean heapToGiveBack(long committed, long oldUsed, long young, long maxHeapFreePercent) {
        long need = (oldUsed + young) * 100 / Math.max(1, 100 - maxHeapFreePercent);
        return committed > need + PERIODIC_SLACK_MB * 1024L * 1024;
    }

    private void steerPeriodic() {
        if (periodicInterval.equals("0")) return;
        Runtime rt = Runtime.getRuntime();
        long young = eden == null ? 0 : eden.getUsage().getCommitted();
        boolean want = heapToGiveBack(rt.totalMemory(), oldGen.getUsage().getUsed(), young, maxHeapFreePercent);
        if (want == periodicOn) return;
        if (!setPeriodic(want ? periodicInterval : "0")) {
            periodicInterval = "0"; // stop steering
            return;
        }
        periodicOn = want;
        periodicSwitches.incrementAndGet();
    }

    /** On close: the periodic collection as the JVM was started with it (an embedding JVM keeps its own setting). */
    private void restorePeriodic() {
        if (!periodicOn && !periodicInterval.equals("0")) setPeriodic(periodicInterval);
    }

    private static boolean setPeriodic(String interval) {
        try {
            VmOptions.set("G1PeriodicGCInterval", interval);
            return true;
        } catch (RuntimeException e) {
            LOG.warn("heap governor: cannot set G1's periodic collection to {} ms ({}); leaving it as it is", interval,
                    e.toString());
            return false;
        }
    }

    /** Times the periodic collection was turned on or off (INFO memory's tide_heap_governor_periodic_switches). */
    public long periodicSwitches() {
        return periodicSwitches.get();
    }

    /**
     * After a marking cycle, G1 frees the old regions that hold no live object at once, and the others in the mixed
     * collections that ride on the next young collections. A server that allocates nothing (idle after a burst)
     * has no young collections, so it would keep that garbage resident: while no young collection came in a period,
     * this fills the young generation once (32 KB arrays, dropped at once) so that the next mixed collection runs: when
     * the cycle left the old generation over {@code bar}, and then as long as each mixed collection frees at least
     * {@value #MIN_GAIN_MB} MB. At most {@value #MAX_NUDGES} times per cycle.
     */
    private void drainWhileIdle(long bar) throws InterruptedException {
        long young = youngCollections();
        long prev = oldGen.getUsage().getUsed();
        for (int nudges = 0; nudges < MAX_NUDGES && !closed; ) {
            Thread.sleep(PERIOD_MS);
            long used = oldGen.getUsage().getUsed();
            // Done when the cycle alone brought the old generation under the bar, or when the last mixed collection freed
            // less than MIN_GAIN (the first fill only prepares them): G1 has dropped the regions not worth copying.
            if (nudges == 0 ? used <= bar : nudges >= 2 && prev - used < MIN_GAIN_MB * 1024L * 1024) return;
            if (youngCollections() != young) return; // the server allocates: its own collections do the mixing
            long fill = eden == null ? 32L << 20 : Math.max(eden.getUsage().getCommitted(), 1L << 20);
            // Small arrays: one of half a region (1 MB regions at a 1-2 GB heap) would be humongous, in the old generation.
            for (long done = 0; done <= fill; done += NUDGE_ARRAY) sink = new byte[NUDGE_ARRAY];
            sink = null;
            nudges++;
            young = youngCollections();
            prev = used;
        }
    }

    private long youngCollections() {
        return young == null ? 0 : young.getCollectionCount();
    }

    @Override
    public void close() {
        closed = true;
        thread.interrupt();
    }
}
