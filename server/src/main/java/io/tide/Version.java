package io.tide;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The build's version, from {@code tide.properties}. Thread-safe. */
public final class Version {

    private static final String VERSION = load();

    private Version() {}

    public static String get() {
        return VERSION;
    }

    private static String load() {
        try (InputStream in = Version.class.getResourceAsStream("/tide.properties")) {
            if (in == null) return "unknown";
            Properties p = new Properties();
            p.load(in);
            String v = p.getProperty("version", "unknown");
            return v.startsWith("${") ? "dev" : v;
        } catch (IOException e) {
            return "unknown";
        }
    }
}
