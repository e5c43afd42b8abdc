package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.ClientSession;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.pubsub.Tracking;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Client-side caching: CLIENT TRACKING, CACHING, GETREDIR and TRACKINGINFO, added to the CLIENT container.
 * Thread-safe (stateless); these run on the client's home shard and change its tracking state.
 */
public final class TrackingCommands {

    private TrackingCommands() {}

    public static void register(CommandTable t) {
        CommandSpec client = t.lookup("client");
        client.sub("tracking", -3, "noscript loading stale", 0, 0, 0, "@connection", "6.0.0",
                "Controls server-assisted client-side caching for the connection.", Handler.TRACKING);
        client.sub("caching", 3, "noscript loading stale", 0, 0, 0, "@connection", "6.0.0",
                "Instructs the server whether to track the keys in the next request.", Handler.CACHING);
        client.sub("getredir", 2, "noscript loading stale", 0, 0, 0, "@connection", "6.0.0",
                "Returns the client ID to which the connection's tracking notifications are redirected.",
                Handler.GETREDIR);
        client.sub("trackinginfo", 2, "noscript loading stale", 0, 0, 0, "@connection", "6.2.0",
                "Returns information about server-assisted client-side caching for the connection.",
                Handler.TRACKINGINFO);
    }

    /** Redis's CLIENT TRACKING: options parsed in order, then the checks of clientCommand, same texts. */
    static Reply tracking(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        long redirect = 0;
        boolean bcast = false;
        boolean optin = false;
        boolean optout = false;
        boolean noloop = false;
        List<byte[]> prefixes = new ArrayList<>();
        for (int j = 3; j < argv.length; j++) {
            boolean more = argv.length - 1 - j > 0;
            if (Args.is(argv[j], "redirect") && more) {
                j++;
                if (redirect != 0) throw Errors.error(Errors.TRACKING_ONE_REDIRECT);
                Long id = Args.parseLongOrNull(argv[j]);
                if (id == null) throw Errors.notInteger();
                redirect = id;
                if (!ctx.server().tracking().connected(redirect)) throw Errors.error(Errors.TRACKING_REDIRECT_GONE);
            } else if (Args.is(argv[j], "bcast")) {
                bcast = true;
            } else if (Args.is(argv[j], "optin")) {
                optin = true;
            } else if (Args.is(argv[j], "optout")) {
                optout = true;
            } else if (Args.is(argv[j], "noloop")) {
                noloop = true;
            } else if (Args.is(argv[j], "prefix") && more) {
                j++;
                prefixes.add(argv[j].clone());
            } else {
                throw Errors.syntax();
            }
        }
        Tracking.Mode cur = c.trackingMode();
        if (Args.is(argv[2], "on")) {
            if (!bcast && !prefixes.isEmpty()) throw Errors.error(Errors.TRACKING_PREFIX_NEEDS_BCAST);
            if (cur != null && cur.bcast() != bcast) throw Errors.error(Errors.TRACKING_SWITCH_BCAST);
            if (bcast && (optin || optout)) throw Errors.error(Errors.TRACKING_BCAST_OPT);
            if (optin && optout) throw Errors.error(Errors.TRACKING_OPTIN_AND_OPTOUT);
            if ((optin && cur != null && cur.optout()) || (optout && cur != null && cur.optin())) {
                throw Errors.error(Errors.TRACKING_SWITCH_OPT);
            }
            List<byte[]> all = new ArrayList<>(cur == null ? List.of() : cur.prefixes());
            if (bcast) {
                for (int i = 0; i < prefixes.size(); i++) {
                    byte[] p = prefixes.get(i);
                    for (byte[] q : all) {
                        if (overlap(p, q)) throw overlaps(p, "an existing prefix", q);
                    }
                    for (int k = i + 1; k < prefixes.size(); k++) {
                        if (overlap(p, prefixes.get(k))) throw overlaps(p, "another provided prefix", prefixes.get(k));
                    }
                }
                all.addAll(prefixes);
                if (all.isEmpty()) all.add(new byte[0]);
            }
            if (cur != null) c.trackingOff();
            c.subscriber(ctx.server().pubSub()); // the delivery queue, created on the home thread
            c.trackingOn(ctx.server().tracking(), new Tracking.Mode(redirect, bcast, optin, optout, noloop,
                    List.copyOf(all)));
            return Reply.OK;
        }
        if (Args.is(argv[2], "off")) {
            c.trackingOff();
            return Reply.OK;
        }
        throw Errors.syntax();
    }

    private static RuntimeException overlaps(byte[] p, String what, byte[] q) {
        return Errors.error("ERR Prefix '" + Errors.printable(p) + "' overlaps with " + what + " '"
                + Errors.printable(q) + "'. Prefixes for a single client must not overlap.");
    }

    private static boolean overlap(byte[] a, byte[] b) {
        int n = Math.min(a.length, b.length);
        return Arrays.equals(a, 0, n, b, 0, n);
    }

    static Reply caching(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        Tracking.Mode m = c.trackingMode();
        if (m == null || !(m.optin() || m.optout())) throw Errors.error(Errors.TRACKING_CACHING_MODE);
        if (Args.is(argv[2], "yes")) {
            if (!m.optin()) throw Errors.error(Errors.TRACKING_CACHING_YES);
            c.caching(1);
        } else if (Args.is(argv[2], "no")) {
            if (!m.optout()) throw Errors.error(Errors.TRACKING_CACHING_NO);
            c.caching(-1);
        } else {
            throw Errors.syntax();
        }
        return Reply.OK;
    }

    static Reply getredir(CommandContext ctx, byte[][] argv) {
        Tracking.Mode m = ctx.client().trackingMode();
        return Reply.integer(m == null ? -1 : m.redirect());
    }

    static Reply trackinginfo(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        Tracking.Mode m = c.trackingMode();
        List<Reply> flags = new ArrayList<>();
        if (m == null) {
            flags.add(Reply.bulk("off"));
        } else {
            flags.add(Reply.bulk("on"));
            if (m.bcast()) flags.add(Reply.bulk("bcast"));
            if (m.optin()) {
                flags.add(Reply.bulk("optin"));
                if (c.caching() == 1) flags.add(Reply.bulk("caching-yes"));
            }
            if (m.optout()) {
                flags.add(Reply.bulk("optout"));
                if (c.caching() == -1) flags.add(Reply.bulk("caching-no"));
            }
            if (m.noloop()) flags.add(Reply.bulk("noloop"));
            if (ctx.server().tracking().redirectBroken(c.id())) {
                flags.add(Reply.bulk("broken_redirect"));
            }
        }
        List<Reply> prefixes = new ArrayList<>();
        if (m != null && m.bcast()) {
            for (byte[] p : m.prefixes()) prefixes.add(Reply.bulk(p));
        }
        return Reply.map(Reply.bulk("flags"), new Reply.SetReply(flags.toArray(new Reply[0])),
                Reply.bulk("redirect"), Reply.integer(m == null ? -1 : m.redirect()),
                Reply.bulk("prefixes"), Reply.array(prefixes));
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        TRACKING,
        CACHING,
        GETREDIR,
        TRACKINGINFO;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case TRACKING -> tracking(ctx, argv);
                case CACHING -> caching(ctx, argv);
                case GETREDIR -> getredir(ctx, argv);
                case TRACKINGINFO -> trackinginfo(ctx, argv);
            };
        }
    }
}
