package io.tide.persistence.aof;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The list of files that make up an AOF directory, in Redis 7's manifest format. Thread-safe (immutable: every
 * change returns a new manifest).
 *
 * <p>Each line is {@code file <name> seq <n> type <b|h|i>} (the name quoted as Redis's {@code sdscatrepr} does when
 * it needs it). Tide runs one incremental stream per shard and adds {@code shard <k>} to the lines of shards other
 * than 0; Redis 7's parser ignores keys it does not know, so a one-shard Tide directory is a Redis 7 directory, and a
 * Redis 7 directory (no shard keys) is one stream, shard 0's.
 *
 * <p>File naming, {@code <a>} being {@code appendfilename}: the base is {@code <a>.<seq>.base.rdb} (or
 * {@code .base.aof} without the RDB preamble); shard 0's incremental files are {@code <a>.<seq>.incr.aof}, exactly
 * Redis's, and shard k's are {@code <a>.<seq>.s<k>.incr.aof}. Incremental sequence numbers are allocated from one
 * counter for all shards, so they are unique and the incr lines, written in sequence order, stay strictly
 * increasing as Redis's parser requires.
 */
public final class AofManifest {

    /** A manifest line's {@code type}. */
    public enum Type {
        BASE('b'), HISTORY('h'), INCR('i');

        private final char code;

        Type(char code) {
            this.code = code;
        }

        public char code() {
            return code;
        }
    }

    /** One line of the manifest: a file of the AOF directory; {@code shard} is 0 for a base or a Redis line. */
    public record AofFile(String name, long seq, Type type, int shard) {}

    private static final int MAX_LINE = 1024;

    private final String appendfilename;
    private final AofFile base;
    private final List<AofFile> history;
    private final List<AofFile> incr;
    private final long baseSeq;
    private final long incrSeq;

    private AofManifest(String appendfilename, AofFile base, List<AofFile> history, List<AofFile> incr,
                        long baseSeq, long incrSeq) {
        this.appendfilename = appendfilename;
        this.base = base;
        this.history = List.copyOf(history);
        this.incr = List.copyOf(incr);
        this.baseSeq = baseSeq;
        this.incrSeq = incrSeq;
    }

    /** A manifest with no files, for a directory about to be created. */
    public static AofManifest empty(String appendfilename) {
        return new AofManifest(appendfilename, null, List.of(), List.of(), 0, 0);
    }

    /** {@code <appendfilename>.manifest}. */
    public static String manifestName(String appendfilename) {
        return appendfilename + ".manifest";
    }

    /**
     * Reads {@code <aofDir>/<appendfilename>.manifest}.
     *
     * @throws NoSuchFileException when there is no manifest
     * @throws AofException        when it is not a valid manifest (the message names the file and line)
     */
    public static AofManifest read(Path aofDir, String appendfilename) throws IOException {
        Path file = aofDir.resolve(manifestName(appendfilename));
        byte[] bytes = Files.readAllBytes(file);
        return parse(new String(bytes, StandardCharsets.ISO_8859_1), file.toString(), appendfilename);
    }

    /** Parses manifest text as Redis 7's {@code aofLoadManifestFromFile} does; {@code source} names it in errors. */
    public static AofManifest parse(String text, String source, String appendfilename) throws AofException {
        if (text.isEmpty()) throw new AofException(source + ": Found an empty AOF manifest");
        AofFile base = null;
        List<AofFile> history = new ArrayList<>();
        List<AofFile> incr = new ArrayList<>();
        long maxIncrSeq = 0;
        long maxSeenIncrSeq = 0;
        int lineNo = 0;
        int pos = 0;
        while (pos < text.length()) {
            int nl = text.indexOf('\n', pos);
            String raw = nl < 0 ? text.substring(pos) : text.substring(pos, nl + 1);
            pos = nl < 0 ? text.length() : nl + 1;
            lineNo++;
            if (raw.charAt(0) == '#') continue;
            String where = source + ":" + lineNo + ": ";
            if (raw.length() > MAX_LINE + 1 || raw.indexOf('\n') < 0) {
                throw new AofException(where + (raw.length() > MAX_LINE
                        ? "The AOF manifest file contains too long line"
                        : "Invalid AOF manifest file format (the last line has no newline)"));
            }
            String line = raw.strip();
            String invalid = where + "Invalid AOF manifest file format: '" + line + "'";
            List<String> words = splitArgs(line);
            if (line.isEmpty() || words == null || words.size() < 6 || words.size() % 2 != 0) {
                throw new AofException(invalid);
            }
            String name = null;
            long seq = 0;
            char type = 0;
            int shard = 0;
            for (int i = 0; i < words.size(); i += 2) {
                String key = words.get(i).toLowerCase(Locale.ROOT);
                String value = words.get(i + 1);
                switch (key) {
                    case "file" -> {
                        if (value.contains("/")) {
                            throw new AofException(where + "File can't be a path, just a filename: '" + value + "'");
                        }
                        name = value;
                    }
                    case "seq" -> seq = leadingLong(value);
                    case "type" -> type = value.isEmpty() ? 0 : value.charAt(0);
                    case "shard" -> {
                        long k = value.matches("[0-9]{1,5}") ? Long.parseLong(value) : -1;
                        if (k < 0 || k > 65535) throw new AofException(where + "Invalid shard number '" + value + "'");
                        shard = (int) k;
                    }
                    default -> { } // forward compatibility, as Redis
                }
            }
            if (name == null || name.isEmpty() || seq == 0 || type == 0) throw new AofException(invalid);
            switch (type) {
                case 'b' -> {
                    if (base != null) throw new AofException(where + "Found duplicate base file information");
                    base = new AofFile(name, seq, Type.BASE, 0);
                }
                case 'h' -> {
                    history.add(new AofFile(name, seq, Type.HISTORY, shard));
                    if (!name.contains(".base.")) maxSeenIncrSeq = Math.max(maxSeenIncrSeq, seq);
                }
                case 'i' -> {
                    if (seq <= maxIncrSeq) throw new AofException(where + "Found a non-monotonic sequence number");
                    incr.add(new AofFile(name, seq, Type.INCR, shard));
                    maxIncrSeq = seq;
                }
                default -> throw new AofException(where + "Unknown AOF file type '" + type + "'");
            }
        }
        long baseSeq = base == null ? 0 : base.seq();
        for (AofFile h : history) {
            if (h.name().contains(".base.")) baseSeq = Math.max(baseSeq, h.seq());
        }
        return new AofManifest(appendfilename, base, history, incr, baseSeq, Math.max(maxIncrSeq, maxSeenIncrSeq));
    }

    /** {@code atoll}: the leading decimal digits (with an optional sign), 0 when there are none. */
    private static long leadingLong(String s) {
        int i = 0;
        boolean negative = false;
        if (i < s.length() && (s.charAt(i) == '-' || s.charAt(i) == '+')) negative = s.charAt(i++) == '-';
        long n = 0;
        for (; i < s.length() && Character.isDigit(s.charAt(i)); i++) {
            n = n * 10 + (s.charAt(i) - '0');
            if (n < 0) return 0;
        }
        return negative ? -n : n;
    }

    public String appendfilename() {
        return appendfilename;
    }

    /** The base file, or null. */
    public AofFile base() {
        return base;
    }

    /** History files (to be deleted), in manifest order. */
    public List<AofFile> history() {
        return history;
    }

    /** Incremental files of every shard, in sequence order. */
    public List<AofFile> incr() {
        return incr;
    }

    /** Incremental files of one shard, in sequence order (the order they are replayed). */
    public List<AofFile> incr(int shard) {
        List<AofFile> out = new ArrayList<>();
        for (AofFile f : incr) {
            if (f.shard() == shard) out.add(f);
        }
        return out;
    }

    /** The shard's incremental file being appended to (its last one), or null. */
    public AofFile lastIncr(int shard) {
        AofFile last = null;
        for (AofFile f : incr) {
            if (f.shard() == shard) last = f;
        }
        return last;
    }

    /** One more than the highest shard number of an incremental file (0 when there are none). */
    public int shards() {
        int n = 0;
        for (AofFile f : incr) n = Math.max(n, f.shard() + 1);
        return n;
    }

    /** Whether the manifest names no base and no incremental file (Redis's "no AOF"). */
    public boolean isEmpty() {
        return base == null && incr.isEmpty();
    }

    /** The sequence number the next incremental file gets. */
    public long nextIncrSeq() {
        return incrSeq + 1;
    }

    /** The sequence number the next base file gets. */
    public long nextBaseSeq() {
        return baseSeq + 1;
    }

    /** The name an incremental file of {@code shard} with sequence {@code seq} gets. */
    public String incrName(long seq, int shard) {
        return shard == 0 ? appendfilename + "." + seq + ".incr.aof"
                : appendfilename + "." + seq + ".s" + shard + ".incr.aof";
    }

    /** With a new incremental file for {@code shard} appended (it becomes that shard's {@link #lastIncr}). */
    public AofManifest withNewIncr(int shard) {
        long seq = incrSeq + 1;
        List<AofFile> in = new ArrayList<>(incr);
        in.add(new AofFile(incrName(seq, shard), seq, Type.INCR, shard));
        return new AofManifest(appendfilename, base, history, in, baseSeq, seq);
    }

    /** With a new base file (RDB or commands); the previous base, if any, becomes history. */
    public AofManifest withNewBase(boolean rdbPreamble) {
        long seq = baseSeq + 1;
        List<AofFile> h = new ArrayList<>();
        if (base != null) h.add(new AofFile(base.name(), base.seq(), Type.HISTORY, 0));
        h.addAll(history);
        AofFile b = new AofFile(appendfilename + "." + seq + ".base." + (rdbPreamble ? "rdb" : "aof"), seq,
                Type.BASE, 0);
        return new AofManifest(appendfilename, b, h, incr, seq, incrSeq);
    }

    /**
     * After a rewrite: every incremental file but each shard's last becomes history (Redis's
     * {@code markRewrittenIncrAofAsHistory}, per shard). The last ones are those opened when the rewrite started.
     */
    public AofManifest withRewrittenIncrAsHistory() {
        List<AofFile> h = new ArrayList<>();
        List<AofFile> in = new ArrayList<>();
        for (AofFile f : incr) {
            if (f.equals(lastIncr(f.shard()))) {
                in.add(f);
            } else {
                h.add(new AofFile(f.name(), f.seq(), Type.HISTORY, f.shard()));
            }
        }
        h.addAll(history);
        return new AofManifest(appendfilename, base, h, in, baseSeq, incrSeq);
    }

    /** With the history lines dropped. */
    public AofManifest withoutHistory() {
        return new AofManifest(appendfilename, base, List.of(), incr, baseSeq, incrSeq);
    }

    /** The manifest as Redis writes it: the base first, then history, then incremental files. */
    public String text() {
        StringBuilder sb = new StringBuilder();
        if (base != null) line(sb, base);
        for (AofFile f : history) line(sb, f);
        for (AofFile f : incr) line(sb, f);
        return sb.toString();
    }

    private static void line(StringBuilder sb, AofFile f) {
        sb.append("file ").append(needsRepr(f.name()) ? repr(f.name()) : f.name())
                .append(" seq ").append(f.seq()).append(" type ").append(f.type().code());
        if (f.shard() != 0) sb.append(" shard ").append(f.shard());
        sb.append('\n');
    }

    /**
     * Writes the manifest into {@code aofDir} so that a crash leaves either the old one or this one: a temporary
     * file ({@code temp-<appendfilename>.manifest}) written and fsynced, renamed over the manifest, then the
     * directory fsynced. Called on whichever thread owns the AOF's layout (startup, or the rewrite's completion).
     */
    public void write(Path aofDir) throws IOException {
        Path target = aofDir.resolve(manifestName(appendfilename));
        Path temp = aofDir.resolve("temp-" + manifestName(appendfilename));
        ByteBuffer bytes = ByteBuffer.wrap(text().getBytes(StandardCharsets.ISO_8859_1));
        try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING)) {
            while (bytes.hasRemaining()) ch.write(bytes);
            ch.force(true);
        }
        try {
            Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            throw new AofException("can't rename " + temp + " over " + target + " atomically", e);
        }
        fsyncDirectory(aofDir);
    }

    /**
     * Deletes the history files named by this manifest, which must already be durable on disk, then writes and
     * returns the manifest without them (Redis's {@code aofDelHistoryFiles}). A file already gone is not an error.
     */
    public AofManifest deleteHistory(Path aofDir) throws IOException {
        if (history.isEmpty()) return this;
        for (AofFile f : history) Files.deleteIfExists(aofDir.resolve(f.name()));
        AofManifest without = withoutHistory();
        without.write(aofDir);
        return without;
    }

    /** Makes a directory's entries (new files, renames) durable. */
    static void fsyncDirectory(Path dir) throws IOException {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        }
    }

    /** Redis's {@code sdsneedsrepr}: quoting is needed for a backslash, quote, space or unprintable byte. */
    static boolean needsRepr(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' || c == '"' || c <= ' ' || c >= 0x7f) return true;
        }
        return false;
    }

    /** Redis's {@code sdscatrepr}. */
    static String repr(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '\\' -> sb.append("\\\\");
                case '"' -> sb.append("\\\"");
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                case '\u0007' -> sb.append("\\a");
                case '\b' -> sb.append("\\b");
                default -> {
                    if (c > ' ' && c < 0x7f || c == ' ') sb.append(c);
                    else sb.append(String.format("\\x%02x", (int) c & 0xff));
                }
            }
        }
        return sb.append('"').toString();
    }

    /** Redis's {@code sdssplitargs}: words, "double quoted" with escapes, or 'single quoted'; null if unbalanced. */
    static List<String> splitArgs(String line) {
        List<String> out = new ArrayList<>();
        int i = 0;
        int n = line.length();
        while (true) {
            while (i < n && Character.isWhitespace(line.charAt(i))) i++;
            if (i == n) return out;
            StringBuilder w = new StringBuilder();
            char q = line.charAt(i) == '"' || line.charAt(i) == '\'' ? line.charAt(i++) : 0;
            while (true) {
                if (q == 0) {
                    if (i == n || Character.isWhitespace(line.charAt(i))) break;
                    w.append(line.charAt(i++));
                } else {
                    if (i == n) return null;
                    char c = line.charAt(i);
                    if (c == q) {
                        i++;
                        if (i < n && !Character.isWhitespace(line.charAt(i))) return null;
                        break;
                    }
                    if (c == '\\' && i + 1 < n) {
                        char e = line.charAt(i + 1);
                        if (q == '\'') {
                            if (e == '\'') {
                                w.append('\'');
                                i += 2;
                                continue;
                            }
                        } else if (e == 'x' && i + 3 < n && isHex(line.charAt(i + 2)) && isHex(line.charAt(i + 3))) {
                            w.append((char) Integer.parseInt(line.substring(i + 2, i + 4), 16));
                            i += 4;
                            continue;
                        } else {
                            w.append(switch (e) {
                                case 'n' -> '\n';
                                case 'r' -> '\r';
                                case 't' -> '\t';
                                case 'b' -> '\b';
                                case 'a' -> '\u0007';
                                default -> e;
                            });
                            i += 2;
                            continue;
                        }
                    }
                    w.append(c);
                    i++;
                }
            }
            out.add(w.toString());
        }
    }

    private static boolean isHex(char c) {
        return Character.digit(c, 16) >= 0;
    }

    @Override
    public String toString() {
        return text();
    }
}
