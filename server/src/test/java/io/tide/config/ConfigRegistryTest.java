package io.tide.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfigRegistryTest {

    @TempDir
    Path tmp;

    private final ConfigRegistry config = ConfigRegistry.standard();

    @Test
    void get_printsDefaultsAsConfigGetDoes() {
        assertThat(config.get("port")).isEqualTo("6379");
        assertThat(config.get("bind")).isEqualTo("127.0.0.1");
        assertThat(config.get("requirepass")).isEmpty();
        assertThat(config.get("proto-max-bulk-len")).isEqualTo("536870912");
        assertThat(config.get("client-query-buffer-limit")).isEqualTo("1073741824");
        assertThat(config.get("daemonize")).isEqualTo("no");
        assertThat(config.get("appendonly")).isEqualTo("no");
        assertThat(config.get("appendfsync")).isEqualTo("everysec");
        assertThat(config.get("save")).isEmpty();
        assertThat(config.get("loglevel")).isEqualTo("notice");
        assertThat(config.get("dir")).isEqualTo(Path.of("").toAbsolutePath().normalize().toString());
        assertThat(config.get("shards")).isEqualTo("1");
        assertThat(config.get("io-driver")).isEqualTo("auto");
        assertThat(config.get("profile")).isEqualTo("standalone");
        assertThat(config.getInt("databases")).isEqualTo(16);
        assertThat(config.getLong("maxclients")).isEqualTo(10000);
        assertThat(config.getInt("hz")).isEqualTo(10);
        assertThat(config.getBool("lazyfree-lazy-user-flush")).isFalse();
        assertThat(config.getInt("active-expire-effort")).isEqualTo(1);
        assertThat(config.getInt("tcp-keepalive")).isEqualTo(300);
        assertThat(config.get("PORT")).as("names are case-insensitive").isEqualTo("6379");
    }

    @Test
    void slowlogNames_areAliasesOfTheCommandlogSlowParameters() {
        assertThat(config.param("slowlog-log-slower-than").name()).isEqualTo("commandlog-execution-slower-than");
        assertThat(config.param("slowlog-max-len").name()).isEqualTo("commandlog-slow-execution-max-len");
        config.set("slowlog-log-slower-than", "-1");
        assertThat(config.getLong("commandlog-execution-slower-than")).isEqualTo(-1);
        assertThat(config.getLong("slowlog-max-len")).isEqualTo(128);
    }

    @Test
    void set_updatesTypedValues() {
        config.set("maxclients", "50");
        config.set("lazyfree-lazy-user-flush", "YES");
        config.set("loglevel", "WARNING");
        config.set("requirepass", "s3cret");
        config.set("hz", "500");
        assertThat(config.getLong("maxclients")).isEqualTo(50);
        assertThat(config.get("lazyfree-lazy-user-flush")).isEqualTo("yes");
        assertThat(config.getBool("lazyfree-lazy-user-flush")).isTrue();
        assertThat(config.get("loglevel")).isEqualTo("warning");
        assertThat(config.get("requirepass")).isEqualTo("s3cret");
        assertThat(config.getInt("hz")).isEqualTo(500);
    }

    @Test
    void memoryUnits_followRedisMemtoull() {
        String[][] cases = {
                {"1048576", "1048576"}, {"1mb", "1048576"}, {"1MB", "1048576"}, {"2m", "2000000"},
                {"2048k", "2048000"}, {"1024kb", "1048576"}, {"1g", "1000000000"}, {"1gb", "1073741824"},
                {"2GB", "2147483648"}, {"5000000b", "5000000"}, {"1024KB", "1048576"}};
        for (String[] c : cases) {
            config.set("proto-max-bulk-len", c[0]);
            assertThat(config.get("proto-max-bulk-len")).as(c[0]).isEqualTo(c[1]);
        }
        for (String bad : new String[] {"-1", "1tb", "1.5mb", " 1mb", "1 mb", "99999999999999999999"}) {
            assertThatThrownBy(() -> config.set("proto-max-bulk-len", bad)).as("'%s'", bad)
                    .hasMessage("ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - "
                            + "argument must be a memory value");
        }
        // no digits read as 0, as memtoull's strtoull of nothing does (redis-server 7.0.15 takes "" and "mb" as 0)
        for (String under : new String[] {"100k", "", "mb", "kb"}) {
            assertThatThrownBy(() -> config.set("proto-max-bulk-len", under)).as("'%s'", under)
                    .hasMessage("ERR CONFIG SET failed (possibly related to argument 'proto-max-bulk-len') - "
                            + "argument must be between 1048576 and 9223372036854775807 inclusive");
        }
        config.set("auto-aof-rewrite-min-size", "");
        assertThat(config.get("auto-aof-rewrite-min-size")).isEqualTo("0");
    }

    @Test
    void set_errorsUseRedisWording() {
        assertThatThrownBy(() -> config.set("foo", "1"))
                .isInstanceOf(ConfigException.class)
                .hasMessage("ERR Unknown option or number of arguments for CONFIG SET - 'foo'");
        assertThatThrownBy(() -> config.set("port", "7000"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'port') - can't set immutable config");
        assertThatThrownBy(() -> config.set("lazyfree-lazy-user-flush", "maybe"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'lazyfree-lazy-user-flush') - "
                        + "argument must be 'yes' or 'no'");
        assertThatThrownBy(() -> config.set("hz", "ten"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'hz') - "
                        + "argument couldn't be parsed into an integer");
        assertThatThrownBy(() -> config.set("hz", "-1"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'hz') - "
                        + "argument must be between 0 and 2147483647 inclusive");
        assertThatThrownBy(() -> config.set("maxclients", "0"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'maxclients') - "
                        + "argument must be between 1 and 4294967295 inclusive");
        assertThatThrownBy(() -> config.set("loglevel", "loud"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'loglevel') - "
                        + "argument(s) must be one of the following: debug, verbose, notice, warning, nothing");
        // A refused value names the parameter as Redis registers it (lower case; an alias as the alias).
        assertThatThrownBy(() -> config.set("HZ", "x")).hasMessageContaining("argument 'hz'");
        assertThatThrownBy(() -> config.set("Slave-Read-Only", "maybe")).hasMessageContaining("argument 'slave-read-only'");
        // An immutable one is named as typed.
        assertThatThrownBy(() -> config.set("PORT", "1")).hasMessageContaining("argument 'PORT'");
    }

    @Test
    void integers_areParsedStrictlyLikeString2ll() {
        for (String bad : new String[] {"010", "+5", " 5", "5 ", "-0", "1e3", "", "-"}) {
            assertThatThrownBy(() -> config.set("timeout", bad)).as("'%s'", bad)
                    .hasMessageEndingWith("argument couldn't be parsed into an integer");
        }
        config.set("timeout", "0");
        assertThatThrownBy(() -> config.set("timeout", "-5"))
                .hasMessageEndingWith("argument must be between 0 and 2147483647 inclusive");
        assertThatThrownBy(() -> config.set("timeout", "9223372036854775808"))
                .hasMessageEndingWith("argument couldn't be parsed into an integer");
    }

    @Test
    void save_acceptsPairs_andAppendonlyIsABool() {
        config.set("save", "");
        config.set("save", " 900  1 300 10 ");
        assertThat(config.get("save")).isEqualTo("900 1 300 10");
        assertThatThrownBy(() -> config.set("save", "900"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters");
        assertThatThrownBy(() -> config.set("save", "900 x"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'save') - Invalid save parameters");
        assertThatThrownBy(() -> config.set("dbfilename", "a/b.rdb"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'dbfilename') - "
                        + "dbfilename can't be a path, just a filename");
        config.set("appendonly", "yes");
        assertThat(config.get("appendonly")).isEqualTo("yes");
        config.set("appendonly", "no");
        assertThatThrownBy(() -> config.set("appendonly", "maybe"))
                .hasMessageStartingWith("ERR CONFIG SET failed (possibly related to argument 'appendonly') - ");
        config.set("appendfsync", "always");
        assertThat(config.get("appendfsync")).isEqualTo("always");
    }

    @Test
    void aofParams_haveRedisDefaultsBoundsAndErrors() {
        assertThat(config.get("appenddirname")).isEqualTo("appendonlydir");
        assertThat(config.get("appendfilename")).isEqualTo("appendonly.aof");
        assertThat(config.get("aof-use-rdb-preamble")).isEqualTo("yes");
        assertThat(config.get("aof-load-truncated")).isEqualTo("yes");
        assertThat(config.get("aof-timestamp-enabled")).isEqualTo("no");
        assertThat(config.get("auto-aof-rewrite-percentage")).isEqualTo("100");
        assertThat(config.get("auto-aof-rewrite-min-size")).isEqualTo("67108864");
        assertThat(config.get("aof-rewrite-incremental-fsync")).isEqualTo("yes");
        assertThat(config.getInt("aof-fsync-timeout-ms")).isEqualTo(2000);
        assertThatThrownBy(() -> config.set("appendfilename", "x.aof"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'appendfilename') - "
                        + "can't set immutable config");
        assertThatThrownBy(() -> config.set("appenddirname", "d"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'appenddirname') - "
                        + "can't set immutable config");
        assertThatThrownBy(() -> config.set("auto-aof-rewrite-percentage", "-1"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'auto-aof-rewrite-percentage') - "
                        + "argument must be between 0 and 2147483647 inclusive");
        assertThatThrownBy(() -> config.set("auto-aof-rewrite-min-size", "-1"))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'auto-aof-rewrite-min-size') - "
                        + "argument must be a memory value");
        config.set("auto-aof-rewrite-min-size", "1mb");
        assertThat(config.get("auto-aof-rewrite-min-size")).isEqualTo("1048576");
        config.set("aof-timestamp-enabled", "yes");
        config.set("aof-fsync-timeout-ms", "50");
        assertThat(config.getInt("aof-fsync-timeout-ms")).isEqualTo(50);
        assertThatThrownBy(() -> config.set("aof-fsync-timeout-ms", "0")).hasMessageContaining("between 1 and");
    }

    @Test
    void aofNames_areRefusedAsPathsAtStartup() {
        assertThatThrownBy(() -> config.setInitial("appendfilename", "a/b"))
                .hasMessageContaining("appendfilename can't be a path, just a filename");
        assertThatThrownBy(() -> config.setInitial("appenddirname", "a/b"))
                .hasMessageContaining("appenddirname can't be a path, just a dirname");
        assertThatThrownBy(() -> config.setInitial("appendfilename", ""))
                .hasMessageContaining("appendfilename can't be empty");
        config.setInitial("appendfilename", "my.aof");
        assertThat(config.get("appendfilename")).isEqualTo("my.aof");
    }

    @Test
    void dir_mustExist_andResolvesAgainstTheCurrentDir() throws Exception {
        Path sub = Files.createDirectory(tmp.resolve("data"));
        config.set("dir", tmp.toString());
        assertThat(config.get("dir")).isEqualTo(tmp.toAbsolutePath().normalize().toString());
        config.set("dir", "data");
        assertThat(config.get("dir")).isEqualTo(sub.toAbsolutePath().normalize().toString());
        assertThatThrownBy(() -> config.set("dir", tmp.resolve("missing").toString()))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'dir') - No such file or directory");
        Path file = Files.writeString(tmp.resolve("f"), "x");
        assertThatThrownBy(() -> config.set("dir", file.toString())).hasMessageEndingWith("Not a directory");
    }

    @Test
    void match_returnsSortedPairsForGlob() {
        List<String[]> all = config.match("*");
        // Redis 7 lists aliases (hash-max-ziplist-entries, ...) beside the names.
        assertThat(all).hasSize(config.params().stream().mapToInt(p -> 1 + p.aliases().size()).sum());
        List<String> names = all.stream().map(p -> p[0]).toList();
        assertThat(names).isSorted();

        List<String[]> max = config.match("*CLIENTS*");
        assertThat(max).extracting(p -> p[0] + "=" + p[1])
                .containsExactly("maxclients=10000", "maxmemory-clients=0", "tls-auth-clients=yes",
                        "tls-auth-clients-user=off");
        assertThat(config.match("save")).extracting(p -> p[1]).containsExactly("");
        assertThat(config.match("appendonly")).extracting(p -> p[1]).containsExactly("no");
        assertThat(config.match("nosuch*")).isEmpty();
        assertThat(config.match("p?rt")).extracting(p -> p[0]).containsExactly("port");
    }

    @Test
    void setAll_isAllOrNothing() {
        assertThatThrownBy(() -> config.setAll(List.of(
                new String[] {"maxclients", "20"}, new String[] {"hz", "-5"})))
                .hasMessageContaining("argument 'hz'");
        assertThat(config.get("maxclients")).isEqualTo("10000");

        assertThatThrownBy(() -> config.setAll(List.of(
                new String[] {"maxclients", "20"}, new String[] {"nope", "1"})))
                .hasMessage("ERR Unknown option or number of arguments for CONFIG SET - 'nope'");
        assertThatThrownBy(() -> config.setAll(List.of(
                new String[] {"maxclients", "20"}, new String[] {"MAXCLIENTS", "30"})))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'MAXCLIENTS') - duplicate parameter");
        assertThat(config.get("maxclients")).isEqualTo("10000");

        // A parameter and its alias are no duplicate: the later pair wins, as in Redis.
        config.setAll(List.of(new String[] {"slave-read-only", "no"}, new String[] {"replica-read-only", "yes"}));
        assertThat(config.get("replica-read-only")).isEqualTo("yes");
        config.setAll(List.of(new String[] {"replica-read-only", "yes"}, new String[] {"slave-read-only", "no"}));
        assertThat(config.get("replica-read-only")).isEqualTo("no");

        config.setAll(List.of(new String[] {"maxclients", "20"}, new String[] {"hz", "20"}));
        assertThat(config.get("maxclients")).isEqualTo("20");
        assertThat(config.get("hz")).isEqualTo("20");
    }

    @Test
    void setAll_restoresPreviousValuesWhenAListenerFails() {
        List<String> seen = new ArrayList<>();
        config.onChange("maxclients", seen::add);
        config.onChange("hz", v -> {
            if (v.equals("99")) {
                throw new IllegalStateException("cannot apply hz");
            }
        });
        assertThatThrownBy(() -> config.setAll(List.of(
                new String[] {"maxclients", "20"}, new String[] {"hz", "99"})))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'hz') - cannot apply hz");
        assertThatThrownBy(() -> config.setAll(List.of(
                new String[] {"maxclients", "20"}, new String[] {"HZ", "99"})))
                .hasMessage("ERR CONFIG SET failed (possibly related to argument 'hz') - cannot apply hz");
        assertThat(config.get("maxclients")).isEqualTo("10000");
        assertThat(config.get("hz")).isEqualTo("10");
        assertThat(seen).containsExactly("20", "10000", "20", "10000");
    }

    @Test
    void onChange_firesOnlyOnChange() {
        AtomicReference<String> last = new AtomicReference<>();
        List<String> calls = new ArrayList<>();
        config.onChange("proto-max-bulk-len", v -> {
            last.set(v);
            calls.add(v);
        });
        config.set("proto-max-bulk-len", "1gb");
        config.set("proto-max-bulk-len", "1073741824");
        assertThat(last.get()).isEqualTo("1073741824");
        assertThat(calls).hasSize(1);
    }

    @Test
    void setInitial_allowsImmutableAtStartup() {
        config.setInitial("port", "0");
        assertThat(config.getInt("port")).isZero();
        assertThatThrownBy(() -> config.setInitial("port", "70000"))
                .isInstanceOf(ConfigException.class)
                .extracting(e -> ((ConfigException) e).reason())
                .isEqualTo("argument must be between 0 and 65535 inclusive");
    }

    @Test
    void fromConfigFile_parsesRedisConfSyntax() throws Exception {
        Files.writeString(tmp.resolve("extra.conf"), "hz 50\n");
        Path file = Files.writeString(tmp.resolve("redis.conf"), """
                # a comment, with a 'quote
                   # indented comment
                port 7000
                bind 10.0.0.1   ::1
                requirepass "pa ss\\"word\\x41"
                logfile 'it\\'s.log'
                maxclients 100
                maxclients 200
                PROTO-MAX-BULK-LEN 2mb
                save ""
                include extra.conf

                loglevel verbose
                """);
        ConfigRegistry c = ConfigRegistry.fromConfigFile(file);
        assertThat(c.getInt("port")).isEqualTo(7000);
        assertThat(c.get("bind")).isEqualTo("10.0.0.1 ::1");
        assertThat(c.get("requirepass")).isEqualTo("pa ss\"wordA");
        assertThat(c.get("logfile")).isEqualTo("it's.log");
        assertThat(c.get("maxclients")).isEqualTo("200");
        assertThat(c.get("proto-max-bulk-len")).isEqualTo("2097152");
        assertThat(c.getInt("hz")).isEqualTo(50);
        assertThat(c.get("loglevel")).isEqualTo("verbose");
        assertThat(c.configFile()).isEqualTo(file);
    }

    @Test
    void fromConfigFile_reportsFileAndLine() throws Exception {
        Path unknown = Files.writeString(tmp.resolve("a.conf"), "port 7000\n\nfoo bar\n");
        assertThatThrownBy(() -> ConfigRegistry.fromConfigFile(unknown))
                .hasMessage("tide: config file " + unknown + " line 3: unknown option 'foo'");
        Path bad = Files.writeString(tmp.resolve("b.conf"), "port x\n");
        assertThatThrownBy(() -> ConfigRegistry.fromConfigFile(bad))
                .hasMessage("tide: config file " + bad + " line 1: invalid value for 'port': 'x' "
                        + "(argument couldn't be parsed into an integer)");
        Path quotes = Files.writeString(tmp.resolve("c.conf"), "requirepass \"abc\n");
        assertThatThrownBy(() -> ConfigRegistry.fromConfigFile(quotes))
                .hasMessage("tide: config file " + quotes + " line 1: Unbalanced quotes in configuration line");
        Path args = Files.writeString(tmp.resolve("d.conf"), "port 1 2\n");
        assertThatThrownBy(() -> ConfigRegistry.fromConfigFile(args))
                .hasMessage("tide: config file " + args + " line 1: wrong number of arguments for 'port'");
        Path daemon = Files.writeString(tmp.resolve("e.conf"), "daemonize yes\n");
        assertThatThrownBy(() -> ConfigRegistry.fromConfigFile(daemon))
                .hasMessage("tide: daemonize yes is not supported; use your service manager");
        Path loop = Files.writeString(tmp.resolve("loop.conf"), "include loop.conf\n");
        assertThatThrownBy(() -> ConfigRegistry.fromConfigFile(loop)).hasMessageContaining("include nesting");
        assertThatThrownBy(() -> ConfigRegistry.fromConfigFile(tmp.resolve("missing.conf")))
                .hasMessageStartingWith("tide: can't open config file");
    }

    @Test
    void splitArgs_followsSdssplitargs() {
        assertThat(ConfigFile.splitArgs("  a  b\tc ")).containsExactly("a", "b", "c");
        assertThat(ConfigFile.splitArgs("\"\" ''")).containsExactly("", "");
        assertThat(ConfigFile.splitArgs("\"a\\tb\\n\\x7a\"")).containsExactly("a\tb\nz");
        assertThat(ConfigFile.splitArgs("'a\\nb'")).containsExactly("a\\nb");
        assertThat(ConfigFile.splitArgs("foo\"bar\"")).containsExactly("foobar");
        assertThatThrownBy(() -> ConfigFile.splitArgs("\"abc\"def")).isInstanceOf(ConfigException.class);
        assertThatThrownBy(() -> ConfigFile.splitArgs("'abc")).isInstanceOf(ConfigException.class);
    }

    @Test
    void rewrite_keepsCommentsAndUnknownLines_andRoundTrips() throws Exception {
        Files.writeString(tmp.resolve("inc.conf"), "");
        Path file = Files.writeString(tmp.resolve("redis.conf"), """
                # top comment
                   # indented\t
                port 7000
                include inc.conf
                hz 20
                hz 30

                # about maxclients
                maxclients 10000
                timeout 5
                """);
        ConfigRegistry c = ConfigRegistry.fromConfigFile(file);
        c.set("hz", "40");
        c.set("proto-max-bulk-len", "64mb");
        c.set("requirepass", "a \"b\"");
        c.set("lazyfree-lazy-user-flush", "yes");
        c.set("timeout", "0");
        assertThat(c.rewrite(file)).isNull();
        // As redis-server 7.0 rewrites (ConfigRewriteVsRedisTest): lines trimmed, the repeat blanked and the blank
        // run written as one, a parameter back at its default kept, the file's final newline an empty last line.
        assertThat(Files.readString(file)).isEqualTo("""
                # top comment
                # indented
                port 7000
                include inc.conf
                hz 40

                # about maxclients
                maxclients 10000
                timeout 0

                # Generated by CONFIG REWRITE
                requirepass "a \\"b\\""
                proto-max-bulk-len 64mb
                lazyfree-lazy-user-flush yes
                """);

        ConfigRegistry back = ConfigRegistry.fromConfigFile(file);
        for (ConfigParam p : c.params()) {
            assertThat(back.get(p.name())).as(p.name()).isEqualTo(c.get(p.name()));
        }

        // A second rewrite adds the empty last line (as Redis's does), a third changes nothing; one signature.
        String first = Files.readString(file);
        assertThat(back.rewrite(file)).isNull();
        String second = Files.readString(file);
        assertThat(second).isEqualTo(first + "\n").containsOnlyOnce(ConfigRegistry.REWRITE_SIGNATURE);
        assertThat(back.rewrite(file)).isNull();
        assertThat(Files.readString(file)).isEqualTo(second);

        // Lines added since that no parameter owns become comments, as Redis keeps them (and the file loads).
        Files.writeString(file, second + "nosuchoption 1\nbad \"quote\nrename-command FOO BAR\n");
        assertThat(back.rewrite(file)).isNull();
        assertThat(Files.readString(file)).isEqualTo(second + "# ??? nosuchoption 1\n# ??? bad \"quote\n"
                + "# ??? rename-command FOO BAR\n\n");
        assertThat(ConfigRegistry.fromConfigFile(file).get("requirepass")).isEqualTo("a \"b\"");
    }

    @Test
    void rewrite_withoutFile_fails() {
        assertThat(config.rewrite(null)).isEqualTo("ERR The server is running without a config file");
    }
}
