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
 * <p>It runs only where {@code System.gc()} is concurrent: under G1 with {@code ExplicitGCInvokesConcurrent}, which the
 * launcher sets. Embedded in a JVM without the flag it does nothing, because there {@code System.gc()} is a full
 * stop-the-world collection of the host's heap.
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

    private final LongSupplier live;
    private final MemoryPoolMXBean oldGen;
    private final MemoryPoolMXBean eden;
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
        MemoryPoolMXBean e = null;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            if (p.getName().equals("G1 Eden Space")) e = p;
        }
        this.eden = e;
        java.lang.management.GarbageCollectorMXBean y = null;
        for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (gc.getName().equals("G1 Young Generation")) y = gc;
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
            if (p.getName().equals("G1 Old Gen")) old = p;
        }
        if (old == null || !explicitGcIsConcurrent()) return null;
        HeapGovernor g = new HeapGovernor(live, old);
        g.thread.start();
        return g;
    }

    private static boolean explicitGcIsConcurrent() {
        return !VmOptions.isTrue("DisableExplicitGC") && VmOptions.isTrue("ExplicitGCInvokesConcurrent");
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
            govern();
        } finally {
            restorePeriodic();
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
