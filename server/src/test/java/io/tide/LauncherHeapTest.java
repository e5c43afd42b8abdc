package io.tide;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * bin/tide-server's heap rule (docs/decisions/0009): with maxmemory set by the config file or an option and no -Xmx
 * in TIDE_JAVA_OPTS, -Xmx = maxmemory / 0.7 + 32 MiB, told in one line; otherwise the JVM's default or the user's.
 * Runs the launcher with TIDE_LAUNCHER_DRY_RUN, which prints the heap flags instead of starting the JVM.
 */
class LauncherHeapTest {

    @TempDir
    Path dir;

    /** stdout and stderr of a dry run with {@code args} (and TIDE_JAVA_OPTS when not null). */
    private String[] dryRun(String javaOpts, String... args) throws IOException, InterruptedException {
        Path script = Path.of("..", "bin", "tide-server").toAbsolutePath().normalize();
        Path jar = Files.writeString(dir.resolve("fake.jar"), "");
        List<String> cmd = new ArrayList<>(List.of("bash", script.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        pb.environment().put("TIDE_JAR", jar.toString());
        pb.environment().put("TIDE_LAUNCHER_DRY_RUN", "1");
        pb.environment().remove("TIDE_JAVA_OPTS");
        if (javaOpts != null) pb.environment().put("TIDE_JAVA_OPTS", javaOpts);
        pb.redirectError(dir.resolve("err").toFile()).redirectOutput(dir.resolve("out").toFile());
        Process p = pb.start();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        return new String[] {Files.readString(dir.resolve("out"), StandardCharsets.UTF_8).strip(),
            Files.readString(dir.resolve("err"), StandardCharsets.UTF_8).strip()};
    }

    @Test
    void maxmemory_sizesTheHeap_fromTheFileOrAnOption_andSaysWhy() throws Exception {
        Path conf = Files.writeString(dir.resolve("tide.conf"), "port 7000\nmaxmemory 100mb\n");
        String[] r = dryRun(null, conf.toString());
        assertThat(r[0]).isEqualTo("-Xmx175m"); // 100 MiB / 0.7 = 142.9 -> 143, + 32
        assertThat(r[1]).isEqualTo("tide: maxmemory 100mb (" + conf + "): -Xmx175m = maxmemory / 0.7 + 32m young "
                + "generation (TIDE_JAVA_OPTS=-Xmx... overrides)");
        assertThat(dryRun(null, conf.toString(), "--maxmemory", "1gb")[0]).isEqualTo("-Xmx1495m");
        assertThat(dryRun(null, "--maxmemory", "2G")[0]).isEqualTo("-Xmx2757m");
        assertThat(dryRun(null, "--maxmemory", "1000000")[0]).isEqualTo("-Xmx34m");
    }

    @Test
    void noMaxmemory_orAnExplicitXmx_leavesTheHeapAlone() throws Exception {
        assertThat(dryRun(null, "--port", "7000")).containsExactly("", "");
        assertThat(dryRun(null, "--maxmemory", "0")).containsExactly("", "");
        String[] r = dryRun("-Xss1m -Xmx1g", "--maxmemory", "100mb");
        assertThat(r[0]).isEmpty();
        assertThat(r[1]).isEqualTo("tide: maxmemory 100mb (--maxmemory); keeping the -Xmx of TIDE_JAVA_OPTS");
    }
}
