package io.tide.testing;

import java.io.IOException;
import java.io.StringWriter;
import java.net.Socket;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.X509Certificate;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.openssl.jcajce.JceOpenSSLPKCS8EncryptorBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.openssl.PKCS8Generator;
import org.bouncycastle.util.io.pem.PemObject;

/**
 * A throwaway PKI for TLS tests, written as PEM files into a temporary directory: a CA, a server certificate for
 * 127.0.0.1 and localhost (also usable as a client certificate, as Redis's test certificates are), a second server
 * certificate with another subject (for reload tests), a client certificate signed by the CA and a self-signed client
 * certificate the CA never saw. Keys are made fresh each run and never leave the directory. Thread-safe (immutable
 * once made).
 */
public final class TestCertificates {

    private static final AtomicLong SERIAL = new AtomicLong(System.currentTimeMillis());

    /** A certificate and its key, as PEM files. */
    public record Pair(Path cert, Path key, X509Certificate certificate, PrivateKey privateKey) {}

    private final Path dir;
    private final Path caCert;
    private final X509Certificate ca;
    private final Pair server;
    private final Pair server2;
    private final Pair client;
    private final Pair selfSigned;

    private TestCertificates(Path dir) throws Exception {
        this.dir = dir;
        KeyPair caKeys = rsa();
        X500Name caName = new X500Name("CN=Tide Test CA,O=Tide");
        JcaX509v3CertificateBuilder cb = builder(caName, caName, caKeys);
        cb.addExtension(Extension.basicConstraints, true, new BasicConstraints(true));
        cb.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
        ca = sign(cb, caKeys.getPrivate());
        caCert = write("ca.crt", pem(ca));
        server = issue("server", "CN=tide-server,O=Tide", caName, caKeys.getPrivate(), true);
        server2 = issue("server2", "CN=tide-server-reloaded,O=Tide", caName, caKeys.getPrivate(), true);
        client = issue("client", "CN=alice,O=Tide", caName, caKeys.getPrivate(), false);
        KeyPair mallory = rsa();
        X500Name malloryName = new X500Name("CN=mallory,O=Elsewhere");
        JcaX509v3CertificateBuilder mb = builder(malloryName, malloryName, mallory);
        mb.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
        X509Certificate m = sign(mb, mallory.getPrivate());
        selfSigned = new Pair(write("mallory.crt", pem(m)), write("mallory.key", pem(mallory.getPrivate())), m,
                mallory.getPrivate());
    }

    /** A fresh PKI in a new temporary directory (deleted on exit). */
    public static TestCertificates create() {
        try {
            Path dir = Files.createTempDirectory("tide-tls");
            dir.toFile().deleteOnExit();
            return new TestCertificates(dir);
        } catch (Exception e) {
            throw new IllegalStateException("could not make test certificates", e);
        }
    }

    public Path dir() { return dir; }
    public Path caCert() { return caCert; }
    public X509Certificate ca() { return ca; }
    public Pair server() { return server; }
    public Pair server2() { return server2; }
    public Pair client() { return client; }
    public Pair selfSigned() { return selfSigned; }

    /** Tide's (or redis-server's) options for a TLS port with these certificates, besides any extra ones. */
    public String[] serverOptions(int tlsPort, String... extra) {
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--tls-port", Integer.toString(tlsPort),
                "--tls-cert-file", server.cert().toString(), "--tls-key-file", server.key().toString(),
                "--tls-ca-cert-file", caCert.toString()));
        args.addAll(java.util.List.of(extra));
        return args.toArray(new String[0]);
    }

    /** A client SSL context trusting the CA and presenting {@code identity} (null: no certificate). */
    public SSLContext clientContext(Pair identity) {
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca);
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            KeyManagerFactory kmf = null;
            if (identity != null) {
                KeyStore keys = KeyStore.getInstance("PKCS12");
                keys.load(null, null);
                keys.setKeyEntry("me", identity.privateKey(), new char[0],
                        new X509Certificate[] {identity.certificate()});
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(keys, new char[0]);
            }
            SSLContext ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf == null ? null : new javax.net.ssl.KeyManager[] {
                    new AlwaysPresent((javax.net.ssl.X509ExtendedKeyManager) kmf.getKeyManagers()[0])},
                    tmf.getTrustManagers(), null);
            return ctx;
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Presents its one certificate whatever the server says it accepts: the JDK's own key manager would withhold a
     * certificate from an issuer the server did not list, and a test of refusal needs the bad one sent, as OpenSSL
     * clients (redis-cli) send it.
     */
    private static final class AlwaysPresent extends javax.net.ssl.X509ExtendedKeyManager {
        private final javax.net.ssl.X509ExtendedKeyManager keys;

        AlwaysPresent(javax.net.ssl.X509ExtendedKeyManager keys) {
            this.keys = keys;
        }

        @Override
        public String[] getClientAliases(String keyType, java.security.Principal[] issuers) {
            return new String[] {"me"};
        }

        @Override
        public String chooseClientAlias(String[] keyType, java.security.Principal[] issuers, Socket socket) {
            return "me";
        }

        @Override
        public String chooseEngineClientAlias(String[] keyType, java.security.Principal[] issuers,
                                              javax.net.ssl.SSLEngine engine) {
            return "me";
        }

        @Override
        public String[] getServerAliases(String keyType, java.security.Principal[] issuers) {
            return null;
        }

        @Override
        public String chooseServerAlias(String keyType, java.security.Principal[] issuers, Socket socket) {
            return null;
        }

        @Override
        public X509Certificate[] getCertificateChain(String alias) {
            return keys.getCertificateChain(alias);
        }

        @Override
        public PrivateKey getPrivateKey(String alias) {
            return keys.getPrivateKey(alias);
        }
    }

    /** The key of {@code pair} written again as an encrypted PKCS#8 file with {@code password}. */
    public Path encryptedKey(Pair pair, String password) throws Exception {
        var enc = new JceOpenSSLPKCS8EncryptorBuilder(PKCS8Generator.AES_256_CBC)
                .setProvider(new org.bouncycastle.jce.provider.BouncyCastleProvider()).setPassword(password.toCharArray())
                .build();
        PemObject obj = new JcaPKCS8Generator(pair.privateKey(), enc).generate();
        StringWriter w = new StringWriter();
        try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
            pw.writeObject(obj);
        }
        return write("enc-" + pair.key().getFileName(), w.toString());
    }

    private Pair issue(String name, String subject, X500Name issuer, PrivateKey issuerKey, boolean server)
            throws Exception {
        KeyPair keys = rsa();
        JcaX509v3CertificateBuilder b = builder(issuer, new X500Name(subject), keys);
        b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
        b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
        if (server) {
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(
                    new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
            b.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(new GeneralName[] {
                    new GeneralName(GeneralName.iPAddress, "127.0.0.1"),
                    new GeneralName(GeneralName.dNSName, "localhost")}));
        } else {
            b.addExtension(Extension.extendedKeyUsage, false, new ExtendedKeyUsage(KeyPurposeId.id_kp_clientAuth));
        }
        X509Certificate cert = sign(b, issuerKey);
        return new Pair(write(name + ".crt", pem(cert)), write(name + ".key", pem(keys.getPrivate())), cert,
                keys.getPrivate());
    }

    private static JcaX509v3CertificateBuilder builder(X500Name issuer, X500Name subject, KeyPair keys) {
        long now = System.currentTimeMillis();
        return new JcaX509v3CertificateBuilder(issuer, BigInteger.valueOf(SERIAL.incrementAndGet()),
                new Date(now - 3_600_000L), new Date(now + 7L * 86_400_000L), subject, keys.getPublic());
    }

    private static X509Certificate sign(X509v3CertificateBuilder b, PrivateKey key) throws Exception {
        return new JcaX509CertificateConverter().getCertificate(
                b.build(new JcaContentSignerBuilder("SHA256withRSA").build(key)));
    }

    private static KeyPair rsa() throws GeneralSecurityException {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        return g.generateKeyPair();
    }

    /** PEM text; a private key as unencrypted PKCS#8 ("BEGIN PRIVATE KEY"), as OpenSSL 3 writes it. */
    private static String pem(Object o) throws IOException {
        StringWriter w = new StringWriter();
        try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
            if (o instanceof PrivateKey k) pw.writeObject(new JcaPKCS8Generator(k, null).generate());
            else pw.writeObject(o);
        }
        return w.toString();
    }

    private Path write(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        p.toFile().deleteOnExit();
        return p;
    }
}
