package io.tide.config;

import java.util.Comparator;
import java.util.List;

/** Renders docs/configuration.md from the parameter definitions, so the page cannot drift. Thread-safe. */
public final class ConfigDocs {

    private ConfigDocs() {}

    public static String markdown(ConfigRegistry registry) {
        StringBuilder sb = new StringBuilder();
        sb.append("# Configuration\n\n")
                .append("<!-- Generated from the parameter definitions (io.tide.config.StandardParams) by ConfigDocsTest;\n")
                .append("     regenerate with: bin/test -pl server -Dtest=ConfigDocsTest -Dtide.regenerateDocs=true -->\n\n")
                .append("Tide reads redis.conf syntax: `tide-server [config-file] [--name value ...]`. Precedence, lowest\n")
                .append("first: built-in defaults, the `--profile`'s settings, the config file, the command line.\n")
                .append("`CONFIG GET` shows every parameter below; `CONFIG SET` changes the runtime ones (startup-only ones\n")
                .append("answer Redis's `can't set immutable config` error); `CONFIG REWRITE` writes changes back to the\n")
                .append("config file the server was started with. Memory sizes accept Redis's units (`100k`, `64mb`, `1gb`).\n\n")
                .append("| parameter | default | type | runtime | description |\n")
                .append("|---|---|---|---|---|\n");
        List<ConfigParam> params = registry.params().stream()
                .sorted(Comparator.comparing(ConfigParam::name)).toList();
        for (ConfigParam p : params) {
            String type = switch (p.type()) {
                case ENUM -> String.join(" \\| ", p.enumValues());
                case INT, LONG -> "integer " + p.min() + ".." + p.max();
                case MEMORY -> "memory";
                case BOOL -> "yes \\| no";
                case STRING -> "string";
            };
            String def = p.defaultValue().isEmpty() ? "\"\"" : "`" + p.defaultValue() + "`";
            if (p.name().equals("dir")) def = "the working directory";
            sb.append("| `").append(p.name()).append("` | ").append(def).append(" | ").append(type).append(" | ")
                    .append(p.mutable() ? "yes" : "startup only").append(" | ")
                    .append(p.description().replace("|", "\\|")).append(" |\n");
        }
        sb.append("\n## Profiles\n\n")
                .append("`--profile NAME` applies a named set of defaults before the config file. `standalone` (the\n")
                .append("default) sets Redis's default save points, `save 3600 1 300 100 60 10000`; an embedded server\n")
                .append("(`Tide.start`) has none unless given. The startup log says which options a profile set.\n\n")
                .append("## Not yet supported\n\n")
                .append("- `daemonize yes` is refused: run Tide under a service manager.\n")
                .append("- Any other redis.conf directive is an error (`unknown option`), never silently ignored.\n");
        return sb.toString();
    }
}
