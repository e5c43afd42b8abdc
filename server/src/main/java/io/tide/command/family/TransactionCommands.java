package io.tide.command.family;

import io.tide.command.ClientSession;
import io.tide.command.CommandContext;
import io.tide.command.CommandHandler;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.shard.BlockedKeys;
import io.tide.shard.WatchedKeys;
import java.util.ArrayList;
import java.util.List;

/**
 * MULTI, EXEC, DISCARD, WATCH and UNWATCH (Redis's {@code multi.c}). Thread-safe (stateless).
 *
 * <p>Queueing is the dispatcher's: inside MULTI it answers {@code +QUEUED} for every command but these five,
 * QUIT and RESET, and marks the transaction failed when a command is rejected. EXEC is routed to every
 * shard that its queued commands and the client's watched keys live on, so its handler runs the whole
 * queue with those shards owned or parked: no other client sees part of a transaction. WATCH registers
 * the client on each key's shard; writes, expiry and flushes of the key mark the watch dirty.
 */
public final class TransactionCommands {

    private TransactionCommands() {}

    public static void register(CommandTable t) {
        t.group("transactions");
        t.add("multi", 1, "noscript loading stale fast allow_busy", 0, 0, 0, "@transaction", "1.2.0",
                "Start a transaction block", Handler.MULTI);
        t.add("exec", 1, "noscript loading stale skip_slowlog", 0, 0, 0, "@transaction", "1.2.0",
                "Execute all commands issued after MULTI", Handler.EXEC);
        t.add("discard", 1, "noscript loading stale fast allow_busy", 0, 0, 0, "@transaction", "2.0.0",
                "Discard all commands issued after MULTI", Handler.DISCARD);
        t.add("watch", -2, "noscript loading stale fast allow_busy", 1, -1, 1, "@transaction", "2.2.0",
                "Monitor changes to keys to determine execution of the MULTI/EXEC block", Handler.WATCH);
        t.add("unwatch", 1, "noscript loading stale fast allow_busy", 0, 0, 0, "@transaction", "2.2.0",
                "Forget about all watched keys", Handler.UNWATCH);
    }

    static Reply multi(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        if (c.inMulti()) throw Errors.error(Errors.MULTI_NESTED);
        c.startMulti();
        return Reply.OK;
    }

    static Reply discard(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        if (!c.inMulti()) throw Errors.error(Errors.DISCARD_WITHOUT_MULTI);
        c.endMulti();
        c.unwatchFromHome();
        return Reply.OK;
    }

    static Reply unwatch(CommandContext ctx, byte[][] argv) {
        ctx.client().unwatchFromHome();
        return Reply.OK;
    }

    /**
     * Runs where the keys' shards are owned or parked (the dispatcher routes WATCH by its keys and holds the
     * client's later requests until it is answered). A key already expired is deleted first, so its expiry
     * does not count as a change after the WATCH.
     */
    static Reply watch(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        if (c.inMulti()) throw Errors.error(Errors.WATCH_IN_MULTI);
        WatchedKeys.Watch w = c.watch();
        if (w == null) {
            w = new WatchedKeys.Watch(ctx.shards());
            c.watch(w);
        }
        for (int i = 1; i < argv.length; i++) {
            byte[] key = argv[i];
            BlockedKeys.DbKey k = new BlockedKeys.DbKey(ctx.dbIndex(), key);
            if (w.keys.contains(k)) continue;
            ctx.db(key).exists(key, ctx.now()); // lazy expiry now, not later as a "change"
            ctx.shardOf(key).watched().add(w, ctx.dbIndex(), key);
            w.keys.add(k);
        }
        return Reply.OK;
    }

    /**
     * Runs with the shards of the queued commands and of the watched keys owned or parked. Watched keys
     * that expired since WATCH are deleted first (which marks the watch dirty), as Redis's EXEC checks them.
     */
    static Reply exec(CommandContext ctx, byte[][] argv) {
        ClientSession c = ctx.client();
        if (!c.inMulti()) throw Errors.error(Errors.EXEC_WITHOUT_MULTI);
        boolean failed = c.multiFailed();
        List<ClientSession.Queued> queue = c.endMulti();
        WatchedKeys.Watch w = c.watch();
        c.watch(null);
        boolean dirty = false;
        if (w != null) {
            for (BlockedKeys.DbKey k : w.keys) {
                ctx.db(k.key(), k.db()).exists(k.key(), ctx.now());
            }
            dirty = w.isDirty();
            for (BlockedKeys.DbKey k : w.keys) ctx.shardOf(k.key()).watched().remove(w, k);
        }
        if (failed) throw Errors.error(Errors.EXECABORT);
        if (dirty) return Reply.NULL_ARRAY;
        List<Reply> replies = new ArrayList<>(queue.size());
        for (ClientSession.Queued q : queue) {
            // ACL rules may have changed since the command was queued: checked again, as Redis's execCommand does.
            io.tide.acl.Acl.Denial denied = ctx.server().aclCheck(c, q.spec(), q.argv(), io.tide.acl.AclLog.Context.MULTI);
            if (denied != io.tide.acl.Acl.Denial.NONE) {
                replies.add(Reply.error(Errors.aclChangedBeforeExec(denied)));
                continue;
            }
            replies.add(ctx.call(q.spec(), q.argv()));
            ctx.selectDb(c.db()); // a SELECT inside the transaction applies to the commands after it
        }
        return Reply.array(replies);
    }

    /**
     * The family's command handlers: one enum class for all of them, where a method reference or lambda per command
     * made the JVM spin a hidden class each at startup (docs/decisions/0014-cold-start.md).
     */
    private enum Handler implements CommandHandler {
        MULTI,
        EXEC,
        DISCARD,
        WATCH,
        UNWATCH;

        @Override
        public Reply execute(CommandContext ctx, byte[][] argv) {
            return switch (this) {
                case MULTI -> multi(ctx, argv);
                case EXEC -> exec(ctx, argv);
                case DISCARD -> discard(ctx, argv);
                case WATCH -> watch(ctx, argv);
                case UNWATCH -> unwatch(ctx, argv);
            };
        }
    }
}
