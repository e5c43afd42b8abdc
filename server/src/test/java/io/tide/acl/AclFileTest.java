package io.tide.acl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.Server;
import io.tide.Tide;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestServers;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Users kept in files, beside a real redis-server 7.0 given the same files: the aclfile (loaded at startup, ACL LOAD
 * all or nothing with Redis's error text, ACL SAVE), the config file's {@code user} lines (and CONFIG REWRITE writing
 * them back), and startup refusing what Redis refuses.
 */
class AclFileTest {

    private static final String USERS = "user alice on >pw ~app:* resetchannels -@all +@read\n"
            + "user bob off resetchannels -@all\n";

    /** A reply with each server's ACL file path replaced, so the two servers' texts compare. */
    private static String withoutPath(String reply, String path) {
        return reply.replace(path, "<file>");
    }

    @Test
    void aclFile_loadsAtStartup_reloads_andSaves_asRedis() throws Exception {
        Path tideDir = Files.createTempDirectory("tide-acl");
        Path redisFile = Files.createTempDirectory("redis-acl").resolve("users.acl");
        Files.writeString(tideDir.resolve("users.acl"), USERS);
        Files.writeString(redisFile, USERS);
        try (RealRedis redis = RealRedis.startWith("--aclfile", redisFile.toString());
             Server tide = TestServers.start(1, "--dir", tideDir.toString(), "--aclfile", "users.acl");
             RawClient r = new RawClient(redis.port()); RawClient t = new RawClient(tide.port())) {
            String list = r.call("ACL", "LIST");
            assertThat(t.call("ACL", "LIST")).isEqualTo(list).contains("user alice on #");
            // alice signs in on both; a reload that changes her closes her connections, as Redis does.
            try (RawClient ra = new RawClient(redis.port()); RawClient ta = new RawClient(tide.port())) {
                assertThat(ta.call("AUTH", "alice", "pw")).isEqualTo(ra.call("AUTH", "alice", "pw"));
                assertThat(ta.call("GET", "app:1")).isEqualTo(ra.call("GET", "app:1"));
                // A file with errors: nothing changes, and the reply names every error as Redis does.
                String bad = "user alice on >pw2 +nosuch\n# a comment\nuser carol on %X~x\nuser carol on\n";
                Files.writeString(tideDir.resolve("users.acl"), bad);
                Files.writeString(redisFile, bad);
                assertThat(withoutPath(t.call("ACL", "LOAD"), "users.acl"))
                        .isEqualTo(withoutPath(r.call("ACL", "LOAD"), redisFile.toString()));
                assertThat(t.call("ACL", "LIST")).isEqualTo(r.call("ACL", "LIST")).isEqualTo(list);
                assertThat(ta.call("GET", "app:1")).isEqualTo(ra.call("GET", "app:1")); // still signed in
                String next = "user alice on >pw ~app:* resetchannels -@all +@read +set\nuser carol on nopass +@all\n";
                Files.writeString(tideDir.resolve("users.acl"), next);
                Files.writeString(redisFile, next);
                assertThat(t.call("ACL", "LOAD")).isEqualTo(r.call("ACL", "LOAD")).isEqualTo("+OK\r\n");
                assertThat(t.call("ACL", "LIST")).isEqualTo(r.call("ACL", "LIST"));
                assertThat(ta.isClosedByServer()).isEqualTo(ra.isClosedByServer());
            }
            assertThat(t.call("ACL", "SETUSER", "erin", "on", ">x", "~e:*", "+get"))
                    .isEqualTo(r.call("ACL", "SETUSER", "erin", "on", ">x", "~e:*", "+get"));
            assertThat(t.call("ACL", "SAVE")).isEqualTo(r.call("ACL", "SAVE")).isEqualTo("+OK\r\n");
            assertThat(Files.readString(tideDir.resolve("users.acl"))).isEqualTo(Files.readString(redisFile))
                    .contains("user erin on #");
        }
    }

    @Test
    void withoutAclFile_loadAndSave_areRefused_asRedis() throws Exception {
        try (RealRedis redis = RealRedis.start(); Server tide = TestServers.start(1);
             RawClient r = new RawClient(redis.port()); RawClient t = new RawClient(tide.port())) {
            assertThat(t.call("ACL", "LOAD")).isEqualTo(r.call("ACL", "LOAD")).startsWith("-ERR This Redis instance");
            assertThat(t.call("ACL", "SAVE")).isEqualTo(r.call("ACL", "SAVE"));
        }
    }

    @Test
    void configFileUserLines_defineUsers_andConfigRewriteWritesThem() throws Exception {
        Path dir = Files.createTempDirectory("tide-acl-conf");
        Path conf = dir.resolve("tide.conf");
        Files.writeString(conf, "# users of this server\nuser alice on >pw ~app:* +@read\nrequirepass secret\n"
                + "port 0\nshards 1\n");
        try (Server tide = Tide.start(conf.toString(), "--dir", dir.toString(), "--loglevel", "warning");
             RawClient t = new RawClient(tide.port())) {
            assertThat(t.call("PING")).startsWith("-NOAUTH");
            assertThat(t.call("AUTH", "alice", "pw")).isEqualTo("+OK\r\n");
            assertThat(t.call("GET", "other")).startsWith("-NOPERM");
            assertThat(t.call("AUTH", "secret")).isEqualTo("+OK\r\n"); // requirepass is the default user's password
            assertThat(t.call("ACL", "SETUSER", "bob", "on", "nopass", "+ping")).isEqualTo("+OK\r\n");
            assertThat(t.call("CONFIG", "REWRITE")).isEqualTo("+OK\r\n");
        }
        List<String> lines = Files.readAllLines(conf);
        assertThat(lines.get(0)).isEqualTo("# users of this server");
        assertThat(lines.get(1)).startsWith("user alice on #");
        assertThat(lines).anyMatch(l -> l.startsWith("user bob on nopass ")).anyMatch(l -> l.startsWith("user default on #"));
        // The rewritten file starts the same users again.
        try (Server tide = Tide.start(conf.toString(), "--dir", dir.toString(), "--loglevel", "warning");
             RawClient t = new RawClient(tide.port())) {
            assertThat(t.call("AUTH", "bob", "any")).isEqualTo("+OK\r\n");
            assertThat(t.call("PING")).isEqualTo("+PONG\r\n");
        }
    }

    @Test
    void startupRefuses_aMissingOrBadAclFile_andUsersInBothPlaces() throws IOException {
        Path dir = Files.createTempDirectory("tide-acl-bad");
        assertThatThrownBy(() -> TestServers.start(1, "--dir", dir.toString(), "--aclfile", "none.acl"))
                .hasMessageContaining("Aborting startup because of ACL errors: Error loading ACLs, opening file "
                        + "'none.acl': No such file or directory");
        Files.writeString(dir.resolve("bad.acl"), "user x on +nosuch\n");
        assertThatThrownBy(() -> TestServers.start(1, "--dir", dir.toString(), "--aclfile", "bad.acl"))
                .hasMessageContaining("bad.acl:1: Error in applying operation '+nosuch': Unknown command or category "
                        + "name in ACL.");
        Path conf = dir.resolve("both.conf");
        Files.writeString(conf, "user alice on\naclfile users.acl\n");
        assertThatThrownBy(() -> Tide.start(conf.toString(), "--port", "0"))
                .hasMessageContaining("please define either an ACL file or declare users directly in your redis.conf");
    }
}
