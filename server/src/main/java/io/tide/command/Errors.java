package io.tide.command;

/**
 * Every error line Tide sends, byte-for-byte as Redis 7 sends it (without the leading dash).
 * Thread-safe (constants and pure functions). Handlers throw {@link CommandException}s built here;
 * only the dispatcher writes error replies.
 */
public final class Errors {

    public static final String WRONG_TYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    public static final String SYNTAX = "ERR syntax error";
    public static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    public static final String NOT_FLOAT = "ERR value is not a valid float";
    public static final String OVERFLOW = "ERR increment or decrement would overflow";
    public static final String INCR_NAN_OR_INF = "ERR increment would produce NaN or Infinity";
    public static final String NO_SUCH_KEY = "ERR no such key";
    public static final String DB_INDEX_OUT_OF_RANGE = "ERR DB index is out of range";
    public static final String INVALID_EXPIRE_PREFIX = "ERR invalid expire time in '";
    public static final String NOAUTH = "NOAUTH Authentication required.";
    public static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
    public static final String AUTH_NO_PASSWORD =
            "ERR AUTH <password> called without any password configured for the default user. "
                    + "Are you sure your configuration is correct?";
    public static final String SAME_OBJECT = "ERR source and destination objects are the same";
    public static final String STRING_TOO_LONG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
    public static final String OFFSET_OUT_OF_RANGE = "ERR offset is out of range";
    public static final String INVALID_CURSOR = "ERR invalid cursor";
    public static final String NX_XX_GT_LT = "ERR NX and XX, GT or LT options at the same time are not compatible";
    public static final String GT_LT_NX = "ERR GT, LT, and/or NX options at the same time are not compatible";
    public static final String PROTOCOL_VERSION = "NOPROTO unsupported protocol version";
    public static final String NO_LFU =
            "ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                    + "Please note that when switching between policies at runtime LRU and LFU data will take some "
                    + "time to adjust.";
    public static final String LFU_NO_IDLETIME =
            "ERR An LFU maxmemory policy is selected, idle time not tracked. "
                    + "Please note that when switching between policies at runtime LRU and LFU data will take some "
                    + "time to adjust.";
    public static final String TIMEOUT_NOT_FLOAT = "ERR timeout is not a float or out of range";
    public static final String TIMEOUT_NEGATIVE = "ERR timeout is negative";

    private Errors() {}

    public static CommandException error(String line) {
        return new CommandException(line);
    }

    public static CommandException wrongType() {
        return new CommandException(WRONG_TYPE);
    }

    public static CommandException syntax() {
        return new CommandException(SYNTAX);
    }

    public static CommandException notInteger() {
        return new CommandException(NOT_INTEGER);
    }

    public static CommandException notFloat() {
        return new CommandException(NOT_FLOAT);
    }

    /** {@code ERR wrong number of arguments for 'get' command}; {@code name} is the full name, e.g. {@code client|kill}. */
    public static String wrongArity(String name) {
        return "ERR wrong number of arguments for '" + name + "' command";
    }

    /** {@code ERR invalid expire time in 'set' command}. */
    public static CommandException invalidExpire(String command) {
        return new CommandException(INVALID_EXPIRE_PREFIX + command + "' command");
    }

    /** {@code ERR unknown subcommand 'foo'. Try CLIENT HELP.} */
    public static CommandException unknownSubcommand(String sub, String container) {
        return new CommandException("ERR unknown subcommand '" + abbreviate(sub) + "'. Try "
                + container.toUpperCase(java.util.Locale.ROOT) + " HELP.");
    }

    /** Redis's unknown-command line, quoting the first arguments as Redis does. */
    public static String unknownCommand(byte[][] argv) {
        StringBuilder sb = new StringBuilder("ERR unknown command '")
                .append(abbreviate(printable(argv[0]))).append("', with args beginning with: ");
        for (int i = 1; i < argv.length && sb.length() < 128; i++) {
            sb.append('\'').append(abbreviate(printable(argv[i]))).append("' ");
        }
        return sb.toString();
    }

    private static String abbreviate(String s) {
        return s.length() > 128 ? s.substring(0, 128) : s;
    }

    /** Text of an argument for an error line; newlines would break the protocol, so they become spaces. */
    public static String printable(byte[] arg) {
        String s = new String(arg, java.nio.charset.StandardCharsets.UTF_8);
        return s.replace('\r', ' ').replace('\n', ' ');
    }
}
