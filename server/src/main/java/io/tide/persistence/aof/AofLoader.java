package io.tide.persistence.aof;

import io.tide.persistence.aof.AofManifest.AofFile;
import io.tide.persistence.aof.LoadPlan.BaseFormat;
import io.tide.persistence.aof.LoadPlan.Cut;
import io.tide.persistence.aof.LoadPlan.Segment;
import java.io.IOException;
import java.io.InputStream;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks an AOF directory and decides what startup loads. Thread-safe (stateless); a load runs on the calling
 * thread, before the server serves.
 *
 * <p>It scans every file once without materialising commands, then decides the cuts, then applies them to the files
 * (so appends continue cleanly) and returns a {@link LoadPlan} that replays the rest. Rules, Redis's where Redis has
 * them:
 * <ul>
 *   <li>A stream's last file may end torn (an incomplete command, a MULTI without EXEC, a #TIDE-GROUP part without
 *       its EXEC): with {@code aof-load-truncated yes} it is cut back to its last complete command or transaction,
 *       with a WARN line naming the file and offset; with {@code no} the load fails. A torn file that is not its
 *       stream's last (the base counts as the first file of every stream) is corruption.</li>
 *   <li>Bytes that are not RESP commands or '#' annotation lines fail the load, naming the file and offset.</li>
 *   <li>Cross-shard groups: a {@code #TIDE-GROUP:<seq>:<parts>} group is complete when {@code parts} shards have a
 *       complete part of it. Each shard's stream is cut at its first part of an incomplete group (that part and
 *       everything after it on that shard go), and this repeats until no incomplete group has a part left, since a
 *       cut can remove a part of another group. This too needs {@code aof-load-truncated yes}.</li>
 * </ul>
 */
public final class AofLoader {

    private static final Logger log = LoggerFactory.getLogger(AofLoader.class);
    private static final int SCAN_BUFFER = 1 << 20;

    private AofLoader() {}

    /**
     * Loads the plan for {@code dir/appenddirname}; empty when the directory or its manifest does not exist, or the
     * manifest lists no file (Redis's "no AOF").
     *
     * @throws AofException when the manifest or a file is unusable, or a cut is needed and
     *                      {@code loadTruncated} is false
     */
    public static Optional<LoadPlan> load(Path dir, String appenddirname, String appendfilename,
                                          boolean loadTruncated) throws IOException {
        Path aofDir = dir.resolve(appenddirname);
        Path manifestFile = aofDir.resolve(AofManifest.manifestName(appendfilename));
        if (!Files.isDirectory(aofDir) || !Files.exists(manifestFile)) {
            if (Files.exists(dir.resolve(appendfilename))) {
                throw new AofException("Found an old-style AOF file " + dir.resolve(appendfilename) + " but no "
                        + manifestFile + ": upgrading a Redis 6 AOF is not supported yet");
            }
            return Optional.empty();
        }
        AofManifest manifest;
        try {
            manifest = AofManifest.read(aofDir, appendfilename);
        } catch (AofException e) {
            throw e;
        } catch (IOException e) {
            throw new AofException("Can't read the AOF manifest " + manifestFile + ": " + e, e);
        }
        if (manifest.isEmpty()) return Optional.empty();
        for (AofFile f : allFiles(manifest)) {
            if (!Files.isRegularFile(aofDir.resolve(f.name()))) {
                throw new AofException("The AOF file " + aofDir.resolve(f.name()) + " listed in " + manifestFile
                        + " does not exist");
            }
        }
        return Optional.of(new AofLoader.Planning(aofDir, manifest, loadTruncated).plan());
    }

    private static List<AofFile> allFiles(AofManifest m) {
        List<AofFile> out = new ArrayList<>();
        if (m.base() != null) out.add(m.base());
        out.addAll(m.incr());
        return out;
    }

    /** One shard's part of a group, where it lies in its stream. */
    private record Part(long seq, int parts, int shard, int file, long start, long end, long commandsBefore) {}

    /** A file's scan: its usable length, whether torn, its commands and group parts. */
    private static final class FileScan {
        long length;
        long size;
        boolean torn;
        String tornReason;
        long commands;
        final List<Part> parts = new ArrayList<>();
    }

    /** One load's working state. Confined to the loading thread. */
    private static final class Planning {
        private final Path aofDir;
        private final AofManifest manifest;
        private final boolean loadTruncated;
        private final List<Cut> cuts = new ArrayList<>();

        Planning(Path aofDir, AofManifest manifest, boolean loadTruncated) {
            this.aofDir = aofDir;
            this.manifest = manifest;
            this.loadTruncated = loadTruncated;
        }

        LoadPlan plan() throws IOException {
            int shards = Math.max(1, manifest.shards());
            Path baseFile = manifest.base() == null ? null : aofDir.resolve(manifest.base().name());
            BaseFormat baseFormat = baseFile == null ? null : sniff(baseFile);
            Segment baseSegment = null;
            long baseCommands = 0;
            Map<Path, Long> truncations = new LinkedHashMap<>();
            if (baseFormat == BaseFormat.AOF) {
                FileScan s = scan(baseFile, -1, 0, 0);
                if (s.torn) {
                    if (!manifest.incr().isEmpty()) throw notLast(baseFile, s);
                    tailCut(-1, baseFile, s, truncations);
                }
                baseSegment = new Segment(baseFile, s.length);
                baseCommands = s.commands;
            }

            // Scan every stream; a torn tail is allowed on its last file only.
            List<List<Path>> files = new ArrayList<>();
            List<List<FileScan>> scans = new ArrayList<>();
            for (int shard = 0; shard < shards; shard++) {
                List<Path> paths = new ArrayList<>();
                List<FileScan> fs = new ArrayList<>();
                long before = 0;
                List<AofFile> incr = manifest.incr(shard);
                for (int i = 0; i < incr.size(); i++) {
                    Path p = aofDir.resolve(incr.get(i).name());
                    FileScan s = scan(p, shard, i, before);
                    before += s.commands;
                    if (s.torn) {
                        if (i != incr.size() - 1) throw notLast(p, s);
                        tailCut(shard, p, s, truncations);
                    }
                    paths.add(p);
                    fs.add(s);
                }
                files.add(paths);
                scans.add(fs);
            }

            // Cross-shard groups: cut each stream at its first part of an incomplete group, until none is left.
            long[] cutFile = new long[shards];
            long[] cutOffset = new long[shards];
            long[] commands = new long[shards];
            String[] cutWhy = new String[shards];
            Map<Long, List<Part>> groups = new HashMap<>();
            for (int shard = 0; shard < shards; shard++) {
                List<FileScan> fs = scans.get(shard);
                cutFile[shard] = fs.size() - 1;
                cutOffset[shard] = fs.isEmpty() ? 0 : fs.getLast().length;
                for (FileScan s : fs) {
                    commands[shard] += s.commands;
                    for (Part p : s.parts) groups.computeIfAbsent(p.seq(), k -> new ArrayList<>()).add(p);
                }
            }
            boolean changed = true;
            while (changed) {
                changed = false;
                for (List<Part> group : groups.values()) {
                    boolean[] present = new boolean[shards];
                    int count = 0;
                    int parts = group.getFirst().parts();
                    for (Part p : group) {
                        if (kept(p, cutFile, cutOffset) && !present[p.shard()]) {
                            present[p.shard()] = true;
                            count++;
                        }
                    }
                    if (count == 0 || count >= parts) continue;
                    for (Part p : group) {
                        if (!kept(p, cutFile, cutOffset)) continue;
                        cutFile[p.shard()] = p.file();
                        cutOffset[p.shard()] = p.start();
                        commands[p.shard()] = p.commandsBefore();
                        cutWhy[p.shard()] = "incomplete cross-shard group #TIDE-GROUP:" + p.seq() + ":" + parts
                                + " (" + count + " of " + parts + " parts present)";
                        changed = true;
                    }
                }
            }
            List<List<Segment>> streams = new ArrayList<>();
            for (int shard = 0; shard < shards; shard++) {
                List<Segment> segs = new ArrayList<>();
                List<FileScan> fs = scans.get(shard);
                for (int i = 0; i < fs.size(); i++) {
                    Path p = files.get(shard).get(i);
                    long len = i < cutFile[shard] ? fs.get(i).length : i == cutFile[shard] ? cutOffset[shard] : 0;
                    if (len < fs.get(i).length) {
                        cuts.add(new Cut(shard, p, len, fs.get(i).length - len, cutWhy[shard]));
                        truncations.put(p, len);
                    }
                    segs.add(new Segment(p, len));
                }
                streams.add(segs);
            }

            if (!cuts.isEmpty() && !loadTruncated) {
                Cut c = cuts.getFirst();
                throw new AofException("Unexpected end of file reading the append only file " + c.file()
                        + " (" + c.reason() + " at offset " + c.offset() + "). You can: 1) Make a backup of your AOF"
                        + " file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set"
                        + " the 'aof-load-truncated' configuration option to yes and restart the server.");
            }
            for (Cut c : cuts) {
                log.warn("!!! Truncating the AOF {} at offset {} ({} bytes dropped): {} !!!", c.file(), c.offset(),
                        c.bytesDropped(), c.reason());
            }
            for (Map.Entry<Path, Long> t : truncations.entrySet()) truncate(t.getKey(), t.getValue());
            if (!cuts.isEmpty()) log.warn("AOF loaded anyway because aof-load-truncated is enabled");
            return new LoadPlan(aofDir, manifest, baseFile, baseFormat, baseSegment, baseCommands, streams, commands,
                    cuts);
        }

        private static boolean kept(Part p, long[] cutFile, long[] cutOffset) {
            int s = p.shard();
            return p.file() < cutFile[s] || p.file() == cutFile[s] && p.end() <= cutOffset[s];
        }

        private void tailCut(int shard, Path p, FileScan s, Map<Path, Long> truncations) {
            cuts.add(new Cut(shard, p, s.length, s.size - s.length, s.tornReason));
            truncations.put(p, s.length);
        }

        private static AofException notLast(Path p, FileScan s) {
            return new AofException("Fatal error: the truncated file is not the last file: " + p + " is torn at offset "
                    + s.length + " (" + s.tornReason + ")");
        }

        private static void truncate(Path p, long length) throws IOException {
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.WRITE)) {
                if (ch.size() > length) {
                    ch.truncate(length);
                    ch.force(true);
                }
            } catch (IOException e) {
                throw new AofException("Error truncating the AOF file " + p + ": " + e, e);
            }
        }

        private static BaseFormat sniff(Path file) throws IOException {
            byte[] magic = new byte[5];
            int n;
            try (InputStream in = Files.newInputStream(file)) {
                n = in.readNBytes(magic, 0, 5);
            }
            return n == 5 && Arrays.equals(magic, "REDIS".getBytes(java.nio.charset.StandardCharsets.US_ASCII))
                    ? BaseFormat.RDB : BaseFormat.AOF;
        }

        /** Scans one file of {@code shard} (-1: the base); {@code commandsBefore} counts the stream's commands in earlier files. */
        private static FileScan scan(Path p, int shard, int fileIndex, long commandsBefore) throws IOException {
            FileScan out = new FileScan();
            out.size = Files.size(p);
            try (AofFileReader r = new AofFileReader(p, Long.MAX_VALUE, false, SCAN_BUFFER)) {
                long valid = 0;
                long committed = 0;
                boolean inMulti = false;
                long multiCommands = 0;
                boolean marker = false;
                long markerSeq = 0;
                int markerParts = 0;
                long markerStart = 0;
                long committedAtMarker = 0;
                while (true) {
                    int kind = r.next();
                    if (kind == AofFileReader.ANNOTATION) {
                        if (r.group) {
                            if (marker || inMulti) throw r.corrupt(r.start, "#TIDE-GROUP not followed by MULTI");
                            marker = true;
                            markerSeq = r.groupSeq;
                            markerParts = r.groupParts;
                            markerStart = r.start;
                            committedAtMarker = committed;
                        }
                        // As Redis: an annotation alone does not move the last valid offset.
                    } else if (kind == AofFileReader.COMMAND) {
                        if (marker && !inMulti && r.name != AofFileReader.MULTI) {
                            throw r.corrupt(markerStart, "#TIDE-GROUP not followed by MULTI");
                        }
                        switch (r.name) {
                            case AofFileReader.MULTI -> {
                                if (inMulti) throw r.corrupt(r.start, "MULTI inside MULTI");
                                inMulti = true;
                                multiCommands = 0;
                            }
                            case AofFileReader.EXEC -> {
                                if (!inMulti) throw r.corrupt(r.start, "EXEC without MULTI");
                                inMulti = false;
                                committed += multiCommands;
                                if (marker) {
                                    out.parts.add(new Part(markerSeq, markerParts, shard, fileIndex, markerStart,
                                            r.endOffset, commandsBefore + committedAtMarker));
                                    marker = false;
                                }
                                valid = r.endOffset;
                            }
                            case AofFileReader.SELECT -> {
                                if (!inMulti) valid = r.endOffset;
                            }
                            default -> {
                                if (inMulti) {
                                    multiCommands++;
                                } else {
                                    committed++;
                                    valid = r.endOffset;
                                }
                            }
                        }
                    } else {
                        boolean open = inMulti || marker;
                        if (kind == AofFileReader.TORN || open) {
                            out.torn = true;
                            out.tornReason = marker ? "incomplete #TIDE-GROUP part"
                                    : inMulti ? "incomplete MULTI/EXEC transaction"
                                    : "incomplete command (short read)";
                        }
                        out.length = out.torn ? valid : r.end();
                        out.commands = committed;
                        return out;
                    }
                }
            }
        }
    }
}
