package io.tide.acl;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Redis 7's ACL selector: the commands (a bit per command and subcommand id, plus the "all commands, future ones too"
 * mark that {@code +@all} sets), the key patterns (each readable, writable or both) and the channel patterns one set of
 * rules allows. A user is a root selector and any number of others in parentheses. Not thread-safe: changed only on a
 * copy ({@link #copy}) that is published when a whole ACL SETUSER succeeded, and never changed after.
 */
final class AclSelector {

    static final int READ = 1;
    static final int WRITE = 2;

    /** A key pattern and what it allows: {@code ~p} both, {@code %R~p} reading, {@code %W~p} writing. */
    record KeyPattern(String pattern, byte[] bytes, int perms) {
        String describe() {
            return switch (perms) {
                case READ -> "%R~" + pattern;
                case WRITE -> "%W~" + pattern;
                default -> "~" + pattern;
            };
        }
    }

    BitSet commands = new BitSet();
    /** Redis's reserved "future commands" bit: set by {@code +@all}/{@code allcommands}, cleared only by {@code -@all}. */
    boolean future;
    /** Redis's SELECTOR_FLAG_ALLCOMMANDS: every command allowed without looking at bits (cleared by any removal). */
    boolean allCommands;
    /** First arguments allowed for a command whose bit is clear ({@code +select|0}, Redis 7.0's deprecated form). */
    Map<Integer, Set<String>> firstArgs = new HashMap<>();
    boolean allKeys;
    List<KeyPattern> keys = new ArrayList<>();
    boolean allChannels;
    List<String> channels = new ArrayList<>();

    AclSelector copy() {
        AclSelector c = new AclSelector();
        c.commands = (BitSet) commands.clone();
        c.future = future;
        c.allCommands = allCommands;
        for (Map.Entry<Integer, Set<String>> e : firstArgs.entrySet()) c.firstArgs.put(e.getKey(), new LinkedHashSet<>(e.getValue()));
        c.allKeys = allKeys;
        c.keys = new ArrayList<>(keys);
        c.allChannels = allChannels;
        c.channels = new ArrayList<>(channels);
        return c;
    }

    /** Whether this selector lets anything through: every command, key and channel (the default user's). */
    boolean unrestricted() {
        return allCommands && allKeys && allChannels;
    }
}
