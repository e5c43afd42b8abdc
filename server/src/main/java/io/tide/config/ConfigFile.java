package io.tide.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Reads redis.conf syntax into directives: one {@code name arg...} per line, {@code #} comments, blank lines, quoted
 * arguments split as Redis's {@code sdssplitargs} does, and {@code include path} (relative to the including file's
 * directory). Thread-safe (stateless).
 */
final class ConfigFile {

    /** How deep includes may nest before we assume a cycle. */
    static final int MAX_INCLUDE_DEPTH = 16;

    /** One directive: its lower-case name, its arguments, and where it came from (for error messages). */
    record Directive(String name, List<String> args, Path file, int line) {}

    private ConfigFile() {}

    /** All directives of {@code file} and its includes, in order. */
    static List<Directive> read(Path file) {
        List<Directive> out = new ArrayList<>();
        read(file, 0, out);
        return out;
    }

    private static void read(Path file, int depth, List<Directive> out) {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigException("tide: can't open config file '" + file + "': " + describe(e));
        }
        for (int i = 0; i < lines.size(); i++) {
            int lineNo = i + 1;
            String trimmed = lines.get(i).strip();
            if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                continue;
            }
            List<String> words;
            try {
                words = splitArgs(lines.get(i));
            } catch (ConfigException e) {
                throw atLine(file, lineNo, e.reason());
            }
            if (words.isEmpty()) {
                continue;
            }
            String name = words.getFirst().toLowerCase(Locale.ROOT);
            List<String> args = List.copyOf(words.subList(1, words.size()));
            if (name.equals("include")) {
                if (args.size() != 1) {
                    throw atLine(file, lineNo, "wrong number of arguments for 'include'");
                }
                if (depth >= MAX_INCLUDE_DEPTH) {
                    throw atLine(file, lineNo, "include nesting too deep (a cycle?)");
                }
                Path dir = file.toAbsolutePath().getParent();
                Path target = dir == null ? Path.of(args.getFirst()) : dir.resolve(args.getFirst());
                read(target, depth + 1, out);
                continue;
            }
            out.add(new Directive(name, args, file, lineNo));
        }
    }

    static ConfigException atLine(Path file, int line, String reason) {
        return new ConfigException("tide: config file " + file + " line " + line + ": " + reason, null, reason);
    }

    private static String describe(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "No such file or directory";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "Permission denied";
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    /**
     * Splits a line into arguments as Redis's {@code sdssplitargs}: whitespace separates words; {@code "..."} takes
     * escapes ({@code \n \r \t \b \a \\ \" \xHH}); {@code '...'} takes only {@code \'}; a closing quote must be
     * followed by whitespace or the end.
     *
     * @throws ConfigException when quotes are unbalanced
     */
    static List<String> splitArgs(String line) {
        List<String> words = new ArrayList<>();
        int i = 0;
        int n = line.length();
        while (true) {
            while (i < n && Character.isWhitespace(line.charAt(i))) {
                i++;
            }
            if (i >= n) {
                return words;
            }
            StringBuilder cur = new StringBuilder();
            boolean inDouble = false;
            boolean inSingle = false;
            boolean done = false;
            while (!done) {
                if (inDouble) {
                    if (i >= n) {
                        throw unbalanced();
                    }
                    char c = line.charAt(i);
                    if (c == '\\' && i + 3 < n && line.charAt(i + 1) == 'x'
                            && isHex(line.charAt(i + 2)) && isHex(line.charAt(i + 3))) {
                        cur.append((char) Integer.parseInt(line, i + 2, i + 4, 16));
                        i += 3;
                    } else if (c == '\\' && i + 1 < n) {
                        i++;
                        char e = line.charAt(i);
                        cur.append(switch (e) {
                            case 'n' -> '\n';
                            case 'r' -> '\r';
                            case 't' -> '\t';
                            case 'b' -> '\b';
                            case 'a' -> '\u0007';
                            default -> e;
                        });
                    } else if (c == '"') {
                        if (i + 1 < n && !Character.isWhitespace(line.charAt(i + 1))) {
                            throw unbalanced();
                        }
                        done = true;
                    } else {
                        cur.append(c);
                    }
                } else if (inSingle) {
                    if (i >= n) {
                        throw unbalanced();
                    }
                    char c = line.charAt(i);
                    if (c == '\\' && i + 1 < n && line.charAt(i + 1) == '\'') {
                        i++;
                        cur.append('\'');
                    } else if (c == '\'') {
                        if (i + 1 < n && !Character.isWhitespace(line.charAt(i + 1))) {
                            throw unbalanced();
                        }
                        done = true;
                    } else {
                        cur.append(c);
                    }
                } else {
                    if (i >= n) {
                        break;
                    }
                    char c = line.charAt(i);
                    if (Character.isWhitespace(c)) {
                        done = true;
                    } else if (c == '"') {
                        inDouble = true;
                    } else if (c == '\'') {
                        inSingle = true;
                    } else {
                        cur.append(c);
                    }
                }
                if (i < n) {
                    i++;
                }
            }
            words.add(cur.toString());
        }
    }

    private static boolean isHex(char c) {
        return Character.digit(c, 16) >= 0;
    }

    private static ConfigException unbalanced() {
        return ConfigException.invalid("Unbalanced quotes in configuration line");
    }
}
