package io.tide.command.family;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.testing.RawClient;
import io.tide.testing.VsRedis;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Byte-for-byte replies of Tide and a real redis-server 7.0 for the server and client commands' errors. */
class ServerCommandsVsRedisTest extends VsRedis {

    /** Sends each command to both servers on one connection each and compares every reply. */
    private void assertSame(String[]... commands) throws Exception {
        assertSame(false, commands);
    }

    private void assertSame(boolean resp3, String[]... commands) throws Exception {
        try (RawClient r = new RawClient(redis().port()); RawClient t = new RawClient(tide().port())) {
            if (resp3) {
                r.call("HELLO", "3");
                t.call("HELLO", "3");
            }
            List<String> expected = new ArrayList<>();
            List<String> actual = new ArrayList<>();
            for (String[] c : commands) {
                expected.add(String.join(" ", c) + " -> " + r.call(c));
                actual.add(String.join(" ", c) + " -> " + t.call(c));
            }
            assertThat(actual).containsExactlyElementsOf(expected);
        }
    }

    private static String[] c(String... args) {
        return args;
    }

    /** total_commands_processed counts a command once it ran: the INFO reading it is not in it yet, as in Redis. */
    @Test
    void totalCommandsProcessed_leavesOutTheInfoReadingIt() throws Exception {
        try (RawClient r = new RawClient(redis().port()); RawClient t = new RawClient(tide().port())) {
            List<Long> counts = new ArrayList<>();
            for (RawClient c : List.of(r, t)) {
                c.call("CONFIG", "RESETSTAT");
                c.call("PING");
                for (String line : c.call("INFO", "stats").split("\r\n")) {
                    if (line.startsWith("total_commands_processed:")) counts.add(Long.parseLong(line.substring(25)));
                }
            }
            assertThat(counts).containsExactly(2L, 2L); // CONFIG RESETSTAT (counted after it reset) and PING
        }
    }

    @Test
    void configErrors() throws Exception {
        assertSame(
                c("CONFIG"),
                c("CONFIG", "FOO"),
                c("CONFIG", "GET"),
                c("CONFIG", "SET", "hz"),
                c("CONFIG", "SET", "hz", "abc"),
                c("CONFIG", "SET", "maxclients", "0"),
                c("CONFIG", "SET", "nosuch", "1"),
                c("CONFIG", "SET", "hz", "10", "hz", "11"),
                c("CONFIG", "SET", "databases", "3"),
                c("CONFIG", "SET", "hz", "10", "x"),
                c("CONFIG", "SET", "hz", "12", "maxclients", "x"),
                c("CONFIG", "GET", "hz"),
                c("CONFIG", "SET", "hz", "12", "maxclients", "100"),
                c("CONFIG", "GET", "maxclients"),
                c("CONFIG", "GET", "nosuch*"),
                c("CONFIG", "SET", "hz", "10", "maxclients", "10000"),
                // Names in errors: a refused value names the parameter in lower case (an alias as the alias), an
                // immutable or repeated one as typed; the pairs before a refused one are rolled back.
                c("CONFIG", "SET", "HZ", "abc"),
                c("CONFIG", "SET", "hz", "20", "Slave-Read-Only", "maybe"),
                c("CONFIG", "GET", "hz"),
                c("CONFIG", "SET", "hz", "20", "DATABASES", "3"),
                c("CONFIG", "SET", "hz", "10", "HZ", "abc"),
                c("CONFIG", "SET", "hz", "abc", "nosuch", "1"),
                c("CONFIG", "GET", "hz"),
                // A parameter and its alias in one call are no duplicate: the later pair wins.
                c("CONFIG", "SET", "slave-read-only", "no", "replica-read-only", "yes"),
                c("CONFIG", "GET", "replica-read-only"),
                c("CONFIG", "SET", "replica-read-only", "yes", "slave-read-only", "no"),
                c("CONFIG", "GET", "replica-read-only"),
                c("CONFIG", "SET", "replica-read-only", "yes"),
                c("CONFIG", "RESETSTAT", "x"),
                c("CONFIG", "REWRITE"));
        // Several patterns: Redis replies in its dict's order, Tide sorted by name; compared as maps elsewhere.
        assertSame(true, c("CONFIG", "GET", "hz"), c("CONFIG", "GET", "timeout"));
    }

    @Test
    void configSet_aofThatCannotStart_failsAndRollsBackAsRedis() throws Exception {
        // A plain file where the AOF directory should be: turning the AOF on fails, and hz goes back too.
        java.nio.file.Path redisBlock = redis().dir().resolve("appendonlydir");
        java.nio.file.Path tideBlock = java.nio.file.Path.of(t().call("CONFIG", "GET", "dir").split("\r\n")[4])
                .resolve("appendonlydir");
        java.nio.file.Files.writeString(redisBlock, "");
        java.nio.file.Files.writeString(tideBlock, "");
        try {
            assertSame(
                    c("CONFIG", "SET", "hz", "20", "appendonly", "yes"),
                    c("CONFIG", "GET", "hz"),
                    c("CONFIG", "GET", "appendonly"));
        } finally {
            java.nio.file.Files.delete(redisBlock);
            java.nio.file.Files.delete(tideBlock);
        }
    }

    @Test
    void commandErrors() throws Exception {
        assertSame(
                c("COMMAND", "GETKEYS"),
                c("COMMAND", "GETKEYS", "nosuch"),
                c("COMMAND", "GETKEYS", "ping"),
                c("COMMAND", "GETKEYS", "nosuch", "a"),
                c("COMMAND", "GETKEYS", "client", "list"),
                c("COMMAND", "GETKEYS", "CLIENT", "nosuch"),
                c("COMMAND", "GETKEYS", "config", "get", "x"),
                c("COMMAND", "FOO"),
                c("COMMAND", "COUNT", "x"),
                c("COMMAND", "INFO", "nosuch"),
                c("COMMAND", "DOCS", "nosuch"),
                c("COMMAND", "LIST", "FILTERBY"),
                c("COMMAND", "LIST", "FILTERBY", "foo", "x"),
                c("COMMAND", "LIST", "FILTERBY", "MODULE", "x"),
                c("COMMAND", "LIST", "FILTERBY", "ACLCAT", "nosuchcat"),
                c("COMMAND", "LIST", "x"));
        assertSame(true, c("COMMAND", "INFO", "nosuch"), c("COMMAND", "DOCS", "nosuch"));
    }

    @Test
    void clientErrors() throws Exception {
        assertSame(
                c("CLIENT"),
                c("CLIENT", "FOO"),
                c("CLIENT", "SETNAME"),
                c("CLIENT", "SETNAME", "a b"),
                c("CLIENT", "SETNAME", "a\nb"),
                c("CLIENT", "GETNAME"),
                c("CLIENT", "SETNAME", "named"),
                c("CLIENT", "GETNAME"),
                c("CLIENT", "SETNAME", ""),
                c("CLIENT", "GETNAME"),
                c("CLIENT", "GETNAME", "x"),
                c("CLIENT", "ID", "x"),
                c("CLIENT", "INFO", "x"),
                c("CLIENT", "LIST", "foo"),
                c("CLIENT", "LIST", "ID"),
                c("CLIENT", "LIST", "ID", "abc"),
                c("CLIENT", "LIST", "ID", "0"),
                c("CLIENT", "LIST", "ID", "99999"),
                c("CLIENT", "LIST", "TYPE"),
                c("CLIENT", "LIST", "TYPE", "foo"),
                c("CLIENT", "LIST", "TYPE", "pubsub"),
                c("CLIENT", "LIST", "TYPE", "normal", "ID", "5"),
                c("CLIENT", "UNBLOCK", "abc", "nosuch"), // the reason is read before the id
                c("CLIENT", "UNBLOCK", "abc", "timeout"),
                c("CLIENT", "UNBLOCK", "99999", "error", "x"),
                c("CLIENT", "KILL"),
                c("CLIENT", "KILL", "1.2.3.4:5"),
                c("CLIENT", "KILL", "1.2.3.4:5", "x"),
                c("CLIENT", "KILL", "ID"),
                c("CLIENT", "KILL", "ID", "abc"),
                c("CLIENT", "KILL", "ID", "-1"),
                c("CLIENT", "KILL", "ID", "99999"),
                c("CLIENT", "KILL", "ID", "99999", "x"),
                c("CLIENT", "KILL", "FOO", "bar"),
                c("CLIENT", "KILL", "SKIPME", "maybe"),
                c("CLIENT", "KILL", "SKIPME", "yes"),
                c("CLIENT", "KILL", "TYPE", "foo"),
                c("CLIENT", "KILL", "TYPE", "master"),
                c("CLIENT", "KILL", "USER", "nosuch"),
                c("CLIENT", "KILL", "USER", "default"),
                c("CLIENT", "KILL", "ADDR", "1.1.1.1:1"),
                c("CLIENT", "KILL", "LADDR", "1.1.1.1:1"),
                c("CLIENT", "REPLY"),
                c("CLIENT", "REPLY", "foo"),
                c("CLIENT", "NO-EVICT", "foo"),
                c("CLIENT", "NO-EVICT", "on"),
                c("CLIENT", "NO-EVICT", "OFF"));
    }

    @Test
    void serverErrors() throws Exception {
        assertSame(
                c("TIME", "x"),
                c("SHUTDOWN", "ABORT"),
                c("SHUTDOWN", "FOO"),
                c("SHUTDOWN", "NOSAVE", "SAVE"),
                c("SHUTDOWN", "ABORT", "NOW"),
                c("INFO", "nosuchsection"),
                c("DEBUG"),
                c("DEBUG", "SLEEP", "0"),
                c("DEBUG", "HELP"));
        assertSame(true, c("INFO", "nosuchsection"));
    }

    @Test
    void clientOutputBufferLimit_parsesAndPrintsAsRedis() throws Exception {
        assertSame(
                c("CONFIG", "SET", "client-output-buffer-limit", "bogus 1 2 3"),
                c("CONFIG", "SET", "client-output-buffer-limit", "normal 1 2"),
                c("CONFIG", "SET", "client-output-buffer-limit", "normal x 0 0"),
                c("CONFIG", "SET", "client-output-buffer-limit", "normal 1mb 512kb 10 pubsub 1 1 1"),
                c("CONFIG", "GET", "client-output-buffer-limit"),
                c("CONFIG", "SET", "client-output-buffer-limit", "normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60"),
                c("CONFIG", "GET", "client-output-buffer-limit"),
                c("CONFIG", "GET", "tcp-backlog"));
    }

    @Test
    void clientReply_offSkipOn() throws Exception {
        for (boolean resp3 : new boolean[] {false, true}) {
            try (RawClient r = new RawClient(redis().port()); RawClient t = new RawClient(tide().port())) {
                for (RawClient x : List.of(r, t)) {
                    if (resp3) x.call("HELLO", "3");
                    x.sendCommand("CLIENT", "REPLY", "OFF");
                    x.sendCommand("PING");
                    x.sendCommand("CLIENT", "REPLY", "SKIP");
                    x.sendCommand("ECHO", "hidden");
                    x.sendCommand("CLIENT", "REPLY", "ON");
                    x.sendCommand("ECHO", "a");
                    x.sendCommand("CLIENT", "REPLY", "SKIP");
                    x.sendCommand("ECHO", "skipped");
                    x.sendCommand("CLIENT", "REPLY", "SKIP");
                    x.sendCommand("CLIENT", "REPLY", "SKIP");
                    x.sendCommand("ECHO", "b");
                    x.sendCommand("PING");
                    x.sendCommand("CLIENT", "REPLY", "SKIP");
                    x.sendCommand("CLIENT", "REPLY", "ON"); // answered: ON clears the skip
                    x.sendCommand("ECHO", "c");
                }
                for (int i = 0; i < 5; i++) assertThat(t.readReply()).isEqualTo(r.readReply());
                assertThat(t.call("ECHO", "end")).isEqualTo(r.call("ECHO", "end"));
            }
        }
    }

    @Test
    void role_module_lolwut_asRedis() throws Exception {
        String[][] cmds = {
                c("ROLE"), c("ROLE", "x"),
                c("MODULE", "LIST"), c("MODULE", "LIST", "x"), c("MODULE"), c("MODULE", "foo"), c("MODULE", "HELP"),
                c("MODULE", "LOAD", "/x.so"), c("MODULE", "LOADEX", "/x.so", "ARGS", "1"), c("MODULE", "UNLOAD", "x"),
                c("MODULE", "LOAD"), c("MODULE", "UNLOAD"),
                c("LOLWUT"), c("LOLWUT", "VERSION", "7"), c("LOLWUT", "VERSION", "x"), c("LOLWUT", "VERSION"),
                c("LOLWUT", "foo"), c("LOLWUT", "VERSION", "-1")};
        assertSame(cmds);
        assertSame(true, cmds);
    }

    @Test
    void noMultiCommands_areRejectedInsideMulti_andAbortExec() throws Exception {
        assertSame(c("MULTI"), c("SAVE"), c("SHUTDOWN", "NOSAVE"), c("SET", "k", "v"), c("EXEC"), c("GET", "k"));
    }

    @Test
    void lolwut5_schotter_asRedis() throws Exception {
        // Up to two rows of squares Redis draws without randomness: the art must match byte for byte.
        String[][] cmds = {
                c("LOLWUT", "VERSION", "5", "10", "3", "2"), c("LOLWUT", "VERSION", "5", "0", "0", "0"),
                c("LOLWUT", "VERSION", "5", "3", "1", "1"), c("LOLWUT", "VERSION", "5", "-5", "-1", "2"),
                c("LOLWUT", "VERSION", "5", "66", "8", "2"), c("LOLWUT", "VERSION", "5", "1000", "200", "2", "9"),
                c("LOLWUT", "VERSION", "5", "7", "5", "1"), c("LOLWUT", "VERSION", "5", "x"),
                c("LOLWUT", "VERSION", "5", "10", "y")};
        assertSame(cmds);
        assertSame(true, cmds);
        // Lower rows are random: same shape (lines, their lengths, the closing line) as Redis's.
        try (RawClient r = new RawClient(redis().port()); RawClient t = new RawClient(tide().port())) {
            String expected = r.call("LOLWUT", "VERSION", "5");
            String actual = t.call("LOLWUT", "VERSION", "5");
            assertThat(actual.length()).isEqualTo(expected.length());
            assertThat(actual.lines().map(String::length).toList())
                    .isEqualTo(expected.lines().map(String::length).toList());
            assertThat(actual).endsWith("Georg Nees - schotter, plotter on paper, 1968. Redis ver. 7.0.15\n\r\n");
        }
    }

    @Test
    void lolwut6_skyline_hasRedisShape() throws Exception {
        assertSame(c("LOLWUT", "VERSION", "6", "x"), c("LOLWUT", "VERSION", "6", "10", "y"));
        String cell = "\\033\\[0;(30;40|90;100|37;47|97;107)m \\033\\[0m";
        try (RawClient r = new RawClient(redis().port()); RawClient t = new RawClient(tide().port())) {
            for (String[] args : new String[][] {{}, {"40", "10"}, {"1", "1"}, {"0", "-3"}, {"3", "7", "9"}}) {
                String[] cmd = new String[3 + args.length];
                cmd[0] = "LOLWUT";
                cmd[1] = "VERSION";
                cmd[2] = "6";
                System.arraycopy(args, 0, cmd, 3, args.length);
                List<String> expected = r.call(cmd).lines().toList();
                List<String> actual = t.call(cmd).lines().toList();
                assertThat(actual).hasSameSizeAs(expected);
                // Header line ($<len>), the art's rows, the two credit lines and the reply's end, as Redis's.
                for (int i = 1; i < expected.size() - 3; i++) {
                    assertThat(actual.get(i).split("\\033\\[0m", -1).length)
                            .isEqualTo(expected.get(i).split("\\033\\[0m", -1).length); // cells per row
                    assertThat(actual.get(i)).matches("(" + cell + ")+");
                }
                if (args.length == 0) { // 80x20: black foreground towers before grey ones, on the white sky
                    assertThat(String.join("", actual)).contains("[0;30;40m").contains("[0;90;100m")
                            .contains("[0;97;107m");
                }
                assertThat(actual.subList(actual.size() - 3, actual.size()))
                        .isEqualTo(expected.subList(expected.size() - 3, expected.size()));
            }
        }
    }

    /**
     * EVAL, EVALSHA, FCALL and their _RO variants: the numkeys key spec, Redis's atoi fallback, and the errors; SORT's
     * getkeys function (the sorted key and the last STORE, whatever BY and GET name).
     */
    @Test
    void commandGetKeys_scriptsAndFunctions_numkeysKeySpecs() throws Exception {
        List<String[]> cmds = new ArrayList<>();
        for (String sub : new String[] {"GETKEYS", "GETKEYSANDFLAGS"}) {
            for (String cmd : new String[] {"EVAL", "EVALSHA", "EVAL_RO", "EVALSHA_RO", "FCALL", "FCALL_RO"}) {
                String[][] tails = {
                    {"2", "a", "b"}, {"1", "a", "b"}, {"0"}, {"0", "a"}, {"3", "a", "b"}, {"-1", "a"}, {"x", "a"},
                    {"1"}, {"01", "a"}, {"1a", "a", "b"}, {" 2", "a", "b"}, {"+1", "a"}, {"2147483648", "a"},
                    {"4294967297", "a"}, {"4294967298", "a", "b"}, {"99999999999999999999", "a"}, {},
                };
                for (String[] tail : tails) {
                    List<String> c = new ArrayList<>(List.of("COMMAND", sub, cmd, "body"));
                    c.addAll(List.of(tail));
                    cmds.add(c.toArray(new String[0]));
                }
            }
            cmds.add(c("COMMAND", sub, "NOSUCH", "x"));
            cmds.add(c("COMMAND", sub, "PING", "x"));
            cmds.add(c("COMMAND", sub, "GET"));
            cmds.add(c("COMMAND", sub, "LMPOP", "0", "a", "LEFT"));
            cmds.add(c("COMMAND", sub, "GET", "k"));
            cmds.add(c("COMMAND", sub, "MGET", "a", "b"));
            cmds.add(c("COMMAND", sub, "SORT", "k", "BY", "w_*", "GET", "x", "STORE", "d", "STORE", "e"));
            cmds.add(c("COMMAND", sub, "SORT", "k", "LIMIT", "STORE", "x", "STORE"));
            cmds.add(c("COMMAND", sub, "SORT", "k", "GET", "STORE", "store", "d"));
            cmds.add(c("COMMAND", sub, "SORT", "k", "STORE"));
            cmds.add(c("COMMAND", sub, "SORT_RO", "k", "BY", "w_*", "GET", "#"));
            cmds.add(c("COMMAND", sub, "SORT_RO", "k", "STORE", "d"));
        }
        cmds.add(c("COMMAND", "INFO", "EVAL", "EVALSHA_RO", "FCALL", "FCALL_RO"));
        cmds.add(c("COMMAND", "INFO", "SSUBSCRIBE", "SUNSUBSCRIBE")); // fixed positions: not movablekeys
        // commands with one key spec: its flags are Redis's (not_key, OW update, RM delete, ...), not RO/RW alone
        cmds.add(c("COMMAND", "INFO", "GET", "HGET", "LPUSH", "INCR", "APPEND", "GETDEL", "LPOP", "XLEN", "PFADD",
                "SPUBLISH", "HSET", "ZADD", "SADD", "LINDEX", "STRLEN", "GETRANGE", "HDEL", "ZSCORE", "SREM", "LSET"));
        String[][] all = cmds.toArray(new String[0][]);
        assertSame(false, all);
        assertSame(true, all);
    }
}
