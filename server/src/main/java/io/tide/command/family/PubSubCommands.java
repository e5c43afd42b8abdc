package io.tide.command.family;

import io.tide.command.ClientSession;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.pubsub.PubSub;
import io.tide.pubsub.Subscriber;
import java.util.List;

/**
 * Pub/sub commands: SUBSCRIBE, UNSUBSCRIBE, PSUBSCRIBE, PUNSUBSCRIBE, SSUBSCRIBE, SUNSUBSCRIBE, PUBLISH,
 * SPUBLISH, PUBSUB and MONITOR. Thread-safe (stateless). The (un)subscribe commands run on the client's home shard
 * (they name no routing keys) and change its {@link Subscriber}; publishing reads the server-wide
 * {@link PubSub} registry from whichever shard runs it.
 */
public final class PubSubCommands {

    private static final byte[][] NO_KEYS = new byte[0][];
    private static final Reply SUBSCRIBE = Reply.bulk("subscribe");
    private static final Reply UNSUBSCRIBE = Reply.bulk("unsubscribe");
    private static final Reply PSUBSCRIBE = Reply.bulk("psubscribe");
    private static final Reply PUNSUBSCRIBE = Reply.bulk("punsubscribe");
    private static final Reply SSUBSCRIBE = Reply.bulk("ssubscribe");
    private static final Reply SUNSUBSCRIBE = Reply.bulk("sunsubscribe");

    private PubSubCommands() {}

    public static void register(CommandTable t) {
        t.group("pubsub");
        t.add("subscribe", -2, "pubsub noscript loading stale", 0, 0, 0, "", "2.0.0",
                "Listens for messages published to channels.", Handler.SUBSCRIBE);
        t.add("unsubscribe", -1, "pubsub noscript loading stale", 0, 0, 0, "", "2.0.0",
                "Stops listening to messages posted to channels.", Handler.UNSUBSCRIBE);
        t.add("psubscribe", -2, "pubsub noscript loading stale", 0, 0, 0, "", "2.0.0",
                "Listens for messages published to channels that match one or more patterns.",
                Handler.PSUBSCRIBE);
        t.add("punsubscribe", -1, "pubsub noscript loading stale", 0, 0, 0, "", "2.0.0",
                "Stops listening to messages published to channels that match one or more patterns.",
                Handler.PUNSUBSCRIBE);
        // Shard channels are keys in Redis's key specs, but subscribing changes the client's own state, so
        // these run on its home shard: the finder names no routing keys.
        t.add("ssubscribe", -2, "pubsub noscript loading stale", 1, -1, 1, "", "7.0.0",
                "Listens for messages published to shard channels.", Handler.SSUBSCRIBE)
                .routedBy(argv -> NO_KEYS);
        t.add("sunsubscribe", -1, "pubsub noscript loading stale", 1, -1, 1, "", "7.0.0",
                "Stops listening to messages posted to shard channels.", Handler.SUNSUBSCRIBE)
                .routedBy(argv -> NO_KEYS);
        t.add("publish", 3, "pubsub loading stale fast may_replicate", 0, 0, 0, "", "2.0.0",
                "Posts a message to a channel.", Handler.PUBLISH);
        t.add("spublish", 3, "pubsub loading stale fast may_replicate", 1, 1, 1, "", "7.0.0",
                "Post a message to a shard channel", Handler.SPUBLISH);
        t.group("server");
        t.add("monitor", 1, "admin noscript loading stale", 0, 0, 0, "", "1.0.0",
                "Listens for all requests received by the server in real-time.", Handler.MONITOR);
        t.group("pubsub");
        CommandSpec pubsub = t.container("pubsub", -2, "", "", "2.8.0", "A container for Pub/Sub commands.");
        pubsub.sub("channels", -2, "pubsub loading stale", 0, 0, 0, "", "2.8.0",
                "Returns the active channels.", Handler.CHANNELS);
        pubsub.sub("numsub", -2, "pubsub loading stale", 0, 0, 0, "", "2.8.0",
                "Returns a count of subscribers to channels.", Handler.NUMSUB);
        pubsub.sub("numpat", 2, "pubsub loading stale", 0, 0, 0, "", "2.8.0",
                "Returns a count of unique pattern subscriptions.", Handler.NUMPAT);
        pubsub.sub("shardchannels", -2, "pubsub loading stale", 0, 0, 0, "", "7.0.0",
                "Returns the active shard channels.", Handler.SHARDCHANNELS);
        pubsub.sub("shardnumsub", -2, "pubsub loading stale", 0, 0, 0, "", "7.0.0",
                "Returns the count of subscribers of shard channels.", Handler.SHARDNUMSUB);
        pubsub.sub("help", 2, "loading stale", 0, 0, 0, "", "6.2.0",
                "Returns helpful text about the different subcommands.", Handler.HELP);
    }

    // ---------------------------------------------------------------- subscribing

    static Reply subscribe(CommandContext ctx, byte[][] argv) {
        return subscribeAll(ctx, argv, PubSub.Kind.CHANNEL, SUBSCRIBE);
    }

    static Reply psubscribe(CommandContext ctx, byte[][] argv) {
        return subscribeAll(ctx, argv, PubSub.Kind.PATTERN, PSUBSCRIBE);
    }

    static Reply ssubscribe(CommandContext ctx, byte[][] argv) {
        return subscribeAll(ctx, argv, PubSub.Kind.SHARD, SSUBSCRIBE);
    }

    static Reply unsubscribe(CommandContext ctx, byte[][] argv) {
        return unsubscribeAll(ctx, argv, PubSub.Kind.CHANNEL, UNSUBSCRIBE);
    }

    static Reply punsubscribe(CommandContext ctx, byte[][] argv) {
        return unsubscribeAll(ctx, argv, PubSub.Kind.PATTERN, PUNSUBSCRIBE);
    }

    static Reply sunsubscribe(CommandContext ctx, byte[][] argv) {
        return unsubscribeAll(ctx, argv, PubSub.Kind.SHARD, SUNSUBSCRIBE);
    }

    private static Reply subscribeAll(CommandContext ctx, byte[][] argv, PubSub.Kind kind, Reply verb) {
        ClientSession c = ctx.client();
        Subscriber s = c.subscriber(ctx.server().pubSub());
        Reply[] out = new Reply[argv.length - 1];
        for (int i = 1; i < argv.length; i++) {
            s.subscribe(kind, argv[i]);
            out[i - 1] = confirmation(verb, Reply.bulk(argv[i]), count(s, kind));
        }
        return several(ctx, out);
    }

    private static Reply unsubscribeAll(CommandContext ctx, byte[][] argv, PubSub.Kind kind, Reply verb) {
        ClientSession c = ctx.client();
        Subscriber s = c.subscriberOrNull();
        if (argv.length == 1) {
            List<byte[]> names = s == null ? List.of() : s.names(kind);
            if (names.isEmpty()) return confirmation(verb, Reply.NULL, s == null ? 0 : count(s, kind));
            Reply[] out = new Reply[names.size()];
            for (int i = 0; i < out.length; i++) {
                s.unsubscribe(kind, names.get(i));
                out[i] = confirmation(verb, Reply.bulk(names.get(i)), count(s, kind));
            }
            return several(ctx, out);
        }
        Reply[] out = new Reply[argv.length - 1];
        for (int i = 1; i < argv.length; i++) {
            if (s != null) s.unsubscribe(kind, argv[i]);
            out[i - 1] = confirmation(verb, Reply.bulk(argv[i]), s == null ? 0 : count(s, kind));
        }
        return several(ctx, out);
    }

    /** SUBSCRIBE and PSUBSCRIBE count channels plus patterns; the shard commands count shard channels. */
    private static int count(Subscriber s, PubSub.Kind kind) {
        return kind == PubSub.Kind.SHARD ? s.count(PubSub.Kind.SHARD) : s.channelsAndPatterns();
    }

    /** A confirmation: a push frame in RESP3, an array in RESP2. */
    private static Reply confirmation(Reply verb, Reply name, int count) {
        return new Reply.Push(new Reply[] {verb, name, Reply.integer(count)});
    }

    /**
     * One frame per channel: all but the last go out now, in order; the last is the command's reply. Inside
     * EXEC (where Redis writes the frames unframed into EXEC's array) they come back as one array.
     */
    private static Reply several(CommandContext ctx, Reply[] frames) {
        if (ctx.nested()) return frames.length == 1 ? frames[0] : Reply.array(frames);
        for (int i = 0; i < frames.length - 1; i++) ctx.client().send(frames[i]);
        return frames[frames.length - 1];
    }

    // ---------------------------------------------------------------- publishing

    static Reply publish(CommandContext ctx, byte[][] argv) {
        int receivers = ctx.server().pubSub().publish(argv[1], argv[2]);
        if (receivers == 0) ctx.keepsNoArguments(); // no subscriber queued the message (decision 0028)
        return Reply.integer(receivers);
    }

    static Reply spublish(CommandContext ctx, byte[][] argv) {
        return Reply.integer(ctx.server().pubSub().spublish(argv[1], argv[2]));
    }

    /** MONITOR: from now on the client receives a line per command run by anyone; a second MONITOR is silent. */
    static Reply monitor(CommandContext ctx, byte[][] argv) {
        // Inside EXEC, as Redis (a transaction expects one reply per command); it could also run off the home shard.
        if (ctx.nested()) throw Errors.error(Errors.MONITOR_DENY_BLOCKING);
        ClientSession c = ctx.client();
        Subscriber s = c.subscriber(ctx.server().pubSub());
        if (s.isMonitor()) {
            c.suppressCurrentReply();
            return Reply.OK;
        }
        ctx.server().monitor().add(s);
        return Reply.OK;
    }

    // ---------------------------------------------------------------- PUBSUB

    static Reply channels(CommandContext ctx, byte[][] argv) {
        return active(ctx, argv, PubSub.Kind.CHANNEL, "channels");
    }

    static Reply shardchannels(CommandContext ctx, byte[][] argv) {
        return active(ctx, argv, PubSub.Kind.SHARD, "shardchannels");
    }

    private static Reply active(CommandContext ctx, byte[][] argv, PubSub.Kind kind, String name) {
        if (argv.length > 3) throw syntax(argv[1]);
        return Reply.bulkArray(ctx.server().pubSub().active(kind, argv.length == 3 ? argv[2] : null));
    }

    static Reply numsub(CommandContext ctx, byte[][] argv) {
        return counts(ctx, argv, PubSub.Kind.CHANNEL);
    }

    static Reply shardnumsub(CommandContext ctx, byte[][] argv) {
        return counts(ctx, argv, PubSub.Kind.SHARD);
    }

    private static Reply counts(CommandContext ctx, byte[][] argv, PubSub.Kind kind) {
        Reply[] out = new Reply[(argv.length - 2) * 2];
        for (int i = 2; i < argv.length; i++) {
            out[(i - 2) * 2] = Reply.bulk(argv[i]);
            out[(i - 2) * 2 + 1] = Reply.integer(ctx.server().pubSub().count(kind, argv[i]));
        }
        return Reply.array(out);
    }

    static Reply numpat(CommandContext ctx, byte[][] argv) {
        return Reply.integer(ctx.server().pubSub().size(PubSub.Kind.PATTERN));
    }

    static Reply help(CommandContext ctx, byte[][] argv) {
        return Help.reply("PUBSUB",
                "CHANNELS [<pattern>]",
                "    Return the currently active channels matching a <pattern> (default: '*').",
                "NUMPAT",
                "    Return number of subscriptions to patterns.",
                "NUMSUB [<channel> ...]",
                "    Return the number of subscribers for the specified channels, excluding",
                "    pattern subscriptions(default: no channels).",
                "SHARDCHANNELS [<pattern>]",
                "    Return the currently active shard level channels matching a <pattern> (default: '*').",
                "SHARDNUMSUB [<shardchannel> ...]",
                "    Return the number of subscribers for the specified shard level channel(s)");
    }

    private static RuntimeException syntax(byte[] sub) {
        return Errors.error("ERR unknown subcommand or wrong number of arguments for '" + Errors.printable(sub)
                + "'. Try PUBSUB HELP.");
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        SUBSCRIBE,
        UNSUBSCRIBE,
        PSUBSCRIBE,
        PUNSUBSCRIBE,
        SSUBSCRIBE,
        SUNSUBSCRIBE,
        PUBLISH,
        SPUBLISH,
        MONITOR,
        CHANNELS,
        NUMSUB,
        NUMPAT,
        SHARDCHANNELS,
        SHARDNUMSUB,
        HELP;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case SUBSCRIBE -> subscribe(ctx, argv);
                case UNSUBSCRIBE -> unsubscribe(ctx, argv);
                case PSUBSCRIBE -> psubscribe(ctx, argv);
                case PUNSUBSCRIBE -> punsubscribe(ctx, argv);
                case SSUBSCRIBE -> ssubscribe(ctx, argv);
                case SUNSUBSCRIBE -> sunsubscribe(ctx, argv);
                case PUBLISH -> publish(ctx, argv);
                case SPUBLISH -> spublish(ctx, argv);
                case MONITOR -> monitor(ctx, argv);
                case CHANNELS -> channels(ctx, argv);
                case NUMSUB -> numsub(ctx, argv);
                case NUMPAT -> numpat(ctx, argv);
                case SHARDCHANNELS -> shardchannels(ctx, argv);
                case SHARDNUMSUB -> shardnumsub(ctx, argv);
                case HELP -> help(ctx, argv);
            };
        }
    }
}
