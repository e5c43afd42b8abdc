package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.ClientConnection;
import io.tide.command.ClientSession;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The CLIENT container: ID, SETNAME, GETNAME, LIST, INFO, KILL, SETINFO, REPLY, NO-EVICT, NO-TOUCH,
 * HELP. Thread-safe (stateless). Most subcommands run on the client's home shard and change only its
 * own session; LIST and KILL read every client's session, so they are ALL_SHARDS commands and run
 * while every shard is parked (or inline with one shard).
 */
public final class ClientCommands {


    private ClientCommands() {}

    public static void register(CommandTable t) {
        t.group("connection");
        var client = t.container("client", -2, "", "", "2.4.0",
                "A container for client connection commands.");
        client.sub("id", 2, "noscript loading stale", 0, 0, 0, "@connection", "5.0.0",
                "Returns the unique client ID of the connection.", Handler.ID);
        client.sub("setname", 3, "noscript loading stale", 0, 0, 0, "@connection", "2.6.9",
                "Sets the connection name.", Handler.SET_NAME);
        client.sub("getname", 2, "noscript loading stale", 0, 0, 0, "@connection", "2.6.9",
                "Returns the name of the connection.", Handler.GET_NAME);
        client.sub("list", -2, "admin noscript loading stale allshards", 0, 0, 0, "@connection", "2.4.0",
                "Lists open connections.", Handler.LIST).gatherBy(LIST_GATHER);
        client.sub("info", 2, "noscript loading stale", 0, 0, 0, "@connection", "6.2.0",
                "Returns information about the connection.", Handler.INFO);
        client.sub("kill", -3, "admin noscript loading stale allshards", 0, 0, 0, "@connection", "2.4.0",
                "Terminates open connections.", Handler.KILL);
        client.sub("setinfo", 4, "noscript loading stale", 0, 0, 0, "@connection", "7.2.0",
                "Sets information specific to the client or connection.", Handler.SET_INFO);
        client.sub("reply", 3, "noscript loading stale", 0, 0, 0, "@connection", "3.2.0",
                "Instructs the server whether to reply to commands.", Handler.REPLY);
        client.sub("no-evict", 3, "admin noscript loading stale", 0, 0, 0, "@connection", "7.0.0",
                "Sets the client eviction mode of the connection.", Handler.NO_EVICT);
        client.sub("no-touch", 3, "noscript loading stale", 0, 0, 0, "@connection", "7.2.0",
                "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.",
                Handler.NO_TOUCH);
        client.sub("pause", -3, "admin noscript loading stale", 0, 0, 0, "@connection", "3.0.0",
                "Suspends commands processing.", Handler.PAUSE);
        client.sub("unpause", 2, "admin noscript loading stale", 0, 0, 0, "@connection", "6.2.0",
                "Resumes processing commands from paused clients.", Handler.UNPAUSE);
        client.sub("unblock", -3, "admin noscript loading stale allshards", 0, 0, 0, "@connection", "5.0.0",
                "Unblocks a client blocked by a blocking command from a different connection.",
                Handler.UNBLOCK);
        client.sub("help", 2, "loading stale", 0, 0, 0, "@connection", "5.0.0",
                "Returns helpful text about the different subcommands.", Handler.HELP);
    }

    /** CLIENT PAUSE timeout [WRITE|ALL]: the timeout is in milliseconds; ALL is the default. */
    static Reply pause(CommandContext ctx, byte[][] argv) {
        long end = Args.timeoutMillis(argv[2], ctx.now());
        boolean all = true;
        if (argv.length == 4) {
            if (Args.is(argv[3], "write")) all = false;
            else if (!Args.is(argv[3], "all")) throw Errors.error(Errors.PAUSE_MODE);
        } else if (argv.length > 4) {
            throw Errors.syntax();
        }
        ctx.server().pause(end == 0 ? ctx.now() : end, all, ctx.now());
        return Reply.OK;
    }

    static Reply unpause(CommandContext ctx, byte[][] argv) {
        ctx.server().unpause();
        return Reply.OK;
    }

    /**
     * CLIENT UNBLOCK id [TIMEOUT|ERROR]: answers a client parked by a blocking command as if it timed out, or
     * with Redis's UNBLOCKED error. Runs with every shard parked, so every client's state can be read here.
     */
    static Reply unblock(CommandContext ctx, byte[][] argv) {
        if (argv.length > 4) throw Errors.error(Errors.subcommandSyntax(Args.text(argv[1]), "CLIENT"));
        boolean error = false;
        if (argv.length == 4) { // the reason is read before the id, as in Redis
            if (Args.is(argv[3], "error")) error = true;
            else if (!Args.is(argv[3], "timeout")) throw Errors.error(Errors.UNBLOCK_REASON);
        }
        long id = Args.parseLong(argv[2]);
        ClientSession target = ctx.server().clients().get(id);
        if (target == null) return Reply.integer(0);
        return Reply.integer(target.unblock(error ? Reply.error(Errors.UNBLOCKED) : null) ? 1 : 0);
    }

    static Reply id(CommandContext ctx, byte[][] argv) {
        return Reply.integer(ctx.client().id());
    }

    static Reply setName(CommandContext ctx, byte[][] argv) {
        String name = Args.text(argv[2]);
        if (!ClientSession.validName(name)) throw Errors.error(Errors.BAD_CLIENT_NAME);
        ctx.client().name(name.isEmpty() ? null : name);
        return Reply.OK;
    }

    static Reply getName(CommandContext ctx, byte[][] argv) {
        return Reply.bulk(ctx.client().name());
    }

    static Reply info(CommandContext ctx, byte[][] argv) {
        return text(describe(ctx.client(), ctx.now()) + "\n");
    }

    static Reply list(CommandContext ctx, byte[][] argv) {
        List<ClientSession> picked = new ArrayList<>();
        if (argv.length == 2) {
            for (ClientSession s : ctx.server().clients()) picked.add(s);
            picked.sort(Comparator.comparingLong(ClientSession::id));
        } else if (argv.length == 4 && Args.is(argv[2], "type")) {
            String type = clientType(argv[3]);
            for (ClientSession s : ctx.server().clients()) {
                if (typeOf(s).equals(type)) picked.add(s);
            }
            picked.sort(Comparator.comparingLong(ClientSession::id));
        } else if (argv.length >= 4 && Args.is(argv[2], "id")) {
            List<Long> ids = new ArrayList<>();
            for (int i = 3; i < argv.length; i++) {
                Long v = Args.parseLongOrNull(argv[i]);
                if (v == null) throw Errors.error(Errors.INVALID_CLIENT_ID);
                ids.add(v);
            }
            for (long id : ids) {
                ClientSession s = ctx.server().clients().get(id);
                if (s != null && !s.isClosed()) picked.add(s);
            }
        } else {
            throw Errors.syntax();
        }
        StringBuilder sb = new StringBuilder();
        for (ClientSession s : picked) {
            if (s.isClosed()) continue;
            sb.append(describe(s, ctx.now())).append('\n');
        }
        return text(sb.toString());
    }

    /** Redis's getClientType: {@code replica} once PSYNC made it one, {@code pubsub} with an active subscription, else {@code normal}. */
    /**
     * CLIENT LIST gathered shard by shard (CommandSpec.Gather): each shard describes the clients whose home it is, on
     * its own thread (their state is confined to it); the reply lists them as {@link #list} does, by id, or in the
     * order of the IDs asked for.
     */
    static final CommandSpec.Gather LIST_GATHER = new CommandSpec.Gather() {
        private static final class Plan {
            String type;
            List<Long> ids;
            final java.util.Map<Long, String> lines = new java.util.HashMap<>();
        }

        @Override
        public Object begin(CommandContext ctx, byte[][] argv) {
            Plan p = new Plan();
            if (argv.length == 2) return p;
            if (argv.length == 4 && Args.is(argv[2], "type")) {
                p.type = clientType(argv[3]);
                return p;
            }
            if (argv.length >= 4 && Args.is(argv[2], "id")) {
                p.ids = new ArrayList<>();
                for (int i = 3; i < argv.length; i++) {
                    Long v = Args.parseLongOrNull(argv[i]);
                    if (v == null) throw Errors.error(Errors.INVALID_CLIENT_ID);
                    p.ids.add(v);
                }
                return p;
            }
            throw Errors.syntax();
        }

        @Override
        public boolean part(CommandContext ctx, Object plan, int shard, int shards) {
            Plan p = (Plan) plan;
            if (p.ids != null) {
                for (long id : p.ids) {
                    ClientSession s = ctx.server().clients().get(id);
                    if (s != null && s.home().id() == shard && !s.isClosed()) p.lines.put(id, describe(s, ctx.now()));
                }
                return true;
            }
            for (ClientSession s : ctx.server().clients()) {
                if (s.home().id() != shard || s.isClosed()) continue;
                if (p.type != null && !typeOf(s).equals(p.type)) continue;
                p.lines.put(s.id(), describe(s, ctx.now()));
            }
            return true;
        }

        @Override
        public Reply reply(Object plan) {
            Plan p = (Plan) plan;
            List<Long> order = p.ids;
            if (order == null) {
                order = new ArrayList<>(p.lines.keySet());
                order.sort(null);
            }
            StringBuilder sb = new StringBuilder();
            for (long id : order) {
                String line = p.lines.get(id);
                if (line != null) sb.append(line).append('\n');
            }
            return text(sb.toString());
        }
    };

    private static String typeOf(ClientSession s) {
        if (s.isReplica()) return "replica";
        return s.inPubSubMode() ? "pubsub" : "normal";
    }

    /** Redis's client types as CLIENT LIST and CLIENT KILL name them. */
    private static String clientType(byte[] arg) {
        String t = Args.lower(arg);
        return switch (t) {
            case "normal", "master", "pubsub" -> t;
            case "replica", "slave" -> "replica";
            default -> throw Errors.error("ERR Unknown client type '" + Args.text(arg) + "'");
        };
    }

    static Reply kill(CommandContext ctx, byte[][] argv) {
        ClientSession me = ctx.client();
        if (argv.length == 3) {
            String addr = Args.text(argv[2]);
            for (ClientSession s : ctx.server().clients()) {
                if (!s.isClosed() && s.connection().remoteAddress().equals(addr)) {
                    kill(s, me);
                    return Reply.OK;
                }
            }
            throw Errors.error(Errors.NO_SUCH_CLIENT);
        }
        long id = 0;
        String type = null;
        String addr = null;
        String laddr = null;
        String user = null;
        boolean skipMe = true;
        long maxAge = 0;
        for (int i = 2; i < argv.length; i += 2) {
            if (i + 1 >= argv.length) throw Errors.syntax();
            byte[] value = argv[i + 1];
            switch (Args.lower(argv[i])) {
                case "id" -> {
                    Long v = Args.parseLongOrNull(value);
                    if (v == null || v < 1) throw Errors.error(Errors.CLIENT_ID_NOT_POSITIVE);
                    id = v;
                }
                case "type" -> type = clientType(value);
                case "addr" -> addr = Args.text(value);
                case "laddr" -> laddr = Args.text(value);
                case "user" -> {
                    user = Args.text(value);
                    if (ctx.server().acl().user(user) == null) throw Errors.error("ERR No such user '" + user + "'");
                }
                case "skipme" -> {
                    if (Args.is(value, "yes")) skipMe = true;
                    else if (Args.is(value, "no")) skipMe = false;
                    else throw Errors.syntax();
                }
                case "maxage" -> maxAge = Args.parseLong(value);
                default -> throw Errors.syntax();
            }
        }
        List<ClientSession> victims = new ArrayList<>();
        for (ClientSession s : ctx.server().clients()) {
            if (s.isClosed()) continue;
            if (id != 0 && s.id() != id) continue;
            if (type != null && !type.equals(typeOf(s))) continue;
            if (addr != null && !s.connection().remoteAddress().equals(addr)) continue;
            if (laddr != null && !s.connection().localAddress().equals(laddr)) continue;
            if (user != null && !user.equals(s.user())) continue;
            if (skipMe && s == me) continue;
            if (maxAge != 0 && ctx.now() / 1000 - s.createdAtSec() < maxAge) continue;
            victims.add(s);
        }
        for (ClientSession s : victims) kill(s, me);
        return Reply.integer(victims.size());
    }

    /**
     * Closes a client. The caller itself is closed only after this command's reply has left (CLIENT KILL
     * runs while every shard is parked, so marking the caller's session here is safe).
     */
    private static void kill(ClientSession victim, ClientSession me) {
        if (victim == me) {
            me.requestClose();
        } else {
            victim.connection().close();
        }
    }

    static Reply setInfo(CommandContext ctx, byte[][] argv) {
        String attr = Args.text(argv[2]);
        String value = Args.text(argv[3]);
        boolean libName = Args.is(argv[2], "lib-name");
        if (!libName && !Args.is(argv[2], "lib-ver")) {
            throw Errors.error("ERR Unrecognized option '" + Errors.printable(argv[2]) + "'");
        }
        if (!ClientSession.validName(value)) {
            throw Errors.error("ERR " + attr + " cannot contain spaces, newlines or special characters.");
        }
        String v = value.isEmpty() ? null : value;
        if (libName) ctx.client().libName(v);
        else ctx.client().libVersion(v);
        return Reply.OK;
    }

    static Reply reply(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        if (Args.is(argv[2], "on")) {
            c.replyMode(ClientSession.ReplyMode.ON);
            c.forceCurrentReply(); // answered even when OFF or a SKIP silenced it, as Redis does
            return Reply.OK;
        } else if (Args.is(argv[2], "off")) {
            c.replyMode(ClientSession.ReplyMode.OFF);
            c.suppressCurrentReply();
            return Reply.OK;
        } else if (Args.is(argv[2], "skip")) {
            if (c.replyMode() != ClientSession.ReplyMode.OFF) c.skipNextReply();
            c.suppressCurrentReply();
            return Reply.OK;
        }
        throw Errors.syntax();
    }

    static Reply noEvict(CommandContext ctx, byte[][] argv) {
        ctx.client().noEvict(onOff(argv[2]));
        return Reply.OK;
    }

    static Reply noTouch(CommandContext ctx, byte[][] argv) {
        ctx.client().noTouch(onOff(argv[2]));
        return Reply.OK;
    }

    private static boolean onOff(byte[] arg) {
        if (Args.is(arg, "on")) return true;
        if (Args.is(arg, "off")) return false;
        throw Errors.syntax();
    }

    static Reply help(CommandContext ctx, byte[][] argv) {
        return Help.reply("CLIENT",
                "GETNAME", "    Return the name of the current connection.",
                "ID", "    Return the ID of the current connection.",
                "INFO", "    Return information about the current client connection.",
                "KILL <ip:port>", "    Kill connection made from <ip:port>.",
                "KILL <option> <value> [<option> <value> [...]]", "    Kill connections. Options are:",
                "    * ADDR <ip:port>", "      Kill connections made from the specified address",
                "    * LADDR <ip:port>", "      Kill connections made to specified local address",
                "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)", "      Kill connections by type.",
                "    * USER <username>", "      Kill connections authenticated by <username>.",
                "    * SKIPME (YES|NO)", "      Skip killing current connection (default: yes).",
                "    * ID <client-id>", "      Kill connections by client id.",
                "    * MAXAGE <maxage>", "      Kill connections older than the specified age.",
                "LIST [options ...]", "    Return information about client connections. Options:",
                "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)", "      Return clients of specified type.",
                "    * ID <client-id> [<client-id> ...]", "      Return clients of specified IDs only.",
                "REPLY (ON|OFF|SKIP)", "    Control the replies sent to the current connection.",
                "SETNAME <name>", "    Assign the name <name> to the current connection.",
                "SETINFO <option> <value>", "    Set client meta attr. Options are:",
                "    * LIB-NAME: the client lib name.", "    * LIB-VER: the client lib version.",
                "NO-EVICT (ON|OFF)", "    Protect current client connection from eviction.",
                "NO-TOUCH (ON|OFF)", "    Will not touch LRU/LFU stats when this mode is on.");
    }

    /**
     * One CLIENT LIST line, in Redis 7's field order, every figure measured: {@code qbuf}/{@code qbuf-free} the
     * decoder's unread input and its unfilled allocation at the end of the last read; {@code argv-mem} the argument
     * bytes of the command running or blocked now; {@code multi}/{@code multi-mem} the queued commands and their
     * argument bytes plus 8 per argument (as Redis 7.0 counts them); {@code rbs} the capacity of the reply buffer
     * being filled now (Tide holds none between reads, so usually 0) and {@code rbp} its peak at a flush in the last
     * five seconds; {@code obl} the reply bytes not yet handed to Netty, {@code oll} the writes queued in Netty and
     * the backlog behind it, {@code omem} their bytes together; {@code tot-mem} the sum of those buffers (query
     * buffer, arguments, queued commands, reply buffer, output), without the session object itself.
     */
    public static String describe(ClientSession s, long nowMs) {
        ClientConnection conn = s.connection();
        StringBuilder sb = new StringBuilder(256);
        sb.append("id=").append(s.id());
        sb.append(" addr=").append(conn.remoteAddress());
        sb.append(" laddr=").append(conn.localAddress());
        int fd = conn.fd();
        if (fd >= 0) sb.append(" fd=").append(fd);
        sb.append(" name=").append(s.name() == null ? "" : s.name());
        sb.append(" age=").append(Math.max(0, nowMs / 1000 - s.createdAtSec()));
        sb.append(" idle=").append(Math.max(0, nowMs / 1000 - s.lastInteractionSec()));
        sb.append(" flags=");
        int flagsAt = sb.length();
        if (s.subscriberOrNull() != null && s.subscriberOrNull().isMonitor()) sb.append('O');
        if (s.isReplica()) sb.append('S');
        if (s.inPubSubMode()) sb.append('P');
        if (s.inMulti()) sb.append('x');
        if (s.isBlocked()) sb.append('b');
        io.tide.pubsub.Tracking.Mode tm = s.trackingMode();
        if (tm != null) sb.append('t');
        if (tm != null && s.trackingRedirectBroken()) sb.append('R');
        if (tm != null && tm.bcast()) sb.append('B');
        if (s.noEvict()) sb.append('e');
        if (s.noTouch()) sb.append('T');
        if (sb.length() == flagsAt) sb.append('N');
        sb.append(" db=").append(s.db());
        io.tide.pubsub.Subscriber sub = s.subscriberOrNull();
        sb.append(" sub=").append(sub == null ? 0 : sub.count(io.tide.pubsub.PubSub.Kind.CHANNEL));
        sb.append(" psub=").append(sub == null ? 0 : sub.count(io.tide.pubsub.PubSub.Kind.PATTERN));
        sb.append(" ssub=").append(sub == null ? 0 : sub.count(io.tide.pubsub.PubSub.Kind.SHARD));
        sb.append(" multi=").append(s.multiCount());
        long qbuf = conn.queryBufferBytes();
        long qfree = conn.queryBufferFree();
        long argvMem = s.argvBytes();
        long multiMem = s.queuedBytes();
        long rbs = conn.replyBufferSize();
        sb.append(" qbuf=").append(qbuf);
        sb.append(" qbuf-free=").append(qfree);
        sb.append(" argv-mem=").append(argvMem);
        sb.append(" multi-mem=").append(multiMem);
        sb.append(" rbs=").append(rbs);
        sb.append(" rbp=").append(conn.replyBufferPeak());
        long obl = conn.replyBufferBytes();
        long total = conn.outputBufferBytes();
        sb.append(" obl=").append(obl);
        sb.append(" oll=").append(conn.pendingWrites());
        sb.append(" omem=").append(total);
        sb.append(" tot-mem=").append(io.tide.command.MemoryGuard.totalMemory(s));
        sb.append(" events=");
        if (conn.reading()) sb.append('r');
        if (total > obl) sb.append('w');
        sb.append(" cmd=").append(s.lastCommand());
        sb.append(" user=").append(s.user()).append(" redir=").append(tm == null ? -1 : tm.redirect());
        sb.append(" resp=").append(s.protocol());
        sb.append(" lib-name=").append(s.libName() == null ? "" : s.libName());
        sb.append(" lib-ver=").append(s.libVersion() == null ? "" : s.libVersion());
        return sb.toString();
    }

    /** Plain text as Redis sends it: a bulk string in RESP2, a verbatim {@code txt} string in RESP3. */
    static Reply text(String s) {
        return new Reply.Verbatim("txt", s.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        ID,
        SET_NAME,
        GET_NAME,
        LIST,
        INFO,
        KILL,
        SET_INFO,
        REPLY,
        NO_EVICT,
        NO_TOUCH,
        PAUSE,
        UNPAUSE,
        UNBLOCK,
        HELP;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case ID -> id(ctx, argv);
                case SET_NAME -> setName(ctx, argv);
                case GET_NAME -> getName(ctx, argv);
                case LIST -> list(ctx, argv);
                case INFO -> info(ctx, argv);
                case KILL -> kill(ctx, argv);
                case SET_INFO -> setInfo(ctx, argv);
                case REPLY -> reply(ctx, argv);
                case NO_EVICT -> noEvict(ctx, argv);
                case NO_TOUCH -> noTouch(ctx, argv);
                case PAUSE -> pause(ctx, argv);
                case UNPAUSE -> unpause(ctx, argv);
                case UNBLOCK -> unblock(ctx, argv);
                case HELP -> help(ctx, argv);
            };
        }
    }
}
