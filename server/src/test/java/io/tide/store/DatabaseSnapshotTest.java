package io.tide.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The fork-less snapshot's invariant, checked against a model: whatever writes, deletions, expiries, resizes,
 * FLUSHDB and SWAPDB happen between the walk's steps, the image holds exactly the entries of the instant the
 * snapshot began, each once, with the value and expiry it had then.
 */
class DatabaseSnapshotTest {

    private static final long NOW = 1_700_000_000_000L;

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(Object v) {
        if (v instanceof RawString r) return new String(r.bytes(), StandardCharsets.UTF_8);
        return v instanceof byte[] a ? new String(a, StandardCharsets.UTF_8) : String.valueOf(v);
    }

    /** Collects an image; a key saved twice is a failure. */
    private static final class Image implements SnapshotSink {
        final Map<String, String> entries = new HashMap<>();
        int duplicates;

        @Override
        public void save(byte[] key, Object value, long expireAtMs) {
            String v = (value instanceof ListValue l ? "list" + l.size() : s(value)) + "@" + expireAtMs;
            if (entries.put(s(key), v) != null) duplicates++;
        }
    }

    private static Map<String, String> state(Database db) {
        Map<String, String> m = new HashMap<>();
        db.forEach((k, v) -> m.put(s(k), (v instanceof ListValue l ? "list" + l.size() : s(v)) + "@" + db.expireAt(k)));
        return m;
    }

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
    void image_isTheInstantOfBegin_whateverHappensDuringTheWalk(long seed) {
        Random rnd = new Random(seed);
        Database db = new Database(0);
        int n = 2000 + rnd.nextInt(3000);
        for (int i = 0; i < n; i++) {
            String v = "v" + i + "x".repeat(rnd.nextInt(60)); // embedded and not
            db.put(b("k" + i), b(v), rnd.nextInt(10) == 0 ? NOW + 100 + rnd.nextInt(1000) : 0, NOW);
        }
        // Some lists, changed in place during the walk.
        for (int i = 0; i < 50; i++) {
            ListValue l = new ListValue();
            l.pushAll(new byte[][] {b("a"), b("b")}, 0, false);
            db.put(b("list" + i), l, 0, NOW);
        }
        // And strings changed in place (APPEND, SETRANGE past 1 KB).
        for (int i = 0; i < 50; i++) db.put(b("raw" + i), RawString.copyOf(b("r".repeat(1100 + i))), 0, NOW);
        Map<String, String> expected = state(db);
        Image image = new Image();
        Database.Snapshot walk = db.beginSnapshot(image);
        int next = n;
        long now = NOW;
        boolean done = false;
        while (!done) {
            for (int w = 0; w < 20; w++) {
                int op = rnd.nextInt(10);
                String k = "k" + rnd.nextInt(next);
                switch (op) {
                    case 0, 1, 2 -> db.put(b(k), b("new" + rnd.nextInt(1000) + "y".repeat(rnd.nextInt(60))),
                            Database.KEEP_TTL, now);
                    case 3, 4 -> db.remove(b(k)); // backward shifts, and shrinking below 1/8 load
                    case 5 -> db.put(b("k" + next++), b("fresh"), 0, now); // growth: resizes mid-walk
                    case 6 -> db.setExpireAt(b(k), now + 5);
                    case 7 -> db.persist(b(k));
                    case 8 -> {
                        boolean list = rnd.nextBoolean();
                        byte[] key = b((list ? "list" : "raw") + rnd.nextInt(50));
                        Object v = db.getForWrite(key, now);
                        if (v instanceof ListValue l) {
                            l.pushAll(new byte[][] {b("c")}, 0, false);
                            db.modified(key, 0);
                        } else if (v instanceof RawString r) {
                            r.append(b("z"));
                            r.write(3, b("W"));
                            db.modified(key, 0);
                        }
                    }
                    default -> {
                        now += 50; // lazy expiry on access, and the active cycle
                        db.get(b(k), now);
                        db.activeExpireCycle(now, 20);
                    }
                }
            }
            db.rehashStep(5);
            done = walk.step(7);
        }
        assertThat(image.duplicates).isZero();
        assertThat(image.entries).isEqualTo(expected);
    }

    /** Deleting most keys mid-walk makes the compaction move the entries the walk has not reached yet. */
    @Test
    void entriesMovedByCompactionDuringTheWalk_areSavedOnce_asTheyWere() {
        Random rnd = new Random(9);
        Database db = new Database(0);
        for (int i = 0; i < 40_000; i++) {
            db.put(b("k" + i), b("v" + i + "x".repeat(rnd.nextInt(60))), i % 4 == 0 ? NOW + 1000 + i : 0, NOW);
        }
        Map<String, String> expected = state(db);
        Image image = new Image();
        Database.Snapshot walk = db.beginSnapshot(image);
        int i = 0;
        while (!walk.step(500)) {
            for (int d = 0; d < 4000 && i < 40_000; d++, i++) {
                if (i % 5 != 0) db.remove(b("k" + i));
            }
            db.rehashStep(1000);
        }
        assertThat(image.duplicates).isZero();
        assertThat(image.entries).isEqualTo(expected);
    }

    @Test
    void flushdbDuringTheWalk_keepsTheImage_andNewKeysStayOut() {
        Database db = new Database(0);
        for (int i = 0; i < 1000; i++) db.put(b("k" + i), b("v" + i), 0, NOW);
        Map<String, String> expected = state(db);
        Image image = new Image();
        Database.Snapshot walk = db.beginSnapshot(image);
        walk.step(100);
        db.clear();
        db.put(b("after"), b("flush"), 0, NOW);
        while (!walk.step(100)) db.put(b("more" + image.entries.size()), b("x"), 0, NOW);
        assertThat(image.entries).isEqualTo(expected);
    }

    @Test
    void swapdbDuringTheWalk_eachImageKeepsItsDatabase() {
        Database a = new Database(0);
        Database c = new Database(1);
        for (int i = 0; i < 500; i++) {
            a.put(b("a" + i), b("va" + i), 0, NOW);
            c.put(b("c" + i), b("vc" + i), 0, NOW);
        }
        Map<String, String> ea = state(a);
        Map<String, String> ec = state(c);
        Image ia = new Image();
        Image ic = new Image();
        Database.Snapshot wa = a.beginSnapshot(ia);
        Database.Snapshot wc = c.beginSnapshot(ic);
        wa.step(50);
        a.swapContents(c);
        // a now holds c's old entries: overwriting them must save them into c's image, not a's.
        for (int i = 0; i < 500; i++) {
            a.put(b("c" + i), b("changed"), 0, NOW);
            c.put(b("a" + i), b("changed"), 0, NOW);
        }
        while (!wa.step(64) | !wc.step(64)) {
            // both walk to the end
        }
        assertThat(ia.entries).isEqualTo(ea);
        assertThat(ic.entries).isEqualTo(ec);
    }

    @Test
    void aSecondSnapshot_afterTheFirst_seesEverythingAgain() {
        Database db = new Database(0);
        for (int i = 0; i < 300; i++) db.put(b("k" + i), b("v"), 0, NOW);
        Image first = new Image();
        Database.Snapshot w1 = db.beginSnapshot(first);
        while (!w1.step(10)) db.put(b("n" + first.entries.size()), b("x"), 0, NOW);
        Map<String, String> expected = state(db);
        Image second = new Image();
        Database.Snapshot w2 = db.beginSnapshot(second);
        while (!w2.step(10)) {
            // nothing changes
        }
        assertThat(second.entries).isEqualTo(expected);
    }
}
