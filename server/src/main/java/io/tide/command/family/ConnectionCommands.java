package io.tide.command.family;

import io.tide.acl.AclLog;
import io.tide.command.Args;
import io.tide.command.ClientSession;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import java.util.ArrayList;
import java.util.List;

/**
 * Connection commands: PING, ECHO, QUIT, RESET, AUTH, HELLO, SELECT. Thread-safe (stateless); they
 * run on the client's home shard and may change its session.
 */
public final class ConnectionCommands {

    /**
     * The Redis version whose behaviour Tide follows, reported as HELLO's version, INFO's redis_version and LOLWUT's
     * line: 7.0.15, the redis-server every VsRedis test compares replies with (error texts, reply shapes, COMMAND
     * flags), and whose RDB version (10) Tide writes. The later commands Tide also has (HEXPIRE, HGETEX, ZRANK
     * WITHSCORE, ...) do not raise it: a client that gates on the version expects all of that version's behaviour.
     * The cost: Jedis's client-side caching asks for server "redis" at 7.4 or later, so it refuses Tide. Tide's own
     * version is INFO's tide_version.
     */
    public static final String REDIS_COMPAT_VERSION = "7.0.15";

    private ConnectionCommands() {}

    public static void register(CommandTable t) {
        t.group("connection");
        t.add("ping", -1, "fast", 0, 0, 0, "@connection", "1.0.0",
                "Returns the server's liveliness response.", Handler.PING);
        t.add("echo", 2, "loading stale fast", 0, 0, 0, "@connection", "1.0.0",
                "Returns the given string.", Handler.ECHO);
        t.add("quit", -1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "@connection", "1.0.0",
                "Closes the connection.", Handler.QUIT);
        t.add("reset", 1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "@connection", "6.2.0",
                "Resets the connection.", Handler.RESET);
        t.add("auth", -2, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "@connection", "1.0.0",
                "Authenticates the connection.", Handler.AUTH);
        t.add("hello", -1, "noscript loading stale fast no_auth allow_busy", 0, 0, 0, "@connection", "6.0.0",
                "Handshakes with the Redis server.", Handler.HELLO);
        t.add("select", 2, "loading stale fast", 0, 0, 0, "@connection", "1.0.0",
                "Changes the selected database.", Handler.SELECT);
    }

    static Reply ping(CommandContext ctx, byte[][] argv) {
        if (argv.length > 2) throw Errors.error(Errors.wrongArity("ping"));
        if (ctx.client().protocol() == 2 && ctx.client().inPubSubMode()) {
            return Reply.array(Reply.bulk("pong"), argv.length == 1 ? Reply.bulk("") : Reply.bulk(argv[1]));
        }
        return argv.length == 1 ? Reply.PONG : Reply.bulk(argv[1]);
    }

    static Reply echo(CommandContext ctx, byte[][] argv) {
        return Reply.bulk(argv[1]);
    }

    static Reply quit(CommandContext ctx, byte[][] argv) {
        ctx.client().requestClose();
        return Reply.OK;
    }

    static Reply reset(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        if (c.subscriberOrNull() != null) c.subscriberOrNull().unsubscribeAll();
        c.trackingOff();
        if (c.inMulti()) c.endMulti();
        c.unwatchFromHome();
        c.selectDb(0);
        c.protocol(2);
        c.name(null);
        c.replyMode(ClientSession.ReplyMode.ON);
        c.noEvict(false);
        c.noTouch(false);
        c.user("default"); // Redis's clientSetDefaultAuth
        c.authenticated(!ctx.server().authRequired());
        return Reply.simple("RESET");
    }

    static Reply auth(CommandContext ctx, byte[][] argv) {
        if (argv.length > 3) throw Errors.syntax();
        if (argv.length == 2) {
            if (ctx.server().acl().defaultUser().nopass()) throw Errors.error(Errors.AUTH_NO_PASSWORD);
            return authenticate(ctx, "default", Args.text(argv[1]));
        }
        return authenticate(ctx, Args.text(argv[1]), Args.text(argv[2]));
    }

    /** Redis's ACLAuthenticateUser: an existing user that is on, with one of its passwords (or nopass). */
    private static Reply authenticate(CommandContext ctx, String user, String password) {
        if (ctx.server().acl().authenticate(user, password) == null) {
            ClientSession c = ctx.client();
            ctx.server().aclDenied(c, AclLog.Reason.AUTH, c != null && c.inMulti() ? AclLog.Context.MULTI
                    : AclLog.Context.TOPLEVEL, "AUTH", user);
            throw Errors.error(Errors.WRONGPASS);
        }
        ctx.client().user(user);
        ctx.client().authenticated(true);
        return Reply.OK;
    }

    static Reply hello(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        int proto = c.protocol();
        int i = 1;
        if (argv.length > 1) {
            Long v = Args.parseLongOrNull(argv[1]);
            if (v == null) throw Errors.error(Errors.BAD_PROTOCOL_VERSION);
            if (v < 2 || v > 3) throw Errors.error(Errors.PROTOCOL_VERSION);
            proto = v.intValue();
            i = 2;
        }
        String user = null;
        String pass = null;
        String setName = null;
        for (; i < argv.length; i++) {
            boolean more = i + 1 < argv.length;
            if (Args.is(argv[i], "auth") && i + 2 < argv.length) {
                user = Args.text(argv[i + 1]);
                pass = Args.text(argv[i + 2]);
                i += 2;
            } else if (Args.is(argv[i], "setname") && more) {
                setName = Args.text(argv[i + 1]);
                if (!ClientSession.validName(setName)) {
                    throw Errors.error(Errors.BAD_CLIENT_NAME);
                }
                i++;
            } else {
                throw Errors.error("ERR Syntax error in HELLO option '" + Errors.printable(argv[i]) + "'");
            }
        }
        if (user != null) {
            authenticate(ctx, user, pass);
        }
        if (!c.authenticated()) {
            throw Errors.error(Errors.HELLO_NOAUTH);
        }
        if (setName != null) c.name(setName.isEmpty() ? null : setName);
        c.protocol(proto);
        List<Reply> m = new ArrayList<>();
        m.add(Reply.bulk("server"));
        m.add(Reply.bulk("redis")); // clients check it, as with Dragonfly and Garnet; INFO says tide_version
        m.add(Reply.bulk("version"));
        m.add(Reply.bulk(REDIS_COMPAT_VERSION));
        m.add(Reply.bulk("proto"));
        m.add(Reply.integer(proto));
        m.add(Reply.bulk("id"));
        m.add(Reply.integer(c.id()));
        m.add(Reply.bulk("mode"));
        m.add(Reply.bulk("standalone"));
        m.add(Reply.bulk("role"));
        m.add(Reply.bulk("master"));
        m.add(Reply.bulk("modules"));
        m.add(Reply.EMPTY_ARRAY);
        return Reply.map(m);
    }

    static Reply select(CommandContext ctx, byte[][] argv) {
        int v = Args.parseInt(argv[1], null);
        int dbs = ctx.server().config().getInt("databases");
        if (v < 0 || v >= dbs) throw Errors.error(Errors.DB_INDEX_OUT_OF_RANGE);
        ctx.client().selectDb(v);
        return Reply.OK;
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        PING,
        ECHO,
        QUIT,
        RESET,
        AUTH,
        HELLO,
        SELECT;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case PING -> ping(ctx, argv);
                case ECHO -> echo(ctx, argv);
                case QUIT -> quit(ctx, argv);
                case RESET -> reset(ctx, argv);
                case AUTH -> auth(ctx, argv);
                case HELLO -> hello(ctx, argv);
                case SELECT -> select(ctx, argv);
            };
        }
    }
}
