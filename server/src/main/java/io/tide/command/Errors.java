package io.tide.command;

/**
 * Every error line Tide sends, byte-for-byte as Redis 7 sends it (without the leading dash).
 * Thread-safe (constants and pure functions). Handlers throw {@link CommandException}s built here;
 * only the dispatcher writes error replies.
 */
public final class Errors {

    public static final String WRONG_TYPE = "WRONGTYPE Operation against a key holding the wrong kind of value";
    public static final String SYNTAX = "ERR syntax error";
    public static final String READONLY = "READONLY You can't write against a read only replica.";
    public static final String MASTERDOWN =
            "MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.";
    public static final String NOREPLICAS = "NOREPLICAS Not enough good replicas to write.";
    public static final String NOT_INTEGER = "ERR value is not an integer or out of range";
    public static final String NOT_FLOAT = "ERR value is not a valid float";
    public static final String TIMEOUT_NOT_FLOAT = "ERR timeout is not a float or out of range";
    public static final String TIMEOUT_NOT_INTEGER = "ERR timeout is not an integer or out of range";
    public static final String TIMEOUT_NEGATIVE = "ERR timeout is negative";
    public static final String TIMEOUT_OUT_OF_RANGE = "ERR timeout is out of range";
    public static final String MULTI_NESTED = "ERR MULTI calls can not be nested";
    public static final String EXEC_WITHOUT_MULTI = "ERR EXEC without MULTI";
    public static final String DISCARD_WITHOUT_MULTI = "ERR DISCARD without MULTI";
    public static final String WATCH_IN_MULTI = "ERR WATCH inside MULTI is not allowed";
    public static final String EXECABORT = "EXECABORT Transaction discarded because of previous errors.";
    public static final String NOT_IN_MULTI = "ERR Command not allowed inside a transaction";
    public static final String MONITOR_DENY_BLOCKING = "ERR MONITOR isn't allowed for DENY BLOCKING client";
    public static final String PAUSE_MODE = "ERR CLIENT PAUSE mode must be WRITE or ALL";
    public static final String UNBLOCK_REASON = "ERR CLIENT UNBLOCK reason should be TIMEOUT or ERROR";
    public static final String UNBLOCKED = "UNBLOCKED client unblocked via CLIENT UNBLOCK";
    public static final String UNBLOCKED_ROLE_CHANGE =
            "UNBLOCKED force unblock from blocking operation, instance state changed (master -> replica?)";
    public static final String WAITAOF_REPLICA = "ERR WAITAOF cannot be used with replica instances. Please also note "
            + "that writes to replicas are just local and are not propagated.";
    public static final String WAITAOF_AOF_OFF =
            "ERR WAITAOF cannot be used when numlocal is set but appendonly is disabled.";
    public static final String NUMLOCAL_RANGE = "ERR value is out of range, value must between 0 and 1";
    public static final String SORT_NOT_DOUBLE = "ERR One or more scores can't be converted into double";
    public static final String OVERFLOW = "ERR increment or decrement would overflow";
    public static final String INCR_NAN_OR_INF = "ERR increment would produce NaN or Infinity";
    public static final String NO_SUCH_KEY = "ERR no such key";
    public static final String DB_INDEX_OUT_OF_RANGE = "ERR DB index is out of range";
    public static final String INVALID_EXPIRE_PREFIX = "ERR invalid expire time in '";
    public static final String NOAUTH = "NOAUTH Authentication required.";
    /** CONFIG SET's reason when a tls-* change leaves TLS unconfigurable (the old context stays), as Redis 7.0. */
    public static final String TLS_CONFIGURE = "Unable to update TLS configuration. Check server logs.";
    /** CONFIG SET's reason when the new tls-port cannot be bound (the old listener stays), as Redis 7.0. */
    public static final String LISTEN_PORT = "Unable to listen on this port. Check server logs.";
    /** Redis 7.0's text for a connection refused by protected mode (its typos included: clients match on it). */
    public static final String PROTECTED_MODE = "DENIED Redis is running in protected mode because protected mode is "
            + "enabled and no password is set for the default user. In this mode connections are only accepted from "
            + "the loopback interface. If you want to connect from external computers to Redis you may adopt one of "
            + "the following solutions: 1) Just disable protected mode sending the command 'CONFIG SET protected-mode "
            + "no' from the loopback interface by connecting to Redis from the same host the server is running, "
            + "however MAKE SURE Redis is not publicly accessible from internet if you do so. Use CONFIG REWRITE to "
            + "make this change permanent. 2) Alternatively you can just disable the protected mode by editing the "
            + "Redis configuration file, and setting the protected mode option to 'no', and then restarting the "
            + "server. 3) If you started the server manually just for testing, restart it with the '--protected-mode "
            + "no' option. 4) Setup a an authentication password for the default user. NOTE: You only need to do one "
            + "of the above things in order for the server to start accepting connections from the outside.";
    /** ACL LOAD / ACL SAVE without an aclfile. */
    public static final String NO_ACL_FILE = "ERR This Redis instance is not configured to use an ACL file. You may "
            + "want to specify users via the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a "
            + "Redis configuration file set) in order to store users in the Redis configuration.";
    public static final String WRONGPASS = "WRONGPASS invalid username-password pair or user is disabled.";
    /** Redis 7.0's refusals of a command the connection's ACL user may not run ({@link #aclDenied}). */
    public static final String NOPERM_KEYS = "NOPERM this user has no permissions to access one of the keys used as "
            + "arguments";
    public static final String NOPERM_CHANNELS = "NOPERM this user has no permissions to access one of the channels "
            + "used as arguments";

    /** A queued command that the ACL no longer allows when EXEC runs it (Redis 7.0's execCommand text). */
    public static String aclChangedBeforeExec(io.tide.acl.Acl.Denial d) {
        return "NOPERM ACLs rules changed between the moment the transaction was accumulated and the EXEC call. This "
                + "command is no longer allowed for the following reason: " + switch (d) {
                    case KEY -> "no permission to touch the specified keys";
                    case CHANNEL -> "no permission to access one of the channels used as arguments";
                    default -> "no permission to execute the command or subcommand";
                };
    }

    /** The error for an ACL refusal of {@code spec}: at the top level, or inside a script (Redis's scriptVerifyACL). */
    public static String aclDenied(io.tide.acl.Acl.Denial d, CommandSpec spec, boolean script) {
        if (script) {
            return switch (d) {
                case CMD -> "ERR The user executing the script can't run this command or subcommand";
                case KEY -> "ERR The user executing the script can't access at least one of the keys mentioned in the "
                        + "command arguments";
                case CHANNEL -> "ERR The user executing the script can't publish to the channel mentioned in the command";
                default -> "ERR The user executing the script is lacking the permissions for the command";
            };
        }
        return switch (d) {
            case CMD -> "NOPERM this user has no permissions to run the '" + spec.fullName() + "' command";
            case KEY -> NOPERM_KEYS;
            case CHANNEL -> NOPERM_CHANNELS;
            default -> "NOPERM no permission";
        };
    }
    public static final String AUTH_NO_PASSWORD =
            "ERR AUTH <password> called without any password configured for the default user. "
                    + "Are you sure your configuration is correct?";
    public static final String SAME_OBJECT = "ERR source and destination objects are the same";
    public static final String STRING_TOO_LONG = "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
    public static final String OFFSET_OUT_OF_RANGE = "ERR offset is out of range";
    public static final String INVALID_CURSOR = "ERR invalid cursor";
    public static final String NX_XX_GT_LT = "ERR NX and XX, GT or LT options at the same time are not compatible";
    public static final String NOT_INT32 = "ERR value is out of range, value must between -2147483648 and 2147483647";
    /** getRangeLongFromObjectOrReply's line for [-LONG_MAX, LONG_MAX] (SRANDMEMBER's count, LPOS's RANK, ...). */
    public static final String NOT_IN_LONG_RANGE =
            "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
    /** A COUNT that must be at least 1 (XAUTOCLAIM, GEOSEARCH, ...). */
    public static final String COUNT_NOT_ABOVE_ZERO = "ERR COUNT must be > 0";
    public static final String DECREMENT_OVERFLOW = "ERR decrement would overflow";
    public static final String GT_AND_LT = "ERR GT and LT options at the same time are not compatible";
    public static final String INVALID_FIRST_DB = "ERR invalid first DB index";
    public static final String INVALID_SECOND_DB = "ERR invalid second DB index";
    public static final String LCS_NOT_STRINGS = "ERR The specified keys must contain string values";
    public static final String LCS_IDX_AND_LEN = "ERR If you want both the length and indexes, please just use IDX.";
    public static final String LCS_EXCEEDS_BULK_LEN =
            "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";
    public static final String LCS_ALLOC_FAILED = "ERR Insufficient memory, failed allocating transient memory for LCS";
    public static final String BAD_CLIENT_NAME = "ERR Client names cannot contain spaces, newlines or special characters.";
    public static final String NO_SUCH_CLIENT = "ERR No such client";
    public static final String INVALID_CLIENT_ID = "ERR Invalid client ID";
    public static final String CLIENT_ID_NOT_POSITIVE = "ERR client-id should be greater than 0";
    public static final String BAD_PROTOCOL_VERSION = "ERR Protocol version is not an integer or out of range";
    public static final String HELLO_NOAUTH = "NOAUTH HELLO must be called with the client already authenticated, "
            + "otherwise the HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
            + "select the RESP protocol version at the same time";
    public static final String NO_CONFIG_FILE = "ERR The server is running without a config file";
    public static final String NO_SHUTDOWN_IN_PROGRESS = "ERR No shutdown in progress.";
    public static final String SHUTDOWN_FAILED = "ERR Errors trying to SHUTDOWN. Check logs.";
    /** Redis's text for writes refused while the AOF cannot be written (followed by the error). */
    public static final String AOF_WRITE_ERROR_PREFIX = "MISCONF Errors writing to the AOF file: ";
    public static final String AOF_REWRITE_IN_PROGRESS = "ERR Background append only file rewriting already in progress";
    public static final String BGSAVE_CHILD_ACTIVE = "ERR Another child process is active (AOF?): can't BGSAVE right "
            + "now. Use BGSAVE SCHEDULE in order to schedule a BGSAVE whenever possible.";
    public static final String BGSAVE_IN_PROGRESS = "ERR Background save already in progress";
    public static final String LOADING = "LOADING Redis is loading the dataset in memory";
    public static final String MISCONF = "MISCONF Redis is configured to save RDB snapshots, but it's currently unable to "
            + "persist to disk. Commands that may modify the data set are disabled, because this instance is configured "
            + "to report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). Please "
            + "check the Redis logs for details about the RDB error.";
    public static final String DEBUG_NOT_ALLOWED = "ERR DEBUG command not allowed. If the enable-debug-command option "
            + "is set to \"local\", you can run it from a local connection, otherwise you need to set this option in "
            + "the configuration file, and then restart the server.";
    public static final String MODULE_NOT_ALLOWED = "ERR MODULE command not allowed. If the enable-module-command "
            + "option is set to \"local\", you can run it from a local connection, otherwise you need to set this "
            + "option in the configuration file, and then restart the server.";
    public static final String GETKEYS_INVALID_COMMAND = "ERR Invalid command specified";
    public static final String GETKEYS_NO_KEYS = "ERR The command has no key arguments";
    public static final String GETKEYS_BAD_ARITY = "ERR Invalid number of arguments specified for command";
    public static final String GETKEYS_BAD_ARGUMENTS = "ERR Invalid arguments specified for command";
    public static final String PROTOCOL_VERSION = "NOPROTO unsupported protocol version";
    public static final String NO_LRU =
            "ERR An LFU maxmemory policy is selected, idle time not tracked. "
                    + "Please note that when switching between policies at runtime LRU and LFU data will take some "
                    + "time to adjust.";
    public static final String NO_LFU =
            "ERR An LFU maxmemory policy is not selected, access frequency not tracked. "
                    + "Please note that when switching between policies at runtime LRU and LFU data will take some "
                    + "time to adjust.";

    // Sets (t_set.c).
    public static final String MUST_BE_POSITIVE = "ERR value is out of range, must be positive";
    /** Tide's own: a repeated-member reply longer than the JVM's largest array cannot be built. */
    public static final String SRANDMEMBER_COUNT_TOO_LARGE =
            "ERR value is out of range, value must between -2147483639 and 9223372036854775807";
    public static final String NUMKEYS_NOT_POSITIVE = "ERR numkeys should be greater than 0";
    public static final String NUMKEYS_EXCEEDS_ARGS = "ERR Number of keys can't be greater than number of args";
    public static final String LIMIT_NEGATIVE = "ERR LIMIT can't be negative";
    public static final String NOVALUES_ONLY_HSCAN = "ERR NOVALUES option can only be used in HSCAN";
    // Bitmaps and HyperLogLog (BitCommands, HyperLogLogCommands).
    public static final String BIT_OFFSET_NOT_INTEGER = "ERR bit offset is not an integer or out of range";
    public static final String BIT_NOT_INTEGER = "ERR bit is not an integer or out of range";
    public static final String BIT_ARGUMENT = "ERR The bit argument must be 1 or 0.";
    public static final String BITOP_NOT_ONE_KEY = "ERR BITOP NOT must be called with a single source key.";
    public static final String BITFIELD_TYPE =
            "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.";
    public static final String BITFIELD_OVERFLOW_TYPE = "ERR Invalid OVERFLOW type specified";
    public static final String BITFIELD_RO_GET_ONLY = "ERR BITFIELD_RO only supports the GET subcommand";
    public static final String HLL_WRONG_TYPE = "WRONGTYPE Key is not a valid HyperLogLog string value.";
    public static final String HLL_CORRUPT = "INVALIDOBJ Corrupted HLL object detected";
    public static final String PFDEBUG_NO_KEY = "ERR The specified key does not exist";
    public static final String PFDEBUG_NOT_SPARSE = "ERR HLL encoding is not sparse";
    /** Followed by the subcommand as sent and a closing quote. */
    public static final String PFDEBUG_UNKNOWN_PREFIX = "ERR Unknown PFDEBUG subcommand '";
    // Lists (ListCommands)
    public static final String LIST_INDEX_OUT_OF_RANGE = "ERR index out of range";
    public static final String LIST_RANK_ZERO = "ERR RANK can't be zero: use 1 to start from the first match, "
            + "2 from the second ... or use negative to start from the end of the list";
    public static final String LIST_COUNT_NEGATIVE = "ERR COUNT can't be negative";
    public static final String LIST_MAXLEN_NEGATIVE = "ERR MAXLEN can't be negative";
    public static final String LIST_COUNT_NOT_POSITIVE = "ERR count should be greater than 0";

    // Hashes (HashCommands).
    public static final String HASH_VALUE_NOT_INTEGER = "ERR hash value is not an integer";
    public static final String HASH_VALUE_NOT_FLOAT = "ERR hash value is not a float";
    public static final String HASH_INCR_NAN_OR_INF = "ERR value is NaN or Infinity";
    public static final String HASH_VALUE_OUT_OF_RANGE = "ERR value is out of range";
    public static final String HASH_FIELDS_MISSING =
            "ERR Mandatory argument FIELDS is missing or not at the right position";
    public static final String HASH_NUMFIELDS_NOT_POSITIVE = "ERR Parameter `numFields` should be greater than 0";
    public static final String HASH_NUMBER_OF_FIELDS = "ERR Number of fields must be a positive integer";
    public static final String HASH_NUMFIELDS_MISMATCH =
            "ERR The `numfields` parameter must match the number of arguments";
    public static final String HASH_EXPIRE_NEGATIVE = "ERR invalid expire time, must be >= 0";
    public static final String HASH_INVALID_NUMBER_OF_FIELDS = "ERR invalid number of fields";
    public static final String HASH_MISSING_EXPIRE = "ERR missing expire time";
    public static final String HASH_ONE_FXX_FNX = "ERR Only one of FXX or FNX arguments can be specified";
    public static final String HASH_ONE_EXPIRATION =
            "ERR Only one of EX, PX, EXAT, PXAT or KEEPTTL arguments can be specified";
    public static final String UNKNOWN_ARGUMENT_PREFIX = "ERR unknown argument: ";

    // Streams (t_stream.c, Redis 7.0; the + ID of XREAD as in 7.4).
    public static final String STREAM_INVALID_ID = "ERR Invalid stream ID specified as stream command argument";
    public static final String STREAM_ID_NOT_GREATER =
            "ERR The ID specified in XADD is equal or smaller than the target stream top item";
    public static final String STREAM_ID_ZERO = "ERR The ID specified in XADD must be greater than 0-0";
    public static final String STREAM_EXHAUSTED =
            "ERR The stream has exhausted the last possible ID, unable to add more items";
    public static final String STREAM_ELEMENTS_TOO_LARGE = "ERR Elements are too large to be stored";
    public static final String STREAM_MAXLEN_NEGATIVE = "ERR The MAXLEN argument must be >= 0.";
    public static final String STREAM_LIMIT_NEGATIVE = "ERR The LIMIT argument must be >= 0.";
    public static final String STREAM_MAXLEN_AND_MINID =
            "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";
    public static final String STREAM_LIMIT_WITHOUT_STRATEGY =
            "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy";
    public static final String STREAM_XTRIM_WITHOUT_STRATEGY =
            "ERR syntax error, XTRIM must be called with a trimming strategy";
    public static final String STREAM_LIMIT_WITHOUT_APPROX =
            "ERR syntax error, LIMIT cannot be used without the special ~ option";
    public static final String STREAM_INVALID_START = "ERR invalid start ID for the interval";
    public static final String STREAM_INVALID_END = "ERR invalid end ID for the interval";
    public static final String STREAM_GROUP_IN_XREAD =
            "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.";
    public static final String STREAM_NOACK_IN_XREAD =
            "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.";
    public static final String STREAM_MISSING_GROUP = "ERR Missing GROUP option for XREADGROUP";
    public static final String STREAM_DOLLAR_IN_GROUP = "ERR The $ ID is meaningless in the context of XREADGROUP: "
            + "you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new "
            + "messages. The $ ID would just return an empty result set.";
    public static final String STREAM_PLUS_IN_GROUP = "ERR The + ID is meaningless in the context of XREADGROUP: "
            + "you want to read the history of this consumer by specifying a proper ID, or use the > ID to get new "
            + "messages. The + ID would just return an empty result set.";
    public static final String STREAM_GT_OUTSIDE_GROUP =
            "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> <consumer> option.";
    public static final String STREAM_GROUP_GONE_WHILE_BLOCKED =
            "NOGROUP the consumer group this client was blocked on no longer exists";
    public static final String STREAM_KEY_GONE_WHILE_BLOCKED = "UNBLOCKED the stream key no longer exists";
    public static final String STREAM_BUSYGROUP = "BUSYGROUP Consumer Group name already exists";
    public static final String STREAM_XGROUP_NEEDS_KEY = "ERR The XGROUP subcommand requires the key to exist. "
            + "Note that for CREATE you may want to use the MKSTREAM option to create an empty stream automatically.";
    public static final String STREAM_ENTRIESREAD_INVALID = "ERR value for ENTRIESREAD must be positive or -1";
    public static final String STREAM_XCLAIM_MIN_IDLE = "ERR Invalid min-idle-time argument for XCLAIM";
    public static final String STREAM_XCLAIM_IDLE = "ERR Invalid IDLE option argument for XCLAIM";
    public static final String STREAM_XCLAIM_TIME = "ERR Invalid TIME option argument for XCLAIM";
    public static final String STREAM_XCLAIM_RETRYCOUNT = "ERR Invalid RETRYCOUNT option argument for XCLAIM";
    public static final String STREAM_XAUTOCLAIM_MIN_IDLE = "ERR Invalid min-idle-time argument for XAUTOCLAIM";
    public static final String STREAM_ENTRIES_ADDED_NEGATIVE = "ERR entries_added must be positive";
    public static final String STREAM_XSETID_BELOW_MAX_DELETED =
            "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id";
    public static final String STREAM_XSETID_BELOW_TOP =
            "ERR The ID specified in XSETID is smaller than the target stream top item";
    public static final String STREAM_XSETID_ENTRIES_ADDED_BELOW_LENGTH =
            "ERR The entries_added specified in XSETID is smaller than the target stream length";

    /** XREAD's and XREADGROUP's odd count after STREAMS: Redis 7.0 words both as XREAD's. */
    public static final String STREAM_UNBALANCED =
            "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.";

    /** XREADGROUP's NOGROUP line. */
    public static String streamNoGroupForRead(String key, String group) {
        return "NOGROUP No such key '" + key + "' or consumer group '" + group + "' in XREADGROUP with GROUP option";
    }

    /** XPENDING's, XCLAIM's and XAUTOCLAIM's NOGROUP line. */
    public static String streamNoGroup(String key, String group) {
        return "NOGROUP No such key '" + key + "' or consumer group '" + group + "'";
    }

    /** XGROUP's and XINFO's NOGROUP line. */
    public static String streamNoGroupForKey(String group, String key) {
        return "NOGROUP No such consumer group '" + group + "' for key name '" + key + "'";
    }

    /** {@code ERR Unrecognized XCLAIM option 'foo'}. */
    public static String streamXclaimOption(String option) {
        return "ERR Unrecognized XCLAIM option '" + option + "'";
    }

    /** LATENCY GRAPH of an event the latency monitor has no samples of. */
    public static String latencyNoSamples(String event) {
        return "ERR No samples available for event '" + event + "'";
    }

    /** Redis's addReplySubcommandSyntaxError: {@code ERR unknown subcommand or wrong number of arguments for 'x'. Try XGROUP HELP.} */
    public static String subcommandSyntax(String sub, String container) {
        return "ERR unknown subcommand or wrong number of arguments for '" + abbreviate(sub) + "'. Try "
                + container.toUpperCase(java.util.Locale.ROOT) + " HELP.";
    }
    // Sorted sets and geo (ZSetCommands, GeoCommands).
    public static final String ZADD_XX_NX = "ERR XX and NX options at the same time are not compatible";
    public static final String ZADD_GT_LT_NX = "ERR GT, LT, and/or NX options at the same time are not compatible";
    public static final String ZADD_INCR_PAIRS = "ERR INCR option supports a single increment-element pair";
    public static final String ZSET_NAN = "ERR resulting score is not a number (NaN)";
    public static final String MIN_MAX_NOT_FLOAT = "ERR min or max is not a float";
    public static final String MIN_MAX_NOT_LEX = "ERR min or max not valid string range item";
    public static final String WEIGHT_NOT_FLOAT = "ERR weight value is not a float";
    /** Followed by {@code <min> and <max>} (getRangeLongFromObjectOrReply). */
    public static final String VALUE_MUST_BE_BETWEEN = "ERR value is out of range, value must between ";
    /** Followed by {@code <command>' command}. */
    public static final String AT_LEAST_ONE_KEY = "ERR at least 1 input key is needed for '";
    public static final String ZRANGE_LIMIT_BY_RANK =
            "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
    public static final String ZRANGE_WITHSCORES_BYLEX =
            "ERR syntax error, WITHSCORES not supported in combination with BYLEX";
    /** Followed by {@code <longitude>,<latitude>} printed with %f. */
    public static final String GEO_INVALID_PAIR = "ERR invalid longitude,latitude pair ";
    public static final String GEO_UNIT = "ERR unsupported unit provided. please use M, KM, FT, MI";
    public static final String GEO_NEED_RADIUS = "ERR need numeric radius";
    public static final String GEO_RADIUS_NEGATIVE = "ERR radius cannot be negative";
    public static final String GEO_NEED_WIDTH = "ERR need numeric width";
    public static final String GEO_NEED_HEIGHT = "ERR need numeric height";
    public static final String GEO_BOX_NEGATIVE = "ERR height or width cannot be negative";
    public static final String GEO_MEMBER = "ERR could not decode requested zset member";
    public static final String GEO_ANY_NEEDS_COUNT = "ERR the ANY argument requires COUNT argument";
    public static final String GEORADIUS_STORE_OPTIONS =
            "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options";
    public static final String GEOSEARCHSTORE_OPTIONS =
            "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options";
    /** Followed by the command name as the client typed it. */
    public static final String GEO_FROM = "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for ";
    /** Followed by the command name as the client typed it. */
    public static final String GEO_BY = "ERR exactly one of BYRADIUS and BYBOX can be specified for ";
    // Scripting and functions (ScriptCommands, FunctionCommands, io.tide.script).
    public static final String NOSCRIPT = "NOSCRIPT No matching script. Please use EVAL.";
    public static final String NOTBUSY = "NOTBUSY No scripts in execution right now.";
    /** A script changing a global or a library table (Redis 7.0's read-only tables), before Redis's script suffix. */
    public static final String SCRIPT_READONLY_TABLE = "Attempt to modify a readonly table";
    /** The prefix of a script reading an undefined global; the name and a closing quote follow. */
    public static final String SCRIPT_NONEXISTENT_GLOBAL = "Script attempted to access nonexistent global variable '";
    /** redis.call of a command Redis flags noscript (blocking commands and WAIT among them). */
    public static final String OOM = "OOM command not allowed when used memory > 'maxmemory'.";
    public static final String SCRIPT_COMMAND_NOT_ALLOWED = "ERR This Redis command is not allowed from script";
    /** XREAD/XREADGROUP with BLOCK from a script: the command's name as the script wrote it goes before it. */
    public static final String SCRIPT_XREAD_BLOCK = " command is not allowed with BLOCK option from scripts";
    /** In place of a value nested too deep in a script's result (a table that contains itself). */
    public static final String SCRIPT_REPLY_STACK_LIMIT = "ERR reached lua stack limit";
    /** Lua 5.1's unpack of more values than its C stack holds. */
    public static final String SCRIPT_UNPACK_TOO_MANY = "too many results to unpack";
    /** Lua 5.1's load given something other than a reader function; the Lua type name and ")" follow. */
    public static final String SCRIPT_LOAD_NOT_FUNCTION = "bad argument #1 to 'load' (function expected, got ";
    public static final String SCRIPT_LOAD_READER_NOT_STRING = "reader function must return a string";
    public static final String CJSON_PRECISION_RANGE =
            "bad argument #1 to 'encode_number_precision' (expected integer between 1 and 14)";
    public static final String SCRIPT_NUMKEYS_TOO_MANY = "ERR Number of keys can't be greater than number of args";
    public static final String SCRIPT_NUMKEYS_NEGATIVE = "ERR Number of keys can't be negative";
    public static final String SCRIPT_FLUSH_OPTION = "ERR SCRIPT FLUSH only support SYNC|ASYNC option";
    public static final String SCRIPT_RO_WITH_WRITE_FLAG =
            "ERR Can not execute a script with write flag using *_ro command.";
    // Functions (FunctionCommands, io.tide.script.FunctionLibraries and FunctionPayload).
    public static final String FUNCTION_NOT_FOUND = "ERR Function not found";
    public static final String FUNCTION_BAD_NUMKEYS = "ERR Bad number of keys provided";
    public static final String FUNCTION_LIBRARY_NOT_FOUND = "ERR Library not found";
    public static final String FUNCTION_FLUSH_OPTION = "ERR FUNCTION FLUSH only supports SYNC|ASYNC option";
    /** Followed by the option. */
    public static final String FUNCTION_UNKNOWN_OPTION = "ERR Unknown option given: ";
    public static final String FUNCTION_LIST_NO_NAME = "ERR library name argument was not given";
    /** Followed by the argument. */
    public static final String FUNCTION_LIST_UNKNOWN_ARG = "ERR Unknown argument ";
    public static final String FUNCTION_RESTORE_POLICY =
            "ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.";
    // Busy scripts (SCRIPT KILL, FUNCTION KILL, busy-reply-threshold; io.tide.script.ScriptWatchdog).
    public static final String BUSY_EVAL =
            "BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.";
    public static final String BUSY_FUNCTION =
            "BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN NOSAVE.";
    public static final String UNKILLABLE = "UNKILLABLE Sorry the script already executed write commands against the"
            + " dataset. You can either wait the script termination or kill the server in a hard way using the"
            + " SHUTDOWN NOSAVE command.";
    public static final String SCRIPT_KILLED = "ERR Script killed by user with SCRIPT KILL...";
    /**
     * Tide's own: a script inline on its shard of a multi-shard server reached another shard's key from inside a Lua
     * coroutine, which runs on a thread of its own where the script cannot move to the coordinator (decision 0022).
     */
    public static final String SCRIPT_OTHER_SHARD_IN_COROUTINE = "ERR Script attempted to access a key of another"
            + " shard from a coroutine: declare the key in KEYS, or call it outside the coroutine";
    /** Followed by the refusal without its dash: EXEC refused while busy (Redis's execCommandAbort). */
    public static final String EXECABORT_BECAUSE = "EXECABORT Transaction discarded because of: ";

    // Pub/sub, keyspace notifications, client tracking, MONITOR
    public static final String PUBSUB_CONTEXT_PREFIX = "ERR Can't execute '";
    public static final String PUBSUB_CONTEXT_SUFFIX =
            "': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / QUIT / RESET are allowed in this context";
    public static final String TRACKING_ONE_REDIRECT = "ERR A client can only redirect to a single other client";
    public static final String TRACKING_REDIRECT_GONE = "ERR The client ID you want redirect to does not exist";
    public static final String TRACKING_PREFIX_NEEDS_BCAST = "ERR PREFIX option requires BCAST mode to be enabled";
    public static final String TRACKING_SWITCH_BCAST = "ERR You can't switch BCAST mode on/off before disabling "
            + "tracking for this client, and then re-enabling it with a different mode.";
    public static final String TRACKING_BCAST_OPT = "ERR OPTIN and OPTOUT are not compatible with BCAST";
    public static final String TRACKING_OPTIN_AND_OPTOUT = "ERR You can't specify both OPTIN mode and OPTOUT mode";
    public static final String TRACKING_SWITCH_OPT = "ERR You can't switch OPTIN/OPTOUT mode before disabling "
            + "tracking for this client, and then re-enabling it with a different mode.";
    public static final String TRACKING_CACHING_MODE = "ERR CLIENT CACHING can be called only when the client is "
            + "in tracking mode with OPTIN or OPTOUT mode enabled";
    public static final String TRACKING_CACHING_YES =
            "ERR CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.";
    public static final String TRACKING_CACHING_NO =
            "ERR CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.";

    public static final String BUSYKEY = "BUSYKEY Target key name already exists.";
    public static final String RESTORE_INVALID_TTL = "ERR Invalid TTL value, must be >= 0";
    public static final String RESTORE_INVALID_IDLETIME = "ERR Invalid IDLETIME value, must be >= 0";
    public static final String RESTORE_INVALID_FREQ = "ERR Invalid FREQ value, must be >= 0 and <= 255";
    public static final String DUMP_PAYLOAD = "ERR DUMP payload version or checksum are wrong";
    public static final String DUMP_BAD_DATA = "ERR Bad data format";
    public static final String MIGRATE_KEYS_NEED_EMPTY_KEY =
            "ERR When using MIGRATE KEYS option, the key argument must be set to the empty string";
    public static final String MIGRATE_IOERR_CONNECTING = "IOERR error or timeout connecting to the client";
    public static final String MIGRATE_IOERR_READING = "IOERR error or timeout reading to target instance";
    public static final String MIGRATE_IOERR_WRITING = "IOERR error or timeout writing to target instance";

    /** MIGRATE's reply when the target answered an error ({@code line} without its dash). */
    public static String migrateTargetError(String line) {
        return "ERR Target instance replied with error: " + line;
    }

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
