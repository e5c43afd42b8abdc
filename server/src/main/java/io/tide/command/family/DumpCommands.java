package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.CommandContext;
import io.tide.command.CommandTable;
import io.tide.command.Errors;
import io.tide.persistence.rdb.Dump;
import io.tide.persistence.rdb.RdbFormatException;
import io.tide.protocol.Reply;
import io.tide.pubsub.KeyspaceEvents;
import io.tide.store.Database;

/**
 * Thread-safe (stateless). DUMP and RESTORE (Redis's "generic" group): a key's value as Redis's serialized
 * payload ({@link Dump}), so values move between Tide and Redis in both directions.
 *
 * <p>RESTORE's FREQ is validated and then ignored: Tide keeps no LFU counter yet (it arrives with eviction).
 * IDLETIME sets the key's access clock that far in the past.
 */
public final class DumpCommands {

    private DumpCommands() {}

    public static void register(CommandTable t) {
        t.group("generic");
        t.add("dump", 2, "readonly", 1, 1, 1, "@keyspace @slow", "2.6.0",
                "Return a serialized version of the value stored at the specified key.", DumpCommands::dump);
        t.add("restore", -4, "write denyoom", 1, 1, 1, "@keyspace @slow @dangerous", "2.6.0",
                "Create a key using the provided serialized value, previously obtained using DUMP.",
                DumpCommands::restore);
    }

    static Reply dump(CommandContext ctx, byte[][] argv) {
        Object v = ctx.read(argv[1]);
        if (v == null) return Reply.NULL;
        return Reply.bulk(Dump.serialize(v));
    }

    static Reply restore(CommandContext ctx, byte[][] argv) {
        byte[] key = argv[1];
        boolean replace = false;
        boolean absTtl = false;
        long idle = -1;
        long freq = -1;
        for (int j = 4; j < argv.length; j++) {
            boolean more = j + 1 < argv.length;
            if (Args.is(argv[j], "replace")) {
                replace = true;
            } else if (Args.is(argv[j], "absttl")) {
                absTtl = true;
            } else if (Args.is(argv[j], "idletime") && more && freq == -1) {
                idle = Args.parseLong(argv[++j]);
                if (idle < 0) throw Errors.error(Errors.RESTORE_INVALID_IDLETIME);
            } else if (Args.is(argv[j], "freq") && more && idle == -1) {
                freq = Args.parseLong(argv[++j]);
                if (freq < 0 || freq > 255) throw Errors.error(Errors.RESTORE_INVALID_FREQ);
                // Validated only: Tide has no LFU counter until eviction lands, so the frequency is not kept.
            } else {
                throw Errors.syntax();
            }
        }
        long now = ctx.now();
        Database db = ctx.db(key);
        if (!replace && db.exists(key, now)) throw Errors.error(Errors.BUSYKEY);
        long ttl = Args.parseLong(argv[2]);
        if (ttl < 0) throw Errors.error(Errors.RESTORE_INVALID_TTL);
        byte[] payload = argv[3];
        if (!Dump.verify(payload)) throw Errors.error(Errors.DUMP_PAYLOAD);
        Object value;
        try {
            value = Dump.deserialize(payload, ctx.server().limits());
        } catch (RdbFormatException e) {
            throw Errors.error(Errors.DUMP_BAD_DATA);
        }
        boolean deleted = replace && db.remove(key) != null;
        long expireAt = ttl == 0 ? 0 : absTtl ? ttl : now + ttl;
        if (ttl != 0 && expireAt <= now) {
            // Already expired: the key is gone, as in Redis (which reports the deletion if it replaced one).
            if (deleted) ctx.notify(KeyspaceEvents.GENERIC, "del", key);
            return Reply.OK;
        }
        db.put(key, value, expireAt, idle > 0 ? now - idle * 1000 : now);
        ctx.notify(KeyspaceEvents.GENERIC, "restore", key);
        return Reply.OK;
    }
}
