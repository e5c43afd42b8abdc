package io.tide.config;

import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * The definition of one configuration parameter: its redis.conf name, type, bounds, default, mutability and help
 * text. Thread-safe (immutable); current values live in {@link ConfigRegistry}, as do the apply-listeners the server
 * registers with {@link ConfigRegistry#onChange}.
 */
public final class ConfigParam {

    /** How a parameter's text is parsed and printed. */
    public enum Type {
        /** {@code yes} / {@code no}, case-insensitive; printed lower case. */
        BOOL,
        /** A 32-bit integer written as Redis's {@code string2ll} accepts it (no sign, spaces or leading zeros). */
        INT,
        /** A 64-bit integer, same syntax as INT. */
        LONG,
        /** Bytes with an optional unit as Redis's {@code memtoull}: b, k, kb, m, mb, g, gb; printed as plain bytes. */
        MEMORY,
        /** One word out of a fixed list, case-insensitive; printed as listed. */
        ENUM,
        /** Free text. */
        STRING
    }

    /** A parameter-specific step after the type's parsing: returns the value to store or throws a reason. */
    @FunctionalInterface
    interface Check {
        /**
         * @param value   the value after type parsing, in canonical text
         * @param current the parameter's current canonical value (the default while it is being initialised)
         * @return the canonical value to store
         * @throws ConfigException made with {@link ConfigException#invalid} when the value is not acceptable
         */
        String apply(String value, String current);
    }

    /** A parsed value: its canonical text (as CONFIG GET prints it) and, for numeric and bool types, its number. */
    record Value(String text, long number) {
        // Written out: a record's generated equals and hashCode link through java.lang.runtime.ObjectMethods the
        // first time they run, tens of milliseconds of every cold start (CONFIG's change check compares Values).
        @Override
        public boolean equals(Object o) {
            return o instanceof Value v && number == v.number && java.util.Objects.equals(text, v.text);
        }

        @Override
        public int hashCode() {
            return java.util.Objects.hashCode(text) * 31 + Long.hashCode(number);
        }
    }

    private final String name;
    private final List<String> aliases;
    private final Type type;
    private final long min;
    private final long max;
    private final List<String> enumValues;
    private final String defaultValue;
    private final boolean mutable;
    private final boolean multiArg;
    private final String description;
    private final Check check;

    private ConfigParam(Builder b) {
        this.name = b.name;
        this.aliases = List.copyOf(b.aliases);
        this.type = b.type;
        this.min = b.min;
        this.max = b.max;
        this.enumValues = List.copyOf(b.enumValues);
        this.defaultValue = Objects.requireNonNull(b.defaultValue, "default");
        this.mutable = b.mutable;
        this.multiArg = b.multiArg;
        this.description = b.description;
        this.check = b.check;
    }

    /** The redis.conf name, lower case. */
    public String name() {
        return name;
    }

    /** Other names accepted for this parameter (as Redis keeps {@code slave-*} for {@code replica-*}). */
    public List<String> aliases() {
        return aliases;
    }

    public Type type() {
        return type;
    }

    /** Lower bound for INT, LONG and MEMORY. */
    public long min() {
        return min;
    }

    /** Upper bound for INT, LONG and MEMORY. */
    public long max() {
        return max;
    }

    /** The accepted words for ENUM, else empty. */
    public List<String> enumValues() {
        return enumValues;
    }

    /** The default as written in a config file (e.g. {@code 512mb}); see {@link #defaultText()} for the parsed form. */
    public String defaultValue() {
        return defaultValue;
    }

    /** The default as CONFIG GET prints it. */
    public String defaultText() {
        return parse(defaultValue, defaultValue).text();
    }

    /** Whether CONFIG SET may change it at runtime; immutable parameters are set only at startup. */
    public boolean mutable() {
        return mutable;
    }

    /** Whether a config file line may give several arguments, stored space-joined (as {@code bind} does). */
    public boolean multiArg() {
        return multiArg;
    }

    /** One line for {@code --help}. */
    public String description() {
        return description;
    }

    /** A short placeholder for the value in usage text, e.g. {@code yes|no} or {@code <bytes>}. */
    public String valueLabel() {
        return switch (type) {
            case BOOL -> "yes|no";
            case INT, LONG -> "<int>";
            case MEMORY -> "<bytes>";
            case ENUM -> String.join("|", enumValues);
            case STRING -> multiArg ? "<word>" : "<string>";
        };
    }

    /**
     * Parses and validates {@code raw}; {@code current} is the present canonical value (some checks, like
     * {@code dir}, resolve against it).
     *
     * @throws ConfigException with just the reason, e.g. {@code argument must be 'yes' or 'no'}
     */
    Value parse(String raw, String current) {
        Value v = switch (type) {
            case BOOL -> parseBool(raw);
            case INT, LONG -> bounded(parseInteger(raw));
            case MEMORY -> bounded(parseMemory(raw));
            case ENUM -> parseEnum(raw);
            case STRING -> new Value(multiArg ? joinWords(raw) : raw, 0);
        };
        if (check != null) {
            String checked = check.apply(v.text(), current);
            if (!checked.equals(v.text())) {
                boolean numeric = type == Type.INT || type == Type.LONG || type == Type.MEMORY;
                v = new Value(checked, numeric ? Long.parseLong(checked) : v.number()); // a check may clamp a number
            }
        }
        return v;
    }

    /** The value as a config file line's arguments would write it (memory with units, strings quoted). */
    String toConfigText(Value v) {
        return switch (type) {
            case MEMORY -> formatMemory(v.number());
            case STRING -> multiArg && !v.text().isEmpty() ? v.text() : quote(v.text());
            default -> v.text();
        };
    }

    private static Value parseBool(String raw) {
        if (raw.equalsIgnoreCase("yes")) {
            return new Value("yes", 1);
        }
        if (raw.equalsIgnoreCase("no")) {
            return new Value("no", 0);
        }
        throw ConfigException.invalid("argument must be 'yes' or 'no'");
    }

    private Value parseEnum(String raw) {
        for (String word : enumValues) {
            if (word.equalsIgnoreCase(raw)) {
                return new Value(word, 0);
            }
        }
        throw ConfigException.invalid("argument(s) must be one of the following: " + String.join(", ", enumValues));
    }

    private Value bounded(long n) {
        if (n < min || n > max) {
            throw ConfigException.invalid("argument must be between " + min + " and " + max + " inclusive");
        }
        return new Value(Long.toString(n), n);
    }

    /** Redis's {@code string2ll}: an optional minus, then 0 or a digit 1-9 followed by digits, within 64 bits. */
    static long parseInteger(String s) {
        Long n = strictLong(s);
        if (n == null) {
            throw ConfigException.invalid("argument couldn't be parsed into an integer");
        }
        return n;
    }

    private static Long strictLong(String s) {
        int n = s.length();
        if (n == 0 || n > 20) {
            return null;
        }
        if (s.equals("0")) {
            return 0L;
        }
        int i = s.charAt(0) == '-' ? 1 : 0;
        if (i == n || s.charAt(i) < '1' || s.charAt(i) > '9') {
            return null;
        }
        for (int j = i + 1; j < n; j++) {
            char c = s.charAt(j);
            if (c < '0' || c > '9') {
                return null;
            }
        }
        try {
            return Long.parseLong(s);
        } catch (NumberFormatException overflow) {
            return null;
        }
    }

    /**
     * Redis's {@code memtoull}: digits then an optional case-insensitive unit; negative values are refused, and no
     * digits at all (an empty argument, a unit alone) read as 0, as {@code strtoull} of nothing does there.
     */
    static long parseMemory(String s) {
        int u = 0;
        while (u < s.length() && s.charAt(u) >= '0' && s.charAt(u) <= '9') {
            u++;
        }
        long mul = switch (s.substring(u).toLowerCase(Locale.ROOT)) {
            case "", "b" -> 1L;
            case "k" -> 1000L;
            case "kb" -> 1024L;
            case "m" -> 1000L * 1000;
            case "mb" -> 1024L * 1024;
            case "g" -> 1000L * 1000 * 1000;
            case "gb" -> 1024L * 1024 * 1024;
            default -> -1L;
        };
        if (mul < 0) {
            throw ConfigException.invalid("argument must be a memory value");
        }
        if (u == 0) {
            return 0;
        }
        try {
            return Math.multiplyExact(Long.parseLong(s, 0, u, 10), mul);
        } catch (NumberFormatException | ArithmeticException overflow) {
            throw ConfigException.invalid("argument must be a memory value");
        }
    }

    /** Bytes with the largest exact binary unit, as Redis's CONFIG REWRITE writes them. */
    static String formatMemory(long bytes) {
        if (bytes == 0) {
            return "0";
        }
        if (bytes % (1L << 30) == 0) {
            return (bytes >> 30) + "gb";
        }
        if (bytes % (1L << 20) == 0) {
            return (bytes >> 20) + "mb";
        }
        if (bytes % 1024 == 0) {
            return (bytes >> 10) + "kb";
        }
        return Long.toString(bytes);
    }

    private static String joinWords(String raw) {
        return String.join(" ", raw.trim().split("\\s+"));
    }

    /** Double-quotes a string with the escapes {@link ConfigFile} reads back. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> out.append("\\\\");
                case '"' -> out.append("\\\"");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                case '\u0007' -> out.append("\\a");
                case '\b' -> out.append("\\b");
                default -> {
                    if (c < 0x20 || c == 0x7f) {
                        out.append(String.format("\\x%02x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.append('"').toString();
    }

    @Override
    public String toString() {
        return name;
    }

    static Builder builder(String name, Type type) {
        return new Builder(name, type);
    }

    /** Package-private builder used by {@link ConfigRegistry#standard()}. Confined to the building thread. */
    static final class Builder {
        private final String name;
        private final Type type;
        private List<String> aliases = List.of();
        private long min = Long.MIN_VALUE;
        private long max = Long.MAX_VALUE;
        private List<String> enumValues = List.of();
        private String defaultValue;
        private boolean mutable = true;
        private boolean multiArg;
        private String description = "";
        private Check check;

        private Builder(String name, Type type) {
            this.name = name.toLowerCase(Locale.ROOT);
            this.type = type;
        }

        Builder aliases(String... names) {
            this.aliases = List.of(names);
            return this;
        }

        Builder range(long min, long max) {
            this.min = min;
            this.max = max;
            return this;
        }

        Builder values(String... words) {
            this.enumValues = List.of(words);
            return this;
        }

        Builder defaultValue(String value) {
            this.defaultValue = value;
            return this;
        }

        Builder immutable() {
            this.mutable = false;
            return this;
        }

        Builder multiArg() {
            this.multiArg = true;
            return this;
        }

        Builder description(String text) {
            this.description = text;
            return this;
        }

        Builder check(Check check) {
            this.check = check;
            return this;
        }

        ConfigParam build() {
            ConfigParam p = new ConfigParam(this);
            p.defaultText();   // fail fast on a default that does not pass its own validation
            return p;
        }
    }
}
