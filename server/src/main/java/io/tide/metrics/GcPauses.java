package io.tide.metrics;

import com.sun.management.GarbageCollectionNotificationInfo;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import javax.management.Notification;
import javax.management.NotificationEmitter;
import javax.management.NotificationListener;
import javax.management.openmbean.CompositeData;

/**
 * The latency monitor's {@code gc-pause} event: the duration of each stop-the-world collection the JVM reports, from
 * its garbage collectors' notifications. The collectors that report concurrent cycles (ZGC's and Shenandoah's
 * "... Cycles" beans) are left out: their threads run beside the application, their pauses come through their
 * "... Pauses" beans. Thread-safe; notifications arrive on a JMX thread.
 */
public final class GcPauses implements AutoCloseable {

    public static final String EVENT = "gc-pause";

    private final LatencyMonitor monitor;
    private final List<NotificationEmitter> emitters = new ArrayList<>();
    private final NotificationListener listener = this::notified;

    private GcPauses(LatencyMonitor monitor) {
        this.monitor = monitor;
    }

    /** Listens to every collector of this JVM that reports pauses; {@link #close()} stops. */
    public static GcPauses start(LatencyMonitor monitor) {
        GcPauses g = new GcPauses(monitor);
        for (GarbageCollectorMXBean bean : ManagementFactory.getGarbageCollectorMXBeans()) {
            if (bean.getName().contains("Cycles")) continue;
            if (bean instanceof NotificationEmitter e) {
                e.addNotificationListener(g.listener, null, null);
                g.emitters.add(e);
            }
        }
        return g;
    }

    private void notified(Notification n, Object handback) {
        if (!GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION.equals(n.getType())) return;
        GarbageCollectionNotificationInfo info = GarbageCollectionNotificationInfo.from((CompositeData) n.getUserData());
        monitor.sampleIfNeeded(EVENT, info.getGcInfo().getDuration());
    }

    @Override
    public void close() {
        for (NotificationEmitter e : emitters) {
            try {
                e.removeNotificationListener(listener);
            } catch (javax.management.ListenerNotFoundException ignored) {
                // already gone
            }
        }
        emitters.clear();
    }
}
