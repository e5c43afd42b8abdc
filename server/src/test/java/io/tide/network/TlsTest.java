package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SslOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.protocol.ProtocolVersion;
import io.tide.Server;
import io.tide.command.ClientSession;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestCertificates;
import io.tide.testing.TestServers;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.RedisProtocol;

/**
 * TLS on its own port: redis-cli, Jedis and Lettuce (RESP2 and RESP3) with and without client certificates, each
 * tls-auth-clients mode, a plain-text client on the TLS port, the client certificate's CN on the session, and CONFIG
 * SET tls-port. One server with a plain and a TLS port for the class; tests that change files start their own.
 */
class TlsTest {

    private static TestCertificates pki;
    private static Server server;
    private static int tlsPort;

    @BeforeAll
    static void start() throws IOException {
        pki = TestCertificates.create();
        tlsPort = RealRedis.freePort();
        server = TestServers.start(2, pki.serverOptions(tlsPort, "--port", Integer.toString(RealRedis.freePort())));
    }

    @AfterAll
    static void stop() {
        if (server != null) server.close();
    }

    @AfterEach
    void defaults() throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            c.call("CONFIG", "SET", "tls-auth-clients", "yes");
        }
    }

    private static String setAuthClients(String mode) throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            return c.call("CONFIG", "SET", "tls-auth-clients", mode);
        }
    }

    /** PING over TLS as {@code identity} (null: no certificate); the reply, or the handshake's failure. */
    private static String pingAs(TestCertificates.Pair identity) throws IOException {
        try (RawClient c = RawClient.tls(tlsPort, pki.clientContext(identity))) {
            return c.call("PING");
        }
    }

    // ------------------------------------------------------------------------------------------ redis-cli

    private static String redisCli(String... args) throws IOException, InterruptedException {
        boolean present = new File("/usr/bin/redis-cli").canExecute();
        if (!present && "true".equals(System.getenv("CI"))) {
            throw new IllegalStateException("redis-cli is not installed; .ci/run installs redis-tools");
        }
        Assumptions.assumeTrue(present, "redis-cli is not installed");
        List<String> cmd = new ArrayList<>(List.of("/usr/bin/redis-cli"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        p.getOutputStream().close();
        byte[] out = p.getInputStream().readAllBytes();
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        return new String(out, StandardCharsets.UTF_8);
    }

    @Test
    void redisCli_withClientCertificate_setsAndGets() throws Exception {
        String[] tls = {"--tls", "--cacert", pki.caCert().toString(), "--cert", pki.client().cert().toString(),
                "--key", pki.client().key().toString(), "-p", Integer.toString(tlsPort)};
        assertThat(redisCli(concat(tls, "SET", "tls:cli", "over tls"))).isEqualTo("OK\n");
        assertThat(redisCli(concat(tls, "GET", "tls:cli"))).isEqualTo("over tls\n");
        assertThat(redisCli(concat(tls, "-3", "HELLO", "3"))).contains("proto").contains("3");
    }

    @Test
    void redisCli_withACertificateTheCaDidNotSign_isRefusedEvenWhenOptional() throws Exception {
        String[] tls = {"--tls", "--cacert", pki.caCert().toString(), "--cert", pki.selfSigned().cert().toString(),
                "--key", pki.selfSigned().key().toString(), "-p", Integer.toString(tlsPort)};
        assertThat(setAuthClients("optional")).isEqualTo("+OK\r\n");
        assertThat(redisCli(concat(tls, "PING"))).doesNotContain("PONG");
        assertThat(setAuthClients("no")).isEqualTo("+OK\r\n");
        assertThat(redisCli(concat(tls, "PING"))).isEqualTo("PONG\n");
    }

    @Test
    void redisCli_withoutClientCertificate_isRefusedWhenRequired() throws Exception {
        String[] tls = {"--tls", "--cacert", pki.caCert().toString(), "-p", Integer.toString(tlsPort)};
        assertThat(redisCli(concat(tls, "PING"))).doesNotContain("PONG");
        assertThat(setAuthClients("no")).isEqualTo("+OK\r\n");
        assertThat(redisCli(concat(tls, "PING"))).isEqualTo("PONG\n");
    }

    private static String[] concat(String[] a, String... b) {
        String[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    // ------------------------------------------------------------------------------------------ Jedis, Lettuce

    private static Jedis jedis(int protocol, TestCertificates.Pair identity) {
        var cfg = DefaultJedisClientConfig.builder()
                .protocol(protocol == 3 ? RedisProtocol.RESP3 : RedisProtocol.RESP2)
                .timeoutMillis(10_000)
                .ssl(true)
                .sslSocketFactory(pki.clientContext(identity).getSocketFactory())
                .build();
        return new Jedis(new HostAndPort("127.0.0.1", tlsPort), cfg);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void jedis_withClientCertificate_servesCommands(int protocol) {
        try (Jedis j = jedis(protocol, pki.client())) {
            assertThat(j.set("tls:jedis:" + protocol, "v")).isEqualTo("OK");
            assertThat(j.get("tls:jedis:" + protocol)).isEqualTo("v");
            assertThat(j.hset("tls:h:" + protocol, "f", "x")).isEqualTo(1);
            assertThat(j.hgetAll("tls:h:" + protocol)).containsEntry("f", "x");
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void jedis_withoutClientCertificate_whenOptional(int protocol) throws IOException {
        setAuthClients("optional");
        try (Jedis j = jedis(protocol, null)) {
            assertThat(j.ping()).isEqualTo("PONG");
        }
    }

    private static RedisClient lettuce(int protocol, TestCertificates.Pair identity) {
        SslOptions.Builder ssl = SslOptions.builder().jdkSslProvider().trustManager(pki.caCert().toFile());
        if (identity != null) ssl.keyManager(identity.cert().toFile(), identity.key().toFile(), null);
        RedisClient client = RedisClient.create(RedisURI.builder().withHost("127.0.0.1").withPort(tlsPort)
                .withSsl(true).withTimeout(Duration.ofSeconds(10)).build());
        client.setOptions(ClientOptions.builder().sslOptions(ssl.build())
                .protocolVersion(protocol == 3 ? ProtocolVersion.RESP3 : ProtocolVersion.RESP2).build());
        return client;
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void lettuce_withClientCertificate_servesCommands(int protocol) {
        RedisClient client = lettuce(protocol, pki.client());
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            assertThat(c.sync().set("tls:lettuce:" + protocol, "v")).isEqualTo("OK");
            assertThat(c.sync().get("tls:lettuce:" + protocol)).isEqualTo("v");
            assertThat(c.sync().incr("tls:n:" + protocol)).isEqualTo(1L);
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 3})
    void lettuce_withoutClientCertificate_whenNotAsked(int protocol) throws IOException {
        setAuthClients("no");
        RedisClient client = lettuce(protocol, null);
        try (StatefulRedisConnection<String, String> c = client.connect()) {
            assertThat(c.sync().ping()).isEqualTo("PONG");
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    // ------------------------------------------------------------------------------------------ tls-auth-clients

    @Test
    void authClientsYes_refusesNoCertificateAndOneTheCaDidNotSign() throws IOException {
        assertThat(pingAs(pki.client())).isEqualTo("+PONG\r\n");
        assertThatThrownBy(() -> pingAs(null)).isInstanceOf(IOException.class);
        assertThatThrownBy(() -> pingAs(pki.selfSigned())).isInstanceOf(IOException.class);
    }

    @Test
    void authClientsOptional_acceptsNoCertificate_refusesABadOne() throws IOException {
        assertThat(setAuthClients("optional")).isEqualTo("+OK\r\n");
        assertThat(pingAs(null)).isEqualTo("+PONG\r\n");
        assertThat(pingAs(pki.client())).isEqualTo("+PONG\r\n");
        assertThatThrownBy(() -> pingAs(pki.selfSigned())).isInstanceOf(IOException.class);
    }

    @Test
    void authClientsNo_acceptsAnyone() throws IOException {
        assertThat(setAuthClients("no")).isEqualTo("+OK\r\n");
        assertThat(pingAs(null)).isEqualTo("+PONG\r\n");
        assertThat(pingAs(pki.selfSigned())).isEqualTo("+PONG\r\n"); // not asked for: never sent
    }

    @Test
    void clientCertificateCommonName_isOnTheSession() throws Exception {
        try (RawClient c = RawClient.tls(tlsPort, pki.clientContext(pki.client()))) {
            c.call("CLIENT", "SETNAME", "cn-probe");
            ClientSession session = server.context().clients().stream()
                    .filter(s -> "cn-probe".equals(s.name())).findFirst().orElseThrow();
            assertThat(session.tlsPeerName()).isEqualTo("alice");
        }
        try (RawClient c = new RawClient(server.port())) {
            c.call("CLIENT", "SETNAME", "plain-probe");
            ClientSession session = server.context().clients().stream()
                    .filter(s -> "plain-probe".equals(s.name())).findFirst().orElseThrow();
            assertThat(session.tlsPeerName()).isNull();
        }
    }

    /**
     * tls-auth-clients-user CN: with a password on the default user, a client whose certificate's CN ("alice") is an
     * ACL user that is on starts signed in as alice (held to her rules); off, or with alice off, it must AUTH.
     */
    @Test
    void authClientsUserCn_signsInTheCertificatesUser() throws Exception {
        try (RawClient admin = new RawClient(server.port())) {
            assertThat(admin.call("ACL", "SETUSER", "alice", "on", ">pw", "~a:*", "+@all")).isEqualTo("+OK\r\n");
            assertThat(admin.call("CONFIG", "SET", "requirepass", "s3cret")).isEqualTo("+OK\r\n");
            try {
                assertThat(pingAs(pki.client())).startsWith("-NOAUTH"); // off by default
                assertThat(admin.call("CONFIG", "SET", "tls-auth-clients-user", "CN")).isEqualTo("+OK\r\n");
                try (RawClient c = RawClient.tls(tlsPort, pki.clientContext(pki.client()))) {
                    assertThat(c.call("ACL", "WHOAMI")).isEqualTo("$5\r\nalice\r\n");
                    assertThat(c.call("SET", "b:1", "x")).startsWith("-NOPERM");
                }
                assertThat(admin.call("ACL", "SETUSER", "alice", "off")).isEqualTo("+OK\r\n");
                assertThat(pingAs(pki.client())).startsWith("-NOAUTH");
            } finally {
                admin.call("AUTH", "s3cret");
                admin.call("CONFIG", "SET", "tls-auth-clients-user", "off");
                admin.call("CONFIG", "SET", "requirepass", "");
                admin.call("ACL", "DELUSER", "alice");
            }
        }
    }

    /** Server.faults() refusing connections covers the TLS port too, and listening again reopens both. */
    @Test
    void refusingConnections_closesAndReopensTheTlsListener() throws Exception {
        server.faults().refuseConnections(true);
        try {
            assertThatThrownBy(() -> pingAs(pki.client())).isInstanceOf(IOException.class);
            assertThatThrownBy(() -> new RawClient(server.port())).isInstanceOf(IOException.class);
        } finally {
            server.faults().refuseConnections(false);
        }
        assertThat(pingAs(pki.client())).isEqualTo("+PONG\r\n");
        try (RawClient c = new RawClient(server.port())) {
            assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
        }
    }

    // ------------------------------------------------------------------------------------------ plain text

    @Test
    void plainTextOnTheTlsPort_isClosedCleanly_andTheServerKeepsServing() throws Exception {
        long before = connectionsReceived();
        for (int i = 0; i < 20; i++) {
            try (Socket s = new Socket("127.0.0.1", tlsPort)) {
                s.setSoTimeout(5000);
                s.getOutputStream().write(RawClient.encode("PING"));
                InputStream in = s.getInputStream();
                byte[] buf = new byte[256];
                int n;
                try {
                    n = in.read(buf);
                } catch (java.net.SocketException reset) {
                    n = -1;
                }
                // No RESP reply ever comes back: the connection ends (an orderly close, or at most a TLS alert).
                String got = n > 0 ? new String(buf, 0, n, StandardCharsets.ISO_8859_1) : "";
                assertThat(got).doesNotContain("PONG").doesNotStartWith("-");
                while (n >= 0) n = in.read(buf);
            }
        }
        assertThat(pingAs(pki.client())).isEqualTo("+PONG\r\n");
        try (RawClient c = new RawClient(server.port())) {
            assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
        }
        // The TLS PING, the plain PING and the INFO connection itself: the 20 refused handshakes are not clients.
        assertThat(connectionsReceived() - before).as("refused handshakes are not clients").isEqualTo(3);
    }

    private static long connectionsReceived() throws IOException {
        try (RawClient c = new RawClient(server.port())) {
            String info = c.call("INFO", "stats");
            for (String line : info.split("\r\n")) {
                if (line.startsWith("total_connections_received:")) return Long.parseLong(line.substring(27));
            }
        }
        throw new AssertionError("no total_connections_received");
    }

    // ------------------------------------------------------------------------------------------ tls-provider

    @Test
    void opensslProvider_servesRefusesAndReloadsAsTheJdkOne() throws Exception {
        int port = RealRedis.freePort();
        try (Server s = TestServers.start(1, pki.serverOptions(port, "--port", Integer.toString(RealRedis.freePort()),
                "--tls-provider", "openssl"))) {
            try (RawClient c = RawClient.tls(port, pki.clientContext(pki.client()))) {
                assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
            }
            assertThatThrownBy(() -> RawClient.tls(port, pki.clientContext(null)).call("PING"))
                    .isInstanceOf(IOException.class);
            assertThatThrownBy(() -> RawClient.tls(port, pki.clientContext(pki.selfSigned())).call("PING"))
                    .isInstanceOf(IOException.class);
            try (RawClient c = new RawClient(s.port())) {
                assertThat(c.call("CONFIG", "SET", "tls-auth-clients", "optional")).isEqualTo("+OK\r\n");
                assertThat(c.call("CONFIG", "SET", "tls-cert-file", pki.server2().cert().toString(), "tls-key-file",
                        pki.server2().key().toString())).isEqualTo("+OK\r\n");
            }
            try (RawClient c = RawClient.tls(port, pki.clientContext(null))) {
                assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
                X509Certificate leaf = (X509Certificate) ((SSLSocket) c.socket()).getSession().getPeerCertificates()[0];
                assertThat(leaf.getSubjectX500Principal().getName()).contains("CN=tide-server-reloaded");
            }
            assertThatThrownBy(() -> RawClient.tls(port, pki.clientContext(pki.selfSigned())).call("PING"))
                    .isInstanceOf(IOException.class);
        }
    }

    // ------------------------------------------------------------------------------------------ config file

    @Test
    void configFile_tlsOnly_withRelativePathsFromDir() throws Exception {
        // As Redis (which changes into dir): relative tls-* paths are read from dir; port 0 beside tls-port = TLS only.
        int port = RealRedis.freePort();
        Path conf = pki.dir().resolve("tls-only.conf");
        Files.writeString(conf, String.join("\n", "port 0", "tls-port " + port, "dir " + pki.dir(),
                "tls-cert-file " + pki.server().cert().getFileName(), "tls-key-file " + pki.server().key().getFileName(),
                "tls-ca-cert-file ca.crt", "tls-auth-clients optional", "tls-protocols \"TLSv1.3\"", "save \"\"", ""));
        try (Server s = io.tide.Tide.start(conf.toString(), "--loglevel", "warning")) {
            assertThat(s.port()).isZero();
            try (RawClient c = RawClient.tls(port, pki.clientContext(null))) {
                assertThat(c.call("CONFIG", "GET", "tls-protocols")).isEqualTo("*2\r\n$13\r\ntls-protocols\r\n$7\r\nTLSv1.3\r\n");
                assertThat(((SSLSocket) c.socket()).getSession().getProtocol()).isEqualTo("TLSv1.3");
                assertThat(c.call("INFO", "server")).contains("tcp_port:0\r\n");
            }
        }
    }

    @Test
    void startWithABadCertificate_fails() {
        assertThatThrownBy(() -> TestServers.start(1, "--tls-port", Integer.toString(RealRedis.freePort()),
                "--tls-cert-file", pki.dir().resolve("none.crt").toString(), "--tls-key-file",
                pki.server().key().toString(), "--tls-auth-clients", "no"))
                .hasMessageContaining("Failed to configure TLS").hasMessageContaining("none.crt");
    }

    // ------------------------------------------------------------------------------------------ tls-port at run time

    @Test
    void configSetTlsPort_movesTheListener() throws Exception {
        Path dir = Files.createTempDirectory("tide-tls-port");
        int first = RealRedis.freePort();
        try (Server s = TestServers.start(1, pki.serverOptions(first, "--port", Integer.toString(RealRedis.freePort()),
                "--dir", dir.toString()))) {
            SSLContext ctx = pki.clientContext(pki.client());
            int second = RealRedis.freePort();
            try (RawClient c = new RawClient(s.port())) {
                assertThat(c.call("CONFIG", "SET", "tls-port", Integer.toString(second))).isEqualTo("+OK\r\n");
                try (RawClient t = RawClient.tls(second, ctx)) {
                    assertThat(t.call("PING")).isEqualTo("+PONG\r\n");
                }
                assertThatThrownBy(() -> RawClient.tls(first, ctx)).isInstanceOf(IOException.class);
                try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1,
                        java.net.InetAddress.getByName("127.0.0.1"))) {
                    assertThat(c.call("CONFIG", "SET", "tls-port", Integer.toString(taken.getLocalPort())))
                            .isEqualTo("-ERR CONFIG SET failed (possibly related to argument 'tls-port') - Unable to "
                                    + "listen on this port. Check server logs.\r\n");
                }
                assertThat(c.call("CONFIG", "GET", "tls-port")).contains(Integer.toString(second));
                try (RawClient t = RawClient.tls(second, ctx)) {
                    assertThat(t.call("PING")).isEqualTo("+PONG\r\n");
                }
                assertThat(c.call("CONFIG", "SET", "tls-port", "0")).isEqualTo("+OK\r\n");
                assertThatThrownBy(() -> RawClient.tls(second, ctx)).isInstanceOf(IOException.class);
                assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
            }
        }
    }
}
