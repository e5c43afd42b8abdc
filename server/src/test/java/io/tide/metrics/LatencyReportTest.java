package io.tide.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * LATENCY GRAPH and LATENCY DOCTOR's text for fixed samples, against what redis-server 7.0.15 answered for the same
 * samples (the fixture {@code latency-redis-7.0.15.txt}: 95 samples of 1-139 ms, a second apart, so the graph has
 * two blocks and both second and minute labels).
 */
class LatencyReportTest {

    /** The fixture: its 'now', all time high, samples, and Redis's graph and doctor texts. */
    private record Fixture(long now, long max, List<long[]> samples, String graph, String doctor) {}

    private static Fixture fixture() throws IOException {
        String text;
        try (InputStream in = LatencyReportTest.class.getResourceAsStream("latency-redis-7.0.15.txt")) {
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        int graphAt = text.indexOf("\ngraph\n") + "\ngraph\n".length();
        int doctorAt = text.indexOf("\ndoctor\n", graphAt);
        long now = 0;
        long max = 0;
        List<long[]> samples = new ArrayList<>();
        for (String line : text.substring(0, graphAt).split("\n")) {
            String[] w = line.split(" ");
            switch (w[0]) {
                case "now" -> now = Long.parseLong(w[1]);
                case "max" -> max = Long.parseLong(w[1]);
                case "sample" -> samples.add(new long[] {Long.parseLong(w[1]), Long.parseLong(w[2])});
                default -> { }
            }
        }
        return new Fixture(now, max, samples, text.substring(graphAt, doctorAt + 1),
                text.substring(doctorAt + "\ndoctor\n".length()));
    }

    private static LatencyMonitor.Series series(List<long[]> samples) {
        LatencyMonitor m = new LatencyMonitor(1);
        for (long[] s : samples) m.add("command", s[1], s[0]);
        return m.snapshot().get("command");
    }

    @Test
    void graph_isRedisGraphForTheSameSamples() throws IOException {
        Fixture f = fixture();
        assertThat(f.samples()).hasSize(95);
        LatencyMonitor.Series s = series(f.samples());
        assertThat(s.max()).isEqualTo(f.max());
        assertThat(LatencyGraph.render("command", s, f.now())).isEqualTo(f.graph());
    }

    @Test
    void graph_ofOneSample_isABottomLineAndItsAge() {
        LatencyMonitor m = new LatencyMonitor(1);
        m.add("gc-pause", 17, 1000);
        assertThat(LatencyGraph.render("gc-pause", m.snapshot().get("gc-pause"), 1000)).isEqualTo("""
                gc-pause - high 17 ms, low 17 ms (all time high 17 ms)
                --------------------------------------------------------------------------------
                \s
                \s
                \s
                _
                \s
                0
                s
                """);
    }

    @Test
    void graph_labelsAgesInSecondsMinutesHoursAndDays() {
        LatencyMonitor m = new LatencyMonitor(1);
        long now = 1_000_000;
        m.add("command", 1, now - 2 * 86400);
        m.add("command", 2, now - 3 * 3600);
        m.add("command", 3, now - 125);
        m.add("command", 4, now - 59);
        String graph = LatencyGraph.render("command", m.snapshot().get("command"), now);
        List<String> rows = graph.lines().toList();
        assertThat(rows.subList(2, 6)).containsExactly("   #", "  #|", " o||", "_|||");
        assertThat(rows.subList(6, rows.size())).containsExactly("    ", "2325", "dhm9", "   s");
    }

    @Test
    void doctor_figuresAndSharedAdviceAreRedis() throws IOException {
        Fixture f = fixture();
        Map<String, LatencyMonitor.Series> events = new LinkedHashMap<>();
        events.put("command", series(f.samples()));
        String ours = LatencyDoctor.report(events, new LatencyDoctor.Settings(1, 10000, 10, false), f.now());
        List<String> redis = f.doctor().lines().toList();
        List<String> tide = ours.lines().toList();
        // Greeting, the event's figures, the advice heading and the slow log advice: Redis's text.
        assertThat(tide.subList(0, 8)).isEqualTo(redis.subList(0, 8));
        // Redis's last advice is about deleting large objects, which is O(1) here: Tide says so instead.
        assertThat(redis.get(8)).startsWith("- Deleting, expiring or evicting");
        assertThat(tide.get(8)).startsWith("- Commands that walk every element of a large object");
        assertThat(tide).hasSize(9);
        assertThat(ours).endsWith("\n");
    }

    @Test
    void doctor_emptyStates() {
        Map<String, LatencyMonitor.Series> none = Map.of();
        assertThat(LatencyDoctor.report(none, new LatencyDoctor.Settings(0, 10000, 10, false), 1))
                .isEqualTo(LatencyDoctor.DISABLED).startsWith("I'm sorry, Dave, I can't do that.");
        assertThat(LatencyDoctor.report(none, new LatencyDoctor.Settings(5, 10000, 10, false), 1))
                .isEqualTo(LatencyDoctor.NO_SPIKE).startsWith("Dave, no latency spike was observed");
    }

    @Test
    void doctor_adviceFollowsTheSettings() {
        LatencyMonitor m = new LatencyMonitor(1);
        for (String e : List.of("command", "aof-fsync-always", "expire-cycle")) m.add(e, 20, 100);
        Map<String, LatencyMonitor.Series> events = m.snapshot();
        // Monitoring switched off since: the events are still reported.
        String off = LatencyDoctor.report(events, new LatencyDoctor.Settings(0, -1, 100, false), 100);
        assertThat(off).contains("1. command: 1 latency spikes (average 20ms, mean deviation 0ms, period 1.00 sec)."
                + " Worst all time event 20ms.\n2. aof-fsync-always: ").contains("3. expire-cycle: ")
                .contains("Try to enable the Slow Log Redis feature using the command 'CONFIG SET"
                        + " slowlog-log-slower-than 0'")
                .doesNotContain("'hz'").doesNotContain("'always'").contains("add some randomness to the TTLs");
        String on = LatencyDoctor.report(events, new LatencyDoctor.Settings(20, 20000, 10, true), 100);
        assertThat(on).doesNotContain("Slow Log configuration").doesNotContain("enable the Slow Log")
                .contains("'CONFIG SET hz 100'").contains("relax the fsync policy to 'everysec'");
        assertThat(LatencyDoctor.report(events, new LatencyDoctor.Settings(5, 20000, 10, true), 100))
                .contains("Please use 'CONFIG SET slowlog-log-slower-than 5000'.");
    }

    @Test
    void doctor_tideEventsGetTheirAdvice() {
        LatencyMonitor m = new LatencyMonitor(1);
        m.add("coordinator-park", 30, 95);
        m.add("gc-pause", 12, 90);
        m.add("gc-pause", 40, 99);
        m.add("nosuch-event", 5, 99);
        String report = LatencyDoctor.report(m.snapshot(), new LatencyDoctor.Settings(1, 10000, 10, false), 100);
        assertThat(report).contains("2. gc-pause: 2 latency spikes (average 26ms, mean deviation 14ms, period 5.00 sec)."
                + " Worst all time event 40ms.")
                .contains("park every shard they involve").contains("hash tag")
                .contains("garbage collector").contains("docs/decisions/0003-jvm-flags.md");
        // Only an event without advice: Redis's 'no easy fix'.
        m.reset(List.of());
        m.add("nosuch-event", 5, 99);
        assertThat(LatencyDoctor.report(m.snapshot(), new LatencyDoctor.Settings(1, 10000, 10, false), 100))
                .endsWith("\nWhile there are latency events logged, I'm not able to suggest any easy fix. Please use"
                        + " the Redis community to get some help, providing this report in your help request.\n");
    }

    @Test
    void doctor_periodRoundsAsCPrintf() {
        LatencyMonitor m = new LatencyMonitor(1);
        for (int i = 0; i < 8; i++) m.add("command", 3, 100 + i); // 1 s over 8 samples: 0.125, a tie, to even
        assertThat(LatencyDoctor.figures(m.snapshot().get("command"), 101)).contains("period 0.12 sec");
        assertThat(LatencyDoctor.figures(m.snapshot().get("command"), 100 + 3)).contains("period 0.38 sec");
    }
}
