package io.tide.util;

import com.sun.management.HotSpotDiagnosticMXBean;
import com.sun.management.VMOption;
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

    /**
     * Whether the option was given when the JVM started: on its command line, in {@code JAVA_TOOL_OPTIONS} or an
     * options file (not a default, nor a value the JVM chose).
     */
    public static boolean givenAtStart(String name) {
        try {
            HotSpotDiagnosticMXBean vm = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
            if (vm == null) return false;
            VMOption.Origin o = vm.getVMOption(name).getOrigin();
            return o == VMOption.Origin.VM_CREATION || o == VMOption.Origin.ENVIRON_VAR
                    || o == VMOption.Origin.CONFIG_FILE;
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
