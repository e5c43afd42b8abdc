package io.tide.acl;

import io.tide.command.CommandSpec;
import io.tide.command.CommandTable;
import io.tide.util.Glob;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collections;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Redis 7's access control lists: the users, their rules as ACL SETUSER writes them and ACL LIST describes them, and the
 * permission check every command passes through. Thread-safe: changes (ACL SETUSER, DELUSER, requirepass) are
 * serialised on this object and publish a new immutable snapshot of the users; checks read the snapshot without a lock.
 * While every user may run everything (no ACL rule was ever given, the common case), {@link #unrestricted} says so
 * and the dispatcher skips the check.
 */
public final class Acl {

    /** Why a command was refused, in Redis's order of relevance (acl.c's ACL_DENIED_*). */
    public enum Denial { NONE, CMD, KEY, AUTH, CHANNEL }

    /** An ACL SETUSER rule that could not be applied; the message is Redis's reason. */
    public static final class RuleException extends Exception {
        public RuleException(String message) {
            super(message);
        }
    }

    static final String SYNTAX = "Syntax error";
    static final String UNKNOWN = "Unknown command or category name in ACL";
    static final String NO_SUCH_PASSWORD = "The password you are trying to remove from the user does not exist";
    static final String BAD_HASH = "The password hash must be exactly 64 characters and contain only lowercase "
            + "hexadecimal characters";
    static final String KEY_AFTER_ALL = "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid "
            + "and does not have any effect. Try 'resetkeys' to start with an empty list of patterns";
    static final String CHANNEL_AFTER_ALL = "Adding a pattern after the * pattern (or the 'allchannels' flag) is not "
            + "valid and does not have any effect. Try 'resetchannels' to start with an empty list of channels";
    static final String FIRSTARG_OF_SUB = "Allowing first-arg of a subcommand is not supported";

    private final List<CommandSpec> commands = new ArrayList<>();
    private final Map<CommandSpec, Integer> ids = new IdentityHashMap<>();
    private final CommandTable table;
    private volatile Map<String, AclUser> users;
    private volatile boolean unrestricted = true;
    /** acl-pubsub-default: whether a new selector (and 'reset') starts with every channel. */
    private volatile boolean allChannelsByDefault;

    public Acl(CommandTable table) {
        this.table = table;
        for (CommandSpec spec : table.all()) {
            ids.put(spec, commands.size());
            commands.add(spec);
            for (CommandSpec sub : spec.subcommands().values()) {
                ids.put(sub, commands.size());
                commands.add(sub);
            }
        }
        TreeMap<String, AclUser> m = new TreeMap<>();
        m.put("default", standardDefault());
        users = Collections.unmodifiableMap(m);
    }

    /** Redis's ACLCreateDefaultUser: on, nopass, every command, key and channel. */
    private AclUser standardDefault() {
        AclUser d = new AclUser("default");
        d.enabled = true;
        d.nopass = true;
        allCommands(d.root, true);
        d.root.allKeys = true;
        d.root.allChannels = true;
        return d;
    }

    /** acl-pubsub-default: allchannels (true) or resetchannels, for users and selectors made from now on. */
    public void allChannelsByDefault(boolean all) {
        allChannelsByDefault = all;
    }

    // ------------------------------------------------------------------------------------------------- users

    /** Whether every user may run every command on every key and channel (then nothing needs checking). */
    public boolean unrestricted() {
        return unrestricted;
    }

    public AclUser user(String name) {
        return users.get(name);
    }

    public AclUser defaultUser() {
        return users.get("default");
    }

    /** Users by name, in Redis's (byte) order. */
    public Map<String, AclUser> users() {
        return users;
    }

    /**
     * The user {@code name} with {@code password}, or null when there is none, it is off, or the password is not one of
     * its own (Redis's ACLCheckUserCredentials). Compares digests in constant time.
     */
    public AclUser authenticate(String name, String password) {
        AclUser u = users.get(name);
        if (u == null || !u.enabled) return null;
        if (u.nopass) return u;
        byte[] digest = hash(password).getBytes(StandardCharsets.US_ASCII);
        boolean ok = false;
        for (String p : u.passwords) ok |= MessageDigest.isEqual(p.getBytes(StandardCharsets.US_ASCII), digest);
        return ok ? u : null;
    }

    /** requirepass, as Redis ties it to the default user: resetpass, then that password, or nopass when empty. */
    public synchronized void defaultPassword(String password) {
        AclUser d = defaultUser().copy();
        d.passwords.clear();
        d.nopass = password == null || password.isEmpty();
        if (!d.nopass) d.passwords.add(hash(password));
        publish(d);
    }

    /**
     * ACL SETUSER: applies {@code rules} in order to a copy of the user (a new one, off and allowed nothing, when it does
     * not exist) and publishes it only if every rule applied. Selector rules given as several arguments, from one
     * starting with '(' to one ending with ')', are taken together, as Redis merges them.
     */
    public synchronized void setUser(String name, List<String> rules) throws RuleException {
        List<String> merged = mergeSelectors(rules);
        AclUser existing = users.get(name);
        AclUser u = existing != null ? existing.copy() : newUser(name);
        for (String op : merged) {
            try {
                applyUser(u, op);
            } catch (RuleException e) {
                throw new RuleException("Error in ACL SETUSER modifier '" + op + "': " + e.getMessage());
            }
        }
        publish(u);
    }

    /** Rules with each selector given over several arguments, from '(' to ')', joined into one. */
    private static List<String> mergeSelectors(List<String> rules) throws RuleException {
        List<String> merged = new ArrayList<>();
        for (int i = 0; i < rules.size(); i++) {
            String r = rules.get(i);
            if (r.startsWith("(") && !r.endsWith(")")) {
                StringBuilder sb = new StringBuilder(r);
                int j = i + 1;
                for (; j < rules.size(); j++) {
                    sb.append(' ').append(rules.get(j));
                    if (rules.get(j).endsWith(")")) break;
                }
                if (j == rules.size()) throw new RuleException("Unmatched parenthesis in acl selector starting at '" + r + "'.");
                i = j;
                r = sb.toString();
            }
            merged.add(r);
        }
        return merged;
    }

    /**
     * ACL LOAD, the aclfile at startup and the config file's {@code user} lines: every user replaced by those of
     * {@code lines} ({@code user <name> <rule> ...} each; blank lines skipped), all or nothing, with Redis's error text
     * naming {@code source} and the line. The default user, when the lines do not define it, starts afresh (on, nopass,
     * everything), as Redis's ACLLoadFromFile makes it.
     */
    public synchronized Loaded load(List<String> lines, String source) throws RuleException {
        StringBuilder errors = new StringBuilder();
        TreeMap<String, AclUser> m = new TreeMap<>();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i).strip();
            if (line.isEmpty()) continue;
            List<String> words = List.of(line.split("\\s+"));
            int no = i + 1;
            if (!words.get(0).equals("user") || words.size() < 2) {
                errors.append(source).append(':').append(no)
                        .append(" should start with user keyword followed by the username. ");
                continue;
            }
            String name = words.get(1);
            if (!seen.add(name)) {
                errors.append("WARNING: Duplicate user '").append(name).append("' found on line ").append(no).append(". ");
                continue;
            }
            List<String> rules;
            try {
                rules = mergeSelectors(words.subList(2, words.size()));
            } catch (RuleException e) {
                errors.append(source).append(':').append(no).append(": Unmatched parenthesis in selector definition.");
                continue;
            }
            AclUser u = newUser(name);
            boolean ok = true;
            for (String op : rules) {
                try {
                    applyUser(u, op);
                } catch (RuleException e) {
                    String msg = e.getMessage().equals(UNKNOWN)
                            ? "Error in applying operation '" + op + "': " + UNKNOWN : e.getMessage();
                    errors.append(source).append(':').append(no).append(": ").append(msg).append(". ");
                    ok = false;
                }
            }
            if (ok) m.put(name, u);
        }
        if (!errors.isEmpty()) {
            throw new RuleException(errors + "WARNING: ACL errors detected, no change to the previously active ACL "
                    + "rules was performed");
        }
        boolean definesDefault = m.containsKey("default");
        m.putIfAbsent("default", standardDefault());
        List<String> changed = new ArrayList<>();
        for (AclUser old : users.values()) {
            AclUser now = m.get(old.name);
            if (now == null || !describe(now).equals(describe(old))) changed.add(old.name);
        }
        install(m);
        return new Loaded(changed, definesDefault);
    }

    /**
     * What {@link #load} did: the users that no longer exist or changed (whose connections the caller closes), and
     * whether the lines defined the default user (else requirepass applies to the fresh one at startup).
     */
    public record Loaded(List<String> changed, boolean definesDefault) {}

    /** ACL SAVE's lines: ACL LIST's, one per user. */
    public List<String> describeAll() {
        List<String> out = new ArrayList<>();
        for (AclUser u : users.values()) out.add(describe(u));
        return out;
    }

    /** ACL DELUSER of one user: true if it existed. The default user cannot be removed (the caller refuses it). */
    public synchronized boolean delUser(String name) {
        if (!users.containsKey(name) || name.equals("default")) return false;
        TreeMap<String, AclUser> m = new TreeMap<>(users);
        m.remove(name);
        install(m);
        return true;
    }

    private void publish(AclUser u) {
        TreeMap<String, AclUser> m = new TreeMap<>(users);
        m.put(u.name, u);
        install(m);
    }

    /** Publishes {@code m} as the users (under this object's monitor), and whether a check is needed at all. */
    private void install(TreeMap<String, AclUser> m) {
        users = Collections.unmodifiableMap(m);
        unrestricted = m.values().stream().allMatch(AclUser::unrestricted);
    }

    private AclUser newUser(String name) {
        AclUser u = new AclUser(name); // off, no password, no commands or keys
        u.root.allChannels = allChannelsByDefault;
        return u;
    }

    static String hash(String password) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(password.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String validHash(String hex) throws RuleException {
        if (hex.length() != 64 || !hex.chars().allMatch(c -> (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) {
            throw new RuleException(BAD_HASH);
        }
        return hex;
    }

    // ------------------------------------------------------------------------------------------------- rules

    /** Redis's ACLSetUser: the user-level rules, else a rule of the root selector. */
    private void applyUser(AclUser u, String op) throws RuleException {
        String lower = op.toLowerCase(Locale.ROOT);
        switch (lower) {
            case "on" -> u.enabled = true;
            case "off" -> u.enabled = false;
            case "skip-sanitize-payload" -> {
                u.skipSanitizePayload = true;
                u.sanitizePayload = false;
            }
            case "sanitize-payload" -> {
                u.sanitizePayload = true;
                u.skipSanitizePayload = false;
            }
            case "nopass" -> {
                u.nopass = true;
                u.passwords.clear();
            }
            case "resetpass" -> {
                u.nopass = false;
                u.passwords.clear();
            }
            case "clearselectors" -> u.selectors.clear();
            case "reset" -> {
                applyUser(u, "resetpass");
                applySelector(u.root, "resetkeys");
                applySelector(u.root, "resetchannels");
                if (allChannelsByDefault) applySelector(u.root, "allchannels");
                applyUser(u, "off");
                applyUser(u, "sanitize-payload");
                applyUser(u, "clearselectors");
                applySelector(u.root, "-@all");
            }
            default -> {
                if (op.startsWith(">")) {
                    u.passwords.add(hash(op.substring(1)));
                    u.nopass = false;
                } else if (op.startsWith("#")) {
                    u.passwords.add(validHash(op.substring(1)));
                    u.nopass = false;
                } else if (op.startsWith("<")) {
                    if (!u.passwords.remove(hash(op.substring(1)))) throw new RuleException(NO_SUCH_PASSWORD);
                    u.nopass = false;
                } else if (op.startsWith("!")) {
                    if (!u.passwords.remove(validHash(op.substring(1)))) throw new RuleException(NO_SUCH_PASSWORD);
                    u.nopass = false;
                } else if (op.startsWith("(") && op.endsWith(")")) {
                    AclSelector s = new AclSelector();
                    s.allChannels = allChannelsByDefault;
                    for (String part : op.substring(1, op.length() - 1).trim().split("\\s+")) {
                        if (!part.isEmpty()) applySelector(s, part);
                    }
                    u.selectors.add(s);
                } else {
                    applySelector(u.root, op);
                }
            }
        }
    }

    /** Redis's ACLSetSelector: keys, channels and commands. */
    private void applySelector(AclSelector s, String op) throws RuleException {
        String lower = op.toLowerCase(Locale.ROOT);
        switch (lower) {
            case "allkeys", "~*" -> {
                s.allKeys = true;
                s.keys.clear();
                return;
            }
            case "resetkeys" -> {
                s.allKeys = false;
                s.keys.clear();
                return;
            }
            case "allchannels", "&*" -> {
                s.allChannels = true;
                s.channels.clear();
                return;
            }
            case "resetchannels" -> {
                s.allChannels = false;
                s.channels.clear();
                return;
            }
            case "allcommands", "+@all" -> {
                allCommands(s, true);
                return;
            }
            case "nocommands", "-@all" -> {
                allCommands(s, false);
                return;
            }
            default -> { }
        }
        char c = op.isEmpty() ? 0 : op.charAt(0);
        if (c == '~' || c == '%') {
            int perms = AclSelector.READ | AclSelector.WRITE;
            int tilde = 0;
            if (c == '%') {
                perms = 0;
                int i = 1;
                for (; i < op.length() && op.charAt(i) != '~'; i++) {
                    char f = Character.toUpperCase(op.charAt(i));
                    if (f == 'R') perms |= AclSelector.READ;
                    else if (f == 'W') perms |= AclSelector.WRITE;
                    else throw new RuleException(SYNTAX);
                }
                if (perms == 0) throw new RuleException(SYNTAX);
                tilde = i; // "%R" alone is an empty pattern, as Redis reads it
            }
            if (s.allKeys) throw new RuleException(KEY_AFTER_ALL);
            String pattern = tilde + 1 >= op.length() ? "" : op.substring(tilde + 1);
            if (pattern.equals("*") && perms == (AclSelector.READ | AclSelector.WRITE)) {
                s.allKeys = true;
                s.keys.clear();
                return;
            }
            for (int i = 0; i < s.keys.size(); i++) {
                AclSelector.KeyPattern k = s.keys.get(i);
                if (k.pattern().equals(pattern)) {
                    s.keys.set(i, new AclSelector.KeyPattern(pattern, k.bytes(), k.perms() | perms));
                    return;
                }
            }
            s.keys.add(new AclSelector.KeyPattern(pattern, pattern.getBytes(StandardCharsets.UTF_8), perms));
            return;
        }
        if (c == '&') {
            if (s.allChannels) throw new RuleException(CHANNEL_AFTER_ALL);
            String ch = op.substring(1);
            if (!s.channels.contains(ch)) s.channels.add(ch);
            return;
        }
        if (c == '+' || c == '-') {
            boolean allow = c == '+';
            if (op.length() > 1 && op.charAt(1) == '@') {
                String category = "@" + lower.substring(2);
                if (!CommandSpec.CATEGORY_ORDER.contains(category)) throw new RuleException(UNKNOWN);
                category(s, category, allow);
            } else {
                command(s, lower.substring(1), allow);
            }
            if (!allow) s.allCommands = false;
            return;
        }
        throw new RuleException(SYNTAX);
    }

    private void allCommands(AclSelector s, boolean allow) {
        if (allow) s.commands.set(0, commands.size());
        else s.commands.clear();
        s.future = allow;
        s.allCommands = allow;
        s.firstArgs.clear();
    }

    /** Redis's ACLSetSelectorCommandBitsForCategory: each command of the category with its subcommands, then each subcommand of it. */
    private void category(AclSelector s, String category, boolean allow) {
        for (CommandSpec spec : table.all()) {
            if (spec.aclCategories().contains(category)) changePerm(s, spec, allow);
            for (CommandSpec sub : spec.subcommands().values()) {
                if (sub.aclCategories().contains(category)) s.commands.set(ids.get(sub), allow);
            }
        }
    }

    /** Redis's ACLChangeSelectorPerm: the command's bit and its subcommands', and no first-arg rules for it. */
    private void changePerm(AclSelector s, CommandSpec spec, boolean allow) {
        int id = ids.get(spec);
        s.commands.set(id, allow);
        s.firstArgs.remove(id);
        for (CommandSpec sub : spec.subcommands().values()) s.commands.set(ids.get(sub), allow);
    }

    /**
     * {@code +name} or {@code -name}, as Redis 7.0's ACLSetSelector reads them: a removal names a command or a
     * container's subcommand ({@code -config|get}); an addition with a bar splits at the last one, so that
     * {@code +config|get} allows a subcommand and {@code +select|0} a first argument, and an empty part after the bar is
     * a syntax error.
     */
    private void command(AclSelector s, String name, boolean allow) throws RuleException {
        int bar = name.lastIndexOf('|');
        if (bar < 0 || !allow) {
            CommandSpec spec = commandOrSubcommand(name);
            if (spec == null) throw new RuleException(UNKNOWN);
            changePerm(s, spec, allow);
            return;
        }
        CommandSpec cmd = commandOrSubcommand(name.substring(0, bar));
        if (cmd == null) throw new RuleException(UNKNOWN);
        if (cmd.parent() != null) throw new RuleException(FIRSTARG_OF_SUB);
        String rest = name.substring(bar + 1);
        if (rest.isEmpty()) throw new RuleException(SYNTAX);
        if (cmd.isContainer()) {
            CommandSpec sub = cmd.subcommands().get(rest);
            if (sub == null) throw new RuleException(UNKNOWN);
            changePerm(s, sub, true);
            return;
        }
        // "+select|0": a first argument allowed for a command that is not itself allowed (Redis 7.0, deprecated).
        int id = ids.get(cmd);
        if (!s.commands.get(id)) s.firstArgs.computeIfAbsent(id, k -> new LinkedHashSet<>()).add(rest);
    }

    /** "get" or "config|get" (a container's subcommand); null for anything else. */
    private CommandSpec commandOrSubcommand(String name) {
        int bar = name.indexOf('|');
        if (bar < 0) return table.lookup(name);
        CommandSpec parent = table.lookup(name.substring(0, bar));
        if (parent == null || !parent.isContainer()) return null;
        return parent.subcommands().get(name.substring(bar + 1));
    }

    // ------------------------------------------------------------------------------------------------- describe

    /** ACL LIST's line for the user. */
    public String describe(AclUser u) {
        StringBuilder sb = new StringBuilder("user ").append(u.name).append(' ');
        sb.append(u.enabled ? "on " : "off ");
        if (u.nopass) sb.append("nopass ");
        if (u.skipSanitizePayload) sb.append("skip-sanitize-payload ");
        if (u.sanitizePayload) sb.append("sanitize-payload ");
        for (String p : u.passwords) sb.append('#').append(p).append(' ');
        sb.append(describe(u.root));
        for (AclSelector s : u.selectors) sb.append(" (").append(describe(s)).append(')');
        return sb.toString().trim();
    }

    /** A selector's keys, channels and command rules, as ACL LIST writes them. */
    private String describe(AclSelector s) {
        StringBuilder sb = new StringBuilder();
        if (s.allKeys) sb.append("~* ");
        else for (AclSelector.KeyPattern k : s.keys) sb.append(k.describe()).append(' ');
        if (s.allChannels) sb.append("&* ");
        else {
            sb.append("resetchannels ");
            for (String c : s.channels) sb.append('&').append(c).append(' ');
        }
        return sb.append(describeCommands(s)).toString().trim();
    }

    /** ACL GETUSER's "keys" of a selector. */
    String keysText(AclSelector s) {
        if (s.allKeys) return "~*";
        List<String> out = new ArrayList<>();
        for (AclSelector.KeyPattern k : s.keys) out.add(k.describe());
        return String.join(" ", out);
    }

    /** ACL GETUSER's "channels" of a selector. */
    String channelsText(AclSelector s) {
        if (s.allChannels) return "&*";
        List<String> out = new ArrayList<>();
        for (String c : s.channels) out.add("&" + c);
        return String.join(" ", out);
    }

    /**
     * Redis 7.0's ACLDescribeSelectorCommandRules: starts from +@all (when the selector may run commands added later) or
     * -@all, then adds categories greedily (each time the one whose rule would get the fewest commands wrong, ties to
     * the one that gets most right, counting only commands no earlier category covered), then the single commands (and
     * subcommands) that still differ, so that applying the description gives the same bits.
     */
    String describeCommands(AclSelector s) {
        StringBuilder sb = new StringBuilder();
        boolean additive = !s.future;
        sb.append(additive ? "-@all " : "+@all ");
        AclSelector fake = new AclSelector();
        allCommands(fake, !additive);
        AclSelector left = new AclSelector(); // the user's bits, less each category as it is described
        left.commands = (BitSet) s.commands.clone();
        boolean[] applied = new boolean[CommandSpec.CATEGORY_ORDER.size()];
        while (true) {
            int best = -1;
            long minWrong = Long.MAX_VALUE;
            long maxRight = 0;
            for (int j = 0; j < applied.length; j++) {
                if (applied[j]) continue;
                String category = CommandSpec.CATEGORY_ORDER.get(j);
                long on = 0;
                long off = 0;
                for (int id = 0; id < commands.size(); id++) {
                    if (!commands.get(id).aclCategories().contains(category)) continue;
                    if (left.commands.get(id)) on++;
                    else off++;
                }
                long wrong = additive ? off : on;
                long right = additive ? on : off;
                if (right > wrong && (wrong < minWrong || (wrong == minWrong && right > maxRight))) {
                    best = j;
                    minWrong = wrong;
                    maxRight = right;
                }
            }
            if (best < 0) break;
            String category = CommandSpec.CATEGORY_ORDER.get(best);
            category(fake, category, additive);
            category(left, category, !additive);
            sb.append(additive ? "+" : "-").append(category).append(' ');
            applied[best] = true;
        }
        for (CommandSpec spec : table.all()) {
            int id = ids.get(spec);
            boolean user = s.commands.get(id);
            if (user != fake.commands.get(id)) {
                sb.append(user ? '+' : '-').append(spec.fullName()).append(' ');
                changePerm(fake, spec, user);
            }
            for (CommandSpec sub : spec.subcommands().values()) {
                int sid = ids.get(sub);
                boolean subUser = s.commands.get(sid);
                if (subUser != fake.commands.get(sid)) {
                    sb.append(subUser ? '+' : '-').append(sub.fullName()).append(' ');
                    fake.commands.set(sid, subUser);
                }
            }
            if (!user && s.firstArgs.containsKey(id)) {
                for (String arg : s.firstArgs.get(id)) sb.append('+').append(spec.fullName()).append('|').append(arg).append(' ');
            }
        }
        return sb.toString().trim();
    }

    /** ACL GETUSER: flags, passwords, and per selector its commands, keys and channels. */
    public record UserView(List<String> flags, List<String> passwords, List<List<String>> selectors) {}

    /** ACL GETUSER's figures: the root selector first in {@code selectors}, each [commands, keys, channels]. */
    public UserView view(AclUser u) {
        List<String> flags = new ArrayList<>();
        flags.add(u.enabled ? "on" : "off");
        if (u.nopass) flags.add("nopass");
        if (u.skipSanitizePayload) flags.add("skip-sanitize-payload");
        if (u.sanitizePayload) flags.add("sanitize-payload");
        List<List<String>> sel = new ArrayList<>();
        sel.add(List.of(describeCommands(u.root), keysText(u.root), channelsText(u.root)));
        for (AclSelector s : u.selectors) sel.add(List.of(describeCommands(s), keysText(s), channelsText(s)));
        return new UserView(flags, new ArrayList<>(u.passwords), sel);
    }

    /** ACL CAT without a category: Redis's category names, in its order, without the '@'. */
    public static List<String> categories() {
        List<String> out = new ArrayList<>();
        for (String c : CommandSpec.CATEGORY_ORDER) out.add(c.substring(1));
        return out;
    }

    /** ACL CAT category: the commands and subcommands in it (full names); null for an unknown category. */
    public List<String> commandsIn(String category) {
        String c = "@" + category.toLowerCase(Locale.ROOT);
        if (!CommandSpec.CATEGORY_ORDER.contains(c)) return null;
        List<String> out = new ArrayList<>();
        for (CommandSpec spec : commands) if (spec.aclCategories().contains(c)) out.add(spec.fullName());
        return out;
    }

    // ------------------------------------------------------------------------------------------------- checks

    /** A key a command touches and what it needs of it (COMMAND GETKEYSANDFLAGS' flags). */
    public interface Keys {
        List<CommandSpec.KeyRef> of(CommandSpec spec, byte[][] argv);
    }

    /**
     * Why the command is refused (NONE when the user may run it) and, for a key or channel, which one: {@code subject},
     * at {@code position} among the command's keys or arguments.
     */
    public record Result(Denial denial, int position, byte[] subject) {
        static final Result OK = new Result(Denial.NONE, 0, null);
        static final Result COMMAND = new Result(Denial.CMD, 0, null);
    }

    /**
     * Redis's ACLCheckAllUserCommandPerm: allowed if any selector allows the command with all its keys and channels;
     * otherwise the most relevant refusal (command, then key, then channel).
     */
    public Result check(AclUser u, CommandSpec spec, byte[][] argv, Keys keys) {
        if (u.unrestricted()) return Result.OK;
        Result worst = Result.COMMAND;
        List<CommandSpec.KeyRef> found = null;
        for (int at = -1; at < u.selectors.size(); at++) {
            AclSelector s = at < 0 ? u.root : u.selectors.get(at);
            Denial d = Denial.NONE;
            int pos = 0;
            byte[] subject = null;
            if (!s.allCommands && !spec.has(CommandSpec.NO_AUTH) && !commandAllowed(s, spec, argv)) d = Denial.CMD;
            // The shard channels of SPUBLISH/SSUBSCRIBE/SUNSUBSCRIBE route like keys but are not keys (Redis's NOT_KEY).
            if (d == Denial.NONE && !s.allKeys && spec.hasKeys() && !spec.has(CommandSpec.PUBSUB)) {
                if (found == null) found = keys.of(spec, argv);
                for (int i = 0; i < found.size() && d == Denial.NONE; i++) {
                    if (!keyAllowed(s, found.get(i))) {
                        d = Denial.KEY;
                        pos = i + 1;
                        subject = found.get(i).key();
                    }
                }
            }
            if (d == Denial.NONE && !s.allChannels) {
                int channel = channelRefused(s, spec, argv);
                if (channel > 0) {
                    d = Denial.CHANNEL;
                    pos = channel;
                    subject = argv[channel];
                }
            }
            if (d == Denial.NONE) return Result.OK;
            if (d.ordinal() > worst.denial().ordinal() || (d == worst.denial() && pos > worst.position())) {
                worst = new Result(d, pos, subject);
            }
        }
        return worst;
    }

    private boolean commandAllowed(AclSelector s, CommandSpec spec, byte[][] argv) {
        Integer id = ids.get(spec);
        if (id == null) return false;
        if (s.commands.get(id)) return true;
        java.util.Set<String> args = s.firstArgs.get(id);
        return args != null && argv.length >= 2 && args.contains(new String(argv[1], StandardCharsets.UTF_8)
                .toLowerCase(Locale.ROOT));
    }

    /**
     * Redis's ACLSelectorCheckKey: a key read ("access") needs a readable pattern, one written ("insert", "delete",
     * "update") a writable one. A key with only the legacy RW/OW/RM flag (Tide's commands that declare no key spec
     * of their own) needs what Redis's specs of such commands mostly need: reading and writing for RW, writing for
     * OW and RM.
     */
    private static boolean keyAllowed(AclSelector s, CommandSpec.KeyRef k) {
        int need = 0;
        List<String> f = k.flags();
        if (f.contains("access")) need |= AclSelector.READ;
        if (f.contains("insert") || f.contains("delete") || f.contains("update")) need |= AclSelector.WRITE;
        if (need == 0) {
            if (f.contains("RW")) need = AclSelector.READ | AclSelector.WRITE;
            else if (f.contains("OW") || f.contains("RM")) need = AclSelector.WRITE;
        }
        for (AclSelector.KeyPattern p : s.keys) {
            if ((p.perms() & need) != need) continue;
            if (Glob.matches(p.bytes(), k.key(), false)) return true;
        }
        return false;
    }

    /** The 1-based position of the first channel argument the selector does not allow, or 0. */
    private static int channelRefused(AclSelector s, CommandSpec spec, byte[][] argv) {
        String name = spec.name();
        boolean pattern = name.equals("psubscribe");
        int from;
        int to;
        switch (name) {
            case "publish", "spublish" -> {
                from = 1;
                to = Math.min(2, argv.length);
            }
            case "subscribe", "ssubscribe", "psubscribe" -> {
                from = 1;
                to = argv.length;
            }
            default -> {
                return 0;
            }
        }
        for (int i = from; i < to; i++) {
            if (!channelAllowed(s, argv[i], pattern)) return i;
        }
        return 0;
    }

    /** Redis's ACLCheckChannelAgainstList: a pattern subscription must name one of the patterns exactly. */
    private static boolean channelAllowed(AclSelector s, byte[] channel, boolean isPattern) {
        for (String p : s.channels) {
            byte[] pb = p.getBytes(StandardCharsets.UTF_8);
            if (isPattern ? java.util.Arrays.equals(pb, channel) : Glob.matches(pb, channel, false)) return true;
        }
        return false;
    }
}
