package io.tide.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A named set of option defaults that the launcher applies before the config file and the command line, so those
 * still override it. Thread-safe (immutable). Only {@code standalone} exists now: the plain defaults plus Redis's default
 * save points (an embedded server has none, so tests and applications never write a dump.rdb they did not ask
 * for); a new profile is one more entry in {@link #KNOWN}.
 *
 * @param name     the word given to {@code --profile}
 * @param settings option name to value, applied in order
 */
public record Profile(String name, Map<String, String> settings) {

    /** Every profile by name, in the order {@code --help} lists them. */
    private static final Map<String, Profile> KNOWN = known(
            new Profile("standalone", Map.of("save", "3600 1 300 100 60 10000")));

    public Profile {
        settings = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(settings));
    }

    /** The profile called {@code name} (exact, lower case), or null. */
    public static Profile named(String name) {
        return KNOWN.get(name);
    }

    /** The names of all profiles. */
    public static List<String> names() {
        return new ArrayList<>(KNOWN.keySet());
    }

    private static Map<String, Profile> known(Profile... profiles) {
        Map<String, Profile> m = new LinkedHashMap<>();
        for (Profile p : profiles) {
            m.put(p.name(), p);
        }
        return m;
    }
}
