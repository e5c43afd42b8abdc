package io.tide.config;

import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;
import picocli.CommandLine.ParseResult;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Parses {@code tide-server [config-file] [--option value ...]} as redis-server does: the optional first argument is a
 * redis.conf file, and every parameter is also an option {@code --name} that overrides it. Thread-safe (stateless);
 * printing and exiting are the caller's.
 *
 * <p>Order of precedence, lowest first: built-in defaults, the {@code --profile}'s settings, the config file, the
 * command line. The options are built with picocli's programmatic API from {@link ConfigRegistry#params()}, so a new
 * parameter is a new option with its help line automatically.
 */
public final class LaunchOptions {

    /** What the caller should do. */
    public enum Action { RUN, HELP, VERSION, CHECK_CONFIG, ERROR }

    /**
     * The outcome of parsing.
     *
     * @param config            the loaded configuration (defaults for HELP and VERSION; null for ERROR)
     * @param action            what to do
     * @param profileSetOptions the options the chosen profile set before the file and command line
     * @param message           text to print: usage, version, the check-config verdict, or a one-line error; null
     *                          for RUN
     */
    public record Launch(ConfigRegistry config, Action action, List<String> profileSetOptions, String message) {

        public Launch {
            profileSetOptions = List.copyOf(profileSetOptions);
        }

        /** 0, or 2 for a usage or configuration error. */
        public int exitCode() {
            return action == Action.ERROR ? 2 : 0;
        }
    }

    private static final String HELP = "--help";
    private static final String VERSION = "--version";
    private static final String CHECK_CONFIG = "--check-config";

    private LaunchOptions() {}

    public static Launch parse(String[] args, String version) {
        ConfigRegistry config = ConfigRegistry.standard();
        CommandLine cli = new CommandLine(spec(config));
        cli.setOverwrittenOptionsAllowed(true);
        cli.setExpandAtFiles(false);
        cli.setOptionsCaseInsensitive(true);
        ParseResult parsed;
        try {
            parsed = cli.parseArgs(args);
        } catch (CommandLine.UnmatchedArgumentException e) {
            String first = e.getUnmatched().isEmpty() ? "?" : e.getUnmatched().getFirst();
            return error(first.startsWith("-") ? "tide: unknown option '" + optionName(first) + "'"
                    : "tide: unexpected argument '" + first + "'");
        } catch (CommandLine.MissingParameterException e) {
            String option = e.getMissing().isEmpty() || !(e.getMissing().getFirst() instanceof OptionSpec o)
                    ? "an option" : o.longestName();
            return error("tide: missing value for " + option);
        } catch (CommandLine.ParameterException e) {
            return error("tide: " + e.getMessage());
        }
        if (parsed.isUsageHelpRequested()) {
            return new Launch(config, Action.HELP, List.of(), cli.getUsageMessage());
        }
        if (parsed.isVersionHelpRequested()) {
            return new Launch(config, Action.VERSION, List.of(), "Tide server v=" + version
                    + " java=" + Runtime.version());
        }

        Path file = parsed.hasMatchedPositional(0) ? Path.of((String) parsed.matchedPositional(0).getValue()) : null;
        List<ConfigFile.Directive> directives = List.of();
        try {
            if (file != null) {
                directives = ConfigFile.read(file);
            }
        } catch (ConfigException e) {
            return error(e.getMessage());
        }

        // The profile comes first, so find it before anything else is applied: the command line wins over the file.
        String profileName = config.param("profile").defaultValue();
        for (ConfigFile.Directive d : directives) {
            if (d.name().equals("profile") && d.args().size() == 1) {
                profileName = d.args().getFirst();
            }
        }
        if (parsed.hasMatchedOption("--profile")) {
            profileName = parsed.matchedOption("--profile").getValue();
        }
        Profile profile = Profile.named(profileName.toLowerCase(Locale.ROOT));
        if (profile == null) {
            return error("tide: unknown --profile '" + profileName + "' (supported: "
                    + String.join(", ", Profile.names()) + ")");
        }
        List<String> profileSet = new ArrayList<>();
        profile.settings().forEach((name, value) -> {
            config.setInitial(name, value);
            profileSet.add(name);
        });

        try {
            config.applyDirectives(directives);
        } catch (ConfigException e) {
            return error(e.getMessage());
        }
        for (OptionSpec option : parsed.matchedOptions()) {
            if (!(option.userObject() instanceof ConfigParam param)) {
                continue;
            }
            Object raw = option.getValue();
            String value = raw instanceof String[] words ? String.join(" ", words) : String.valueOf(raw);
            try {
                config.setInitial(param.name(), value);
            } catch (ConfigException e) {
                return error("tide: invalid value for --" + param.name() + ": '" + value + "' (" + e.reason() + ")");
            }
        }
        config.configFile(file);
        try {
            config.checkStartup();
        } catch (ConfigException e) {
            return error(e.getMessage());
        }
        if (parsed.hasMatchedOption(CHECK_CONFIG)) {
            return new Launch(config, Action.CHECK_CONFIG, profileSet,
                    "tide: configuration OK" + (file == null ? "" : " (" + file + ")"));
        }
        return new Launch(config, Action.RUN, profileSet, null);
    }

    private static Launch error(String message) {
        return new Launch(null, Action.ERROR, List.of(), message);
    }

    /** {@code --port=x} is reported as {@code --port}. */
    private static String optionName(String arg) {
        int eq = arg.indexOf('=');
        return eq > 0 ? arg.substring(0, eq) : arg;
    }

    private static CommandSpec spec(ConfigRegistry config) {
        CommandSpec spec = CommandSpec.create().name("tide-server");
        spec.usageMessage()
                .customSynopsis("tide-server [config-file] [--option value ...]")
                .description("A Redis-compatible server. Every option is also a redis.conf directive of the same "
                        + "name; the command line overrides the file.")
                .width(110);
        spec.addPositional(PositionalParamSpec.builder().index("0").arity("0..1").paramLabel("config-file")
                .type(String.class).description("A redis.conf file to load.").build());
        spec.addOption(OptionSpec.builder("-h", HELP).usageHelp(true)
                .description("Show this help and exit.").build());
        spec.addOption(OptionSpec.builder("-v", VERSION).versionHelp(true)
                .description("Print the version and exit.").build());
        spec.addOption(OptionSpec.builder(CHECK_CONFIG).arity("0").type(boolean.class)
                .description("Load and validate the configuration, then exit.").build());
        for (ConfigParam p : config.params()) {
            List<String> names = new ArrayList<>();
            names.add("--" + p.name());
            p.aliases().forEach(a -> names.add("--" + a));
            OptionSpec.Builder b = OptionSpec.builder(names.toArray(String[]::new))
                    .paramLabel(p.valueLabel())
                    .userObject(p)
                    .description(p.description() + (p.mutable() ? "" : " (startup only)"),
                            "Default: " + shownDefault(p));
            if (p.multiArg()) {
                b.arity("1..*").type(String[].class);
            } else {
                b.arity("1").type(String.class);
            }
            spec.addOption(b.build());
        }
        return spec;
    }

    private static String shownDefault(ConfigParam p) {
        return p.defaultValue().isEmpty() ? "\"\"" : p.defaultValue();
    }
}
