package io.tide.command.family;

import io.tide.protocol.Reply;
import java.util.ArrayList;
import java.util.List;

/** The reply of a container's HELP subcommand, in Redis's layout. Thread-safe (stateless). */
final class Help {

    private Help() {}

    /** A header naming {@code command}, the given lines, then HELP itself; each line a status reply. */
    static Reply reply(String command, String... lines) {
        List<Reply> out = new ArrayList<>(lines.length + 3);
        out.add(Reply.simple(command + " <subcommand> [<arg> [value] [opt] ...]. Subcommands are:"));
        for (String l : lines) out.add(Reply.simple(l));
        out.add(Reply.simple("HELP"));
        out.add(Reply.simple("    Prints this help."));
        return Reply.array(out);
    }
}
