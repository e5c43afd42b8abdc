package io.tide.config;

import io.tide.config.LaunchOptions.Action;
import io.tide.config.LaunchOptions.Launch;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class LaunchOptionsTest {

    @TempDir
    Path tmp;

    private static Launch parse(String... args) {
        return LaunchOptions.parse(args, "1.2.3");
    }

    @Test
    void noArguments_runsWithDefaults() {
        Launch l = parse();
        assertThat(l.action()).isEqualTo(Action.RUN);
        assertThat(l.exitCode()).isZero();
        assertThat(l.message()).isNull();
        assertThat(l.config().getInt("port")).isEqualTo(6379);
        assertThat(l.config().get("profile")).isEqualTo("standalone");
        assertThat(l.profileSetOptions()).containsExactly("save");
        assertThat(l.config().get("save")).isEqualTo("3600 1 300 100 60 10000");
        assertThat(l.config().configFile()).isNull();
    }

    @Test
    void commandLine_overridesConfigFile() throws Exception {
        Path file = Files.writeString(tmp.resolve("redis.conf"), "port 7000\nhz 50\nmaxclients 10\n");
        Launch l = parse(file.toString(), "--port", "7001", "--maxclients=20", "--bind", "10.0.0.1", "::1",
                "--timeout", "0", "--PROTO-MAX-BULK-LEN", "2mb");
        assertThat(l.action()).isEqualTo(Action.RUN);
        assertThat(l.config().getInt("port")).isEqualTo(7001);
        assertThat(l.config().getInt("hz")).isEqualTo(50);
        assertThat(l.config().getLong("maxclients")).isEqualTo(20);
        assertThat(l.config().get("bind")).isEqualTo("10.0.0.1 ::1");
        assertThat(l.config().get("proto-max-bulk-len")).isEqualTo("2097152");
        assertThat(l.config().configFile()).isEqualTo(file);
    }

    @Test
    void repeatedOption_lastWins() {
        assertThat(parse("--port", "1", "--port", "2").config().getInt("port")).isEqualTo(2);
    }

    @Test
    void optionsInAnyCase_andAnOptionNameWhereAValueWasDue() {
        // Names in any case, with =value, and an option's name standing where a value was due.
        Launch l = parse("--SAVE", "900", "1", "--Port=0", "--MAXMEMORY-policy", "allkeys-lru");
        assertThat(l.action()).isEqualTo(Action.RUN);
        assertThat(l.config().get("save")).isEqualTo("900 1");
        assertThat(l.config().getInt("port")).isZero();
        assertThat(l.config().get("maxmemory-policy")).isEqualTo("allkeys-lru");
        assertThat(parse("--requirepass", "--port", "1").message()).isEqualTo("tide: missing value for --requirepass");
    }

    @Test
    void multiWordValues_takeSeveralArguments_asRedisServerDoes() {
        assertThat(parse("--replicaof", "127.0.0.1", "6380", "--port", "0").config().get("replicaof"))
                .isEqualTo("127.0.0.1 6380");
        assertThat(parse("--slaveof", "127.0.0.1 6381").config().get("replicaof")).isEqualTo("127.0.0.1 6381");
        assertThat(parse("--maxmemory-protect-prefix", "lock:", "session:", "--port", "0").config()
                .get("maxmemory-protect-prefix")).isEqualTo("lock: session:");
        assertThat(parse("--replicaof", "127.0.0.1").message())
                .isEqualTo("tide: invalid value for --replicaof: '127.0.0.1' (wrong number of arguments)");
    }

    @Test
    void emptyValues_areAccepted() {
        Launch l = parse("--requirepass", "", "--save", "");
        assertThat(l.action()).isEqualTo(Action.RUN);
        assertThat(l.config().get("requirepass")).isEmpty();
    }

    @Test
    void help_listsEveryOptionWithItsDefault() {
        Launch l = parse("--help");
        assertThat(l.action()).isEqualTo(Action.HELP);
        assertThat(l.exitCode()).isZero();
        String help = l.message();
        assertThat(help).contains("tide-server [config-file]", "--check-config", "--version", "--help");
        for (ConfigParam p : ConfigRegistry.standard().params()) {
            assertThat(help).contains("--" + p.name() + "=");
            String shown = p.defaultValue().isEmpty() ? "\"\"" : p.defaultValue();
            assertThat(help).as(p.name()).contains("Default: " + shown);
        }
        assertThat(help).contains("Default: 512mb", "Default: 6379", "Default: everysec");
        assertThat(parse("-h").action()).isEqualTo(Action.HELP);
    }

    @Test
    void version() {
        Launch l = parse("--version");
        assertThat(l.action()).isEqualTo(Action.VERSION);
        assertThat(l.exitCode()).isZero();
        assertThat(l.message()).startsWith("Tide server v=1.2.3");
        assertThat(parse("-v").action()).isEqualTo(Action.VERSION);
    }

    @Test
    void unknownOption_exits2() {
        Launch l = parse("--bogus", "1");
        assertThat(l.action()).isEqualTo(Action.ERROR);
        assertThat(l.exitCode()).isEqualTo(2);
        assertThat(l.message()).isEqualTo("tide: unknown option '--bogus'");
        assertThat(parse("--bogus=1").message()).isEqualTo("tide: unknown option '--bogus'");
        assertThat(parse("a.conf", "b.conf").message()).isEqualTo("tide: unexpected argument 'b.conf'");
    }

    @Test
    void badValue_exits2WithReason() {
        Launch l = parse("--port", "x");
        assertThat(l.exitCode()).isEqualTo(2);
        assertThat(l.message())
                .isEqualTo("tide: invalid value for --port: 'x' (argument couldn't be parsed into an integer)");
        assertThat(parse("--timeout", "-1").message())
                .isEqualTo("tide: invalid value for --timeout: '-1' (argument must be between 0 and 2147483647 inclusive)");
        assertThat(parse("--loglevel", "loud").message()).isEqualTo("tide: invalid value for --loglevel: 'loud' "
                + "(argument(s) must be one of the following: debug, verbose, notice, warning, nothing)");
        assertThat(parse("--port").message()).isEqualTo("tide: missing value for --port");
    }

    @Test
    void unknownProfile_exits2() {
        Launch l = parse("--profile", "bogus");
        assertThat(l.action()).isEqualTo(Action.ERROR);
        assertThat(l.exitCode()).isEqualTo(2);
        assertThat(l.message()).isEqualTo("tide: unknown --profile 'bogus' (supported: standalone)");
    }

    @Test
    void profileFromFile_isCheckedToo() throws Exception {
        Path file = Files.writeString(tmp.resolve("p.conf"), "profile cluster\n");
        assertThat(parse(file.toString()).message())
                .isEqualTo("tide: unknown --profile 'cluster' (supported: standalone)");
        // Every line of the file is validated even when the command line overrides it.
        assertThat(parse(file.toString(), "--profile", "standalone").exitCode()).isEqualTo(2);
        Path ok = Files.writeString(tmp.resolve("ok.conf"), "profile standalone\n");
        assertThat(parse(ok.toString()).action()).isEqualTo(Action.RUN);
    }

    @Test
    void standaloneProfile_isThePlainDefaults_plusRedisSavePoints() {
        Launch l = parse("--profile", "standalone");
        assertThat(l.action()).isEqualTo(Action.RUN);
        assertThat(l.profileSetOptions()).containsExactly("save");
        for (ConfigParam p : l.config().params()) {
            if (!p.name().equals("save")) assertThat(l.config().isDefault(p.name())).as(p.name()).isTrue();
        }
    }

    @Test
    void daemonizeYes_isAStartupError() {
        Launch l = parse("--daemonize", "yes");
        assertThat(l.exitCode()).isEqualTo(2);
        assertThat(l.message()).isEqualTo("tide: daemonize yes is not supported; use your service manager");
    }

    @Test
    void checkConfig() throws Exception {
        Path good = Files.writeString(tmp.resolve("good.conf"), "port 7000\n");
        Launch ok = parse(good.toString(), "--check-config");
        assertThat(ok.action()).isEqualTo(Action.CHECK_CONFIG);
        assertThat(ok.exitCode()).isZero();
        assertThat(ok.message()).startsWith("tide: configuration OK");
        assertThat(ok.config().getInt("port")).isEqualTo(7000);

        Path bad = Files.writeString(tmp.resolve("bad.conf"), "port 7000\nnosuch 1\n");
        Launch err = parse(bad.toString(), "--check-config");
        assertThat(err.action()).isEqualTo(Action.ERROR);
        assertThat(err.exitCode()).isEqualTo(2);
        assertThat(err.message()).isEqualTo("tide: config file " + bad + " line 2: unknown option 'nosuch'");
    }

    @Test
    void missingConfigFile_isAnError() {
        Launch l = parse(tmp.resolve("nope.conf").toString());
        assertThat(l.exitCode()).isEqualTo(2);
        assertThat(l.message()).startsWith("tide: can't open config file");
    }
}
