package io.tide.command.family;

import io.tide.acl.Acl;
import io.tide.acl.AclLog;
import io.tide.acl.AclUser;
import io.tide.command.Args;
import io.tide.command.ClientSession;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;

/**
 * ACL as Redis 7.0 has it: SETUSER, GETUSER, DELUSER, LIST, USERS, WHOAMI, CAT, GENPASS, DRYRUN, LOG, LOAD, SAVE
 * and HELP over {@link Acl} and {@link AclLog}. Thread-safe: {@link Acl} serialises its changes.
 */
public final class AclCommands {

    private static final SecureRandom RANDOM = new SecureRandom();

    private AclCommands() {}

    public static void register(CommandTable t) {
        t.group("server");
        var acl = t.container("acl", -2, "", "@slow", "6.0.0", "A container for Access List Control commands.");
        String admin = "admin noscript loading stale";
        String adminCats = "@admin @slow @dangerous";
        acl.sub("cat", -2, "noscript loading stale", 0, 0, 0, "@slow", "6.0.0",
                "Lists the ACL categories, or the commands inside a category.", Handler.CAT);
        acl.sub("deluser", -3, admin, 0, 0, 0, adminCats, "6.0.0",
                "Deletes ACL users, and terminates their connections.", Handler.DEL_USER);
        acl.sub("dryrun", -4, admin, 0, 0, 0, adminCats, "7.0.0",
                "Simulates the execution of a command by a user, without executing the command.", Handler.DRY_RUN);
        acl.sub("genpass", -2, "noscript loading stale", 0, 0, 0, "@slow", "6.0.0",
                "Generates a pseudorandom, secure password that can be used to identify ACL users.",
                Handler.GEN_PASS);
        acl.sub("getuser", 3, admin, 0, 0, 0, adminCats, "6.0.0", "Lists the ACL rules of a user.",
                Handler.GET_USER);
        acl.sub("list", 2, admin, 0, 0, 0, adminCats, "6.0.0", "Dumps the effective rules in ACL file format.",
                Handler.LIST);
        acl.sub("setuser", -3, admin, 0, 0, 0, adminCats, "6.0.0", "Creates and modifies an ACL user and its rules.",
                Handler.SET_USER);
        acl.sub("users", 2, admin, 0, 0, 0, adminCats, "6.0.0", "Lists all ACL users.", Handler.USERS);
        acl.sub("log", -2, admin, 0, 0, 0, adminCats, "6.0.0",
                "Lists recent security events generated due to ACL rules.", Handler.LOG);
        acl.sub("load", 2, admin, 0, 0, 0, adminCats, "6.0.0", "Reloads the rules from the configured ACL file.",
                Handler.LOAD);
        acl.sub("save", 2, admin, 0, 0, 0, adminCats, "6.0.0", "Saves the effective ACL rules in the configured ACL "
                + "file.", Handler.SAVE);
        acl.sub("whoami", 2, "noscript loading stale", 0, 0, 0, "@slow", "6.0.0",
                "Returns the authenticated username of the current connection.", Handler.WHOAMI);
        acl.sub("help", 2, "loading stale", 0, 0, 0, "@slow", "6.0.0",
                "Returns helpful text about the different subcommands.", Handler.ACL_HELP);
    }

    private static Acl acl(CommandContext ctx) {
        return ctx.server().acl();
    }

    static Reply setUser(CommandContext ctx, byte[][] argv) {
        String name = Args.text(argv[2]);
        List<String> rules = new ArrayList<>();
        for (int i = 3; i < argv.length; i++) rules.add(new String(argv[i], StandardCharsets.UTF_8));
        try {
            acl(ctx).setUser(name, rules);
        } catch (Acl.RuleException e) {
            throw Errors.error("ERR " + e.getMessage());
        }
        return Reply.OK;
    }

    static Reply getUser(CommandContext ctx, byte[][] argv) {
        AclUser u = acl(ctx).user(Args.text(argv[2]));
        if (u == null) return Reply.NULL;
        Acl.UserView v = acl(ctx).view(u);
        List<Reply> flags = new ArrayList<>();
        for (String f : v.flags()) flags.add(Reply.bulk(f));
        List<Reply> passwords = new ArrayList<>();
        for (String p : v.passwords()) passwords.add(Reply.bulk(p));
        List<String> root = v.selectors().get(0);
        List<Reply> selectors = new ArrayList<>();
        for (List<String> s : v.selectors().subList(1, v.selectors().size())) {
            selectors.add(Reply.map(Reply.bulk("commands"), Reply.bulk(s.get(0)), Reply.bulk("keys"),
                    Reply.bulk(s.get(1)), Reply.bulk("channels"), Reply.bulk(s.get(2))));
        }
        return Reply.map(Reply.bulk("flags"), new Reply.SetReply(flags.toArray(Reply[]::new)), Reply.bulk("passwords"), Reply.array(passwords),
                Reply.bulk("commands"), Reply.bulk(root.get(0)), Reply.bulk("keys"), Reply.bulk(root.get(1)),
                Reply.bulk("channels"), Reply.bulk(root.get(2)), Reply.bulk("selectors"), Reply.array(selectors));
    }

    /** Deletes the users and closes the connections authenticated as one of them, as Redis does. */
    static Reply delUser(CommandContext ctx, byte[][] argv) {
        for (int i = 2; i < argv.length; i++) {
            if (Args.text(argv[i]).equals("default")) throw Errors.error("ERR The 'default' user cannot be removed");
        }
        int n = 0;
        for (int i = 2; i < argv.length; i++) {
            String name = Args.text(argv[i]);
            if (!acl(ctx).delUser(name)) continue;
            n++;
            closeConnectionsOf(ctx, List.of(name));
        }
        return Reply.integer(n);
    }

    /** ACL LOG [count | RESET]: the newest refusals first, with Redis 7.0's fields. */
    static Reply log(CommandContext ctx, byte[][] argv) {
        if (argv.length > 3) throw Errors.error(Errors.subcommandSyntax(Args.text(argv[1]), "ACL"));
        long count = 10;
        if (argv.length == 3) {
            if (Args.is(argv[2], "reset")) {
                ctx.server().aclLog().reset();
                return Reply.OK;
            }
            Long n = Args.parseLongOrNull(argv[2]);
            if (n == null) throw Errors.error(Errors.NOT_INTEGER);
            count = n;
        }
        long now = System.currentTimeMillis();
        List<Reply> out = new ArrayList<>();
        for (AclLog.Entry e : ctx.server().aclLog().latest(count)) {
            out.add(Reply.map(Reply.bulk("count"), Reply.integer(e.count()),
                    Reply.bulk("reason"), Reply.bulk(e.reason().text),
                    Reply.bulk("context"), Reply.bulk(e.context().text),
                    Reply.bulk("object"), Reply.bulk(e.object()),
                    Reply.bulk("username"), Reply.bulk(e.username()),
                    Reply.bulk("age-seconds"), new Reply.Double((now - e.updatedMs()) / 1000.0),
                    Reply.bulk("client-info"), Reply.bulk(e.clientInfo())));
        }
        return Reply.array(out);
    }

    static Reply load(CommandContext ctx, byte[][] argv) {
        if (ctx.server().aclFile() == null) throw Errors.error(Errors.NO_ACL_FILE);
        List<String> changed;
        try {
            changed = ctx.server().loadAclFile().changed();
        } catch (Acl.RuleException e) {
            throw Errors.error("ERR " + e.getMessage());
        }
        closeConnectionsOf(ctx, changed);
        return Reply.OK;
    }

    static Reply save(CommandContext ctx, byte[][] argv) {
        java.nio.file.Path file = ctx.server().aclFile();
        if (file == null) throw Errors.error(Errors.NO_ACL_FILE);
        try {
            io.tide.util.AtomicFiles.write(file, String.join("\n", acl(ctx).describeAll()) + "\n");
        } catch (java.io.IOException e) {
            org.slf4j.LoggerFactory.getLogger("tide").warn("Opening temp ACL file for ACL SAVE: {}", e.getMessage());
            throw Errors.error("ERR There was an error trying to save the ACLs. Please check the server logs for more "
                    + "information");
        }
        return Reply.OK;
    }

    /** Closes the connections authenticated as one of {@code names} (the caller's own after its reply). */
    private static void closeConnectionsOf(CommandContext ctx, List<String> names) {
        if (names.isEmpty()) return;
        for (ClientSession c : ctx.server().clients()) {
            if (c.isClosed() || !names.contains(c.user())) continue;
            if (c == ctx.client()) c.requestClose();
            else c.connection().close();
        }
    }

    static Reply list(CommandContext ctx, byte[][] argv) {
        List<Reply> out = new ArrayList<>();
        for (AclUser u : acl(ctx).users().values()) out.add(Reply.bulk(acl(ctx).describe(u)));
        return Reply.array(out);
    }

    static Reply users(CommandContext ctx, byte[][] argv) {
        List<Reply> out = new ArrayList<>();
        for (String name : acl(ctx).users().keySet()) out.add(Reply.bulk(name));
        return Reply.array(out);
    }

    static Reply whoami(CommandContext ctx, byte[][] argv) {
        return Reply.bulk(ctx.client() == null ? "default" : ctx.client().user());
    }

    static Reply cat(CommandContext ctx, byte[][] argv) {
        if (argv.length > 3) throw Errors.error(Errors.subcommandSyntax(Args.text(argv[1]), "ACL"));
        List<Reply> out = new ArrayList<>();
        if (argv.length == 2) {
            for (String c : Acl.categories()) out.add(Reply.bulk(c));
            return Reply.array(out);
        }
        List<String> names = acl(ctx).commandsIn(Args.text(argv[2]));
        if (names == null) throw Errors.error("ERR Unknown category '" + Args.text(argv[2]) + "'");
        for (String n : names) out.add(Reply.bulk(n));
        return Reply.array(out);
    }

    static Reply genPass(CommandContext ctx, byte[][] argv) {
        if (argv.length > 3) throw Errors.error(Errors.subcommandSyntax(Args.text(argv[1]), "ACL"));
        long bits = 256;
        if (argv.length == 3) {
            long v = Args.parseLong(argv[2]);
            if (v <= 0 || v > 4096) {
                throw Errors.error("ERR ACL GENPASS argument must be the number of bits for the output password, a "
                        + "positive number up to 4096");
            }
            bits = v;
        }
        int chars = (int) ((bits + 3) / 4);
        byte[] random = new byte[(chars + 1) / 2];
        RANDOM.nextBytes(random);
        return Reply.bulk(HexFormat.of().formatHex(random).substring(0, chars));
    }

    /** ACL DRYRUN user command [arg ...]: "OK", or the reason the user may not run it, without running it. */
    static Reply dryRun(CommandContext ctx, byte[][] argv) {
        String name = Args.text(argv[2]);
        AclUser u = acl(ctx).user(name);
        if (u == null) throw Errors.error("ERR User '" + name + "' not found");
        byte[][] cmd = Arrays.copyOfRange(argv, 3, argv.length);
        CommandSpec spec = ctx.server().table().lookup(cmd[0]);
        if (spec != null && spec.isContainer() && cmd.length >= 2) spec = spec.subcommands().get(Args.lower(cmd[1]));
        else if (spec != null && spec.isContainer() && spec.handler() == null) spec = null;
        if (spec == null) throw Errors.error("ERR Command '" + Args.text(cmd[0]) + "' not found");
        if (!spec.arityOk(cmd.length)) throw Errors.error(Errors.wrongArity(spec.fullName()));
        Acl.Result r = acl(ctx).check(u, spec, cmd, CommandSpec::keyRefs);
        return switch (r.denial()) {
            case NONE -> Reply.OK;
            case KEY -> Reply.bulk("This user has no permissions to access the '"
                    + new String(r.subject(), StandardCharsets.UTF_8) + "' key");
            case CHANNEL -> Reply.bulk("This user has no permissions to access the '"
                    + new String(r.subject(), StandardCharsets.UTF_8) + "' channel");
            default -> Reply.bulk("This user has no permissions to run the '" + spec.fullName() + "' command");
        };
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        CAT,
        DEL_USER,
        DRY_RUN,
        GEN_PASS,
        GET_USER,
        LIST,
        SET_USER,
        USERS,
        LOG,
        LOAD,
        SAVE,
        WHOAMI,
        ACL_HELP;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case CAT -> cat(ctx, argv);
                case DEL_USER -> delUser(ctx, argv);
                case DRY_RUN -> dryRun(ctx, argv);
                case GEN_PASS -> genPass(ctx, argv);
                case GET_USER -> getUser(ctx, argv);
                case LIST -> list(ctx, argv);
                case SET_USER -> setUser(ctx, argv);
                case USERS -> users(ctx, argv);
                case LOG -> log(ctx, argv);
                case LOAD -> load(ctx, argv);
                case SAVE -> save(ctx, argv);
                case WHOAMI -> whoami(ctx, argv);
                case ACL_HELP -> Help.reply("ACL",
                        "CAT [<category>]",
                        "    List all commands that belong to <category>, or all command categories",
                        "    when no category is specified.",
                        "DELUSER <username> [<username> ...]",
                        "    Delete a list of users.",
                        "DRYRUN <username> <command> [<arg> ...]",
                        "    Returns whether the user can execute the given command without executing the command.",
                        "GETUSER <username>",
                        "    Get the user's details.",
                        "GENPASS [<bits>]",
                        "    Generate a secure 256-bit user password. The optional `bits` argument can",
                        "    be used to specify a different size.",
                        "LIST",
                        "    Show users details in config file format.",
                        "LOAD",
                        "    Reload users from the ACL file.",
                        "LOG [<count> | RESET]",
                        "    Show the ACL log entries.",
                        "SAVE",
                        "    Save the current config to the ACL file.",
                        "SETUSER <username> <attribute> [<attribute> ...]",
                        "    Create or modify a user with the specified attributes.",
                        "USERS",
                        "    List all the registered usernames.",
                        "WHOAMI",
                        "    Return the current connection username.");
            };
        }
    }
}
