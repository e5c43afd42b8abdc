package io.tide.network;

import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RawClient;
import io.tide.testing.RealRedis;
import io.tide.testing.TestCertificates;
import io.tide.testing.TestServers;
import java.io.IOException;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.util.Map;
import java.util.TreeMap;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * TLS configuration against a real redis-server 7.0 started with the same certificates: CONFIG GET tls-* (names,
 * defaults), the errors of CONFIG SET for bad files, protocols, ciphers and a missing CA, and certificate reloads
 * (a new connection sees the new subject, an open one keeps working, a bad file leaves the old context in use).
 * Each test starts both servers afresh, since the tests change their certificates.
 */
class TlsVsRedisTest {

    private TestCertificates pki;
    private RealRedis redis;
    private Server tide;
    private int redisTls;
    private int tideTls;

    @BeforeEach
    void start() throws Exception {
        pki = TestCertificates.create();
        redisTls = RealRedis.freePort();
        redis = RealRedis.startWith(pki.serverOptions(redisTls));
        tideTls = RealRedis.freePort();
        tide = TestServers.start(1, pki.serverOptions(tideTls, "--port", Integer.toString(RealRedis.freePort())));
    }

    @AfterEach
    void stop() {
        if (tide != null) tide.close();
        if (redis != null) redis.close();
    }

    /** Sends the command to both servers' plain ports and asserts the same reply; returns it. */
    private String same(String... args) throws IOException {
        try (RawClient r = new RawClient(redis.port()); RawClient t = new RawClient(tide.port())) {
            String expected = r.call(args);
            assertThat(t.call(args)).as(String.join(" ", args)).isEqualTo(expected);
            return expected;
        }
    }

    /** The subject CN of the certificate a new TLS connection to {@code port} is shown, after a PING. */
    private String serverSubject(int port) throws IOException {
        try (RawClient c = RawClient.tls(port, pki.clientContext(pki.client()))) {
            assertThat(c.call("PING")).isEqualTo("+PONG\r\n");
            X509Certificate leaf = (X509Certificate) ((SSLSocket) c.socket()).getSession().getPeerCertificates()[0];
            return leaf.getSubjectX500Principal().getName();
        }
    }

    private static Map<String, String> configGet(int port, String pattern) throws IOException {
        try (RawClient c = new RawClient(port)) {
            String[] lines = c.call("CONFIG", "GET", pattern).split("\r\n", -1);
            Map<String, String> out = new TreeMap<>();
            // *N, then $len name $len value pairs
            for (int i = 1; i + 3 < lines.length; i += 4) {
                out.put(lines[i + 1], lines[i + 3]);
            }
            return out;
        }
    }

    @Test
    void configGetTls_sameNamesAndValues() throws IOException {
        Map<String, String> r = configGet(redis.port(), "tls-*");
        Map<String, String> t = configGet(tide.port(), "tls-*");
        assertThat(r).containsEntry("tls-port", Integer.toString(redisTls));
        assertThat(t).containsEntry("tls-port", Integer.toString(tideTls));
        r.remove("tls-port");
        t.remove("tls-port");
        assertThat(t.remove("tls-provider")).as("Tide's own parameter").isEqualTo("jdk");
        assertThat(t.remove("tls-auth-clients-user")).as("Redis 8's parameter").isEqualTo("off");
        assertThat(t).isEqualTo(r);
    }

    @Test
    void configSetBadValues_sameErrors_andTheOldContextKeepsServing() throws IOException {
        Path missing = pki.dir().resolve("no-such.crt");
        same("CONFIG", "SET", "tls-cert-file", missing.toString());
        same("CONFIG", "SET", "tls-key-file", pki.caCert().toString());          // not a key
        same("CONFIG", "SET", "tls-cert-file", pki.server2().cert().toString()); // does not match the key
        same("CONFIG", "SET", "tls-ca-cert-file", missing.toString());
        same("CONFIG", "SET", "tls-ca-cert-file", "");                           // tls-auth-clients yes needs a CA
        same("CONFIG", "SET", "tls-protocols", "TLSv1.5");
        same("CONFIG", "SET", "tls-ciphers", "NO-SUCH-CIPHER");
        same("CONFIG", "SET", "tls-ciphersuites", "TLS_NO_SUCH_SUITE");
        same("CONFIG", "SET", "tls-auth-clients", "maybe");
        same("CONFIG", "SET", "tls-session-cache-size", "-1");
        same("CONFIG", "SET", "tls-port", "70000");
        assertThat(same("CONFIG", "GET", "tls-cert-file")).contains(pki.server().cert().toString());
        assertThat(serverSubject(redisTls)).isEqualTo(serverSubject(tideTls)).contains("CN=tide-server").doesNotContain("reloaded");
    }

    @Test
    void configSetCertificateAndKey_newConnectionsSeeTheNewOne() throws Exception {
        try (RawClient before = RawClient.tls(tideTls, pki.clientContext(pki.client()))) {
            assertThat(same("CONFIG", "SET", "tls-cert-file", pki.server2().cert().toString(), "tls-key-file",
                    pki.server2().key().toString())).isEqualTo("+OK\r\n");
            assertThat(serverSubject(tideTls)).isEqualTo(serverSubject(redisTls)).contains("CN=tide-server-reloaded");
            assertThat(before.call("PING")).isEqualTo("+PONG\r\n"); // an open connection keeps its session
        }
        // A broken file now: refused, and the reloaded certificate stays in use.
        same("CONFIG", "SET", "tls-cert-file", pki.dir().resolve("gone.crt").toString());
        assertThat(serverSubject(tideTls)).contains("CN=tide-server-reloaded");
    }

    @Test
    void encryptedKeyWithPassphrase_loadsOnBoth() throws Exception {
        Path enc = pki.encryptedKey(pki.server2(), "s3cret");
        same("CONFIG", "SET", "tls-cert-file", pki.server2().cert().toString(), "tls-key-file", enc.toString());
        assertThat(same("CONFIG", "SET", "tls-cert-file", pki.server2().cert().toString(), "tls-key-file",
                enc.toString(), "tls-key-file-pass", "s3cret")).isEqualTo("+OK\r\n");
        assertThat(serverSubject(tideTls)).isEqualTo(serverSubject(redisTls)).contains("CN=tide-server-reloaded");
    }

    @Test
    void tlsFilesWhileTlsIsOff_areAcceptedUnchecked() throws IOException {
        assertThat(same("CONFIG", "SET", "tls-port", "0")).isEqualTo("+OK\r\n");
        assertThat(same("CONFIG", "SET", "tls-cert-file", "/nonexistent")).isEqualTo("+OK\r\n");
        // tls-replication needs TLS configured: now the bad file is reported.
        same("CONFIG", "SET", "tls-replication", "yes");
    }
}
