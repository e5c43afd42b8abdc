package io.tide.util;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.lang.management.ManagementFactory;

/** HotSpot's VM options, read and (the manageable ones) set; a JVM without them reads as null and refuses to set. */
public final class VmOptions {

    private VmOptions() {
    }

    /** The option's value, or null where there is no such option or no HotSpot diagnostic bean. */
    public static String value(String name) {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return vm == null ? null : vm.getVMOption(name).getValue();
        } catch (RuntimeException | LinkageError e) {
            return null;
        }
    }

    /** Whether the option was given on the JVM's command line (or in its options file or environment). */
    public static boolean givenAtStart(String name) {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            return vm != null && vm.getVMOption(name).getOrigin() == com.sun.management.VMOption.Origin.VM_CREATION;
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    /** Whether the option reads "true". */
    public static boolean isTrue(String name) {
        return Boolean.parseBoolean(value(name));
    }

    /** Sets a manageable option; rethrows the JVM's refusal (an unknown or read-only option, a bad value). */
    public static void set(String name, String value) {
        ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).setVMOption(name, value);
    }
}
