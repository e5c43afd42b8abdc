package io.tide.tls;

import io.tide.config.ConfigRegistry;
import java.io.IOException;
import java.net.Socket;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * Everything the tls-* parameters name, loaded and checked: the server's key and certificate chain, the client's
 * (for replication), the CA certificates peers must chain to, the protocol versions and cipher suites, and the
 * session cache settings. Thread-safe (immutable); a reload builds a new one and the old stays in use until then.
 *
 * @param key                 the private key of {@code chain}
 * @param chain               the server certificate first, then its intermediates
 * @param clientKey           the key replication presents to a primary (tls-client-key-file, else tls-key-file)
 * @param clientChain         its certificates
 * @param authorities         CA certificates from tls-ca-cert-file and tls-ca-cert-dir; empty when neither is set
 * @param protocols           JDK protocol names, e.g. TLSv1.2 and TLSv1.3
 * @param cipherSuites        JDK cipher suite names, TLSv1.3 ones first
 * @param preferServerCiphers tls-prefer-server-ciphers
 * @param sessionCaching      tls-session-caching
 * @param sessionCacheSize    tls-session-cache-size
 * @param sessionCacheTimeout tls-session-cache-timeout, seconds
 */
public record TlsMaterial(PrivateKey key, List<X509Certificate> chain, PrivateKey clientKey,
                          List<X509Certificate> clientChain, List<X509Certificate> authorities, List<String> protocols,
                          List<String> cipherSuites, boolean preferServerCiphers, boolean sessionCaching,
                          int sessionCacheSize, int sessionCacheTimeout) {

    /** The parameters whose change makes Redis reconfigure TLS (its {@code applyTlsCfg}), tls-port aside. */
    public static final List<String> PARAMETERS = List.of("tls-cert-file", "tls-key-file", "tls-key-file-pass",
            "tls-client-cert-file", "tls-client-key-file", "tls-client-key-file-pass", "tls-dh-params-file",
            "tls-ca-cert-file", "tls-ca-cert-dir", "tls-protocols", "tls-ciphers", "tls-ciphersuites",
            "tls-prefer-server-ciphers", "tls-session-caching", "tls-session-cache-size", "tls-session-cache-timeout",
            "tls-replication", "tls-cluster");

    /** Whether the configuration needs TLS: a TLS port, or TLS replication or cluster links (as Redis decides). */
    public static boolean inUse(ConfigRegistry config) {
        return config.getInt("tls-port") != 0 || config.getBool("tls-replication") || config.getBool("tls-cluster");
    }

    /**
     * Loads and checks what the configuration names; relative paths are taken from {@code dir}, as Redis, which
     * changes into {@code dir}, reads them.
     *
     * @throws TlsException with the line to log, in Redis's words where Redis has them
     */
    public static TlsMaterial load(ConfigRegistry config) throws TlsException {
        Path dir = Path.of(config.get("dir"));
        String certFile = config.get("tls-cert-file");
        String keyFile = config.get("tls-key-file");
        if (certFile.isEmpty()) throw new TlsException("No tls-cert-file configured!");
        if (keyFile.isEmpty()) throw new TlsException("No tls-key-file configured!");
        List<X509Certificate> chain = certificates(dir, certFile);
        PrivateKey key = privateKey(dir, keyFile, config.get("tls-key-file-pass"), chain.getFirst());
        List<X509Certificate> clientChain = chain;
        PrivateKey clientKey = key;
        String clientCertFile = config.get("tls-client-cert-file");
        if (!clientCertFile.isEmpty()) {
            String clientKeyFile = config.get("tls-client-key-file");
            if (clientKeyFile.isEmpty()) throw new TlsException("No tls-client-key-file configured!");
            clientChain = certificates(dir, clientCertFile);
            clientKey = privateKey(dir, clientKeyFile, config.get("tls-client-key-file-pass"), clientChain.getFirst());
        }
        String caFile = config.get("tls-ca-cert-file");
        String caDir = config.get("tls-ca-cert-dir");
        boolean needsCa = !config.get("tls-auth-clients").equals("no") || config.getBool("tls-replication")
                || config.getBool("tls-cluster");
        if (needsCa && caFile.isEmpty() && caDir.isEmpty()) {
            throw new TlsException("Either tls-ca-cert-file or tls-ca-cert-dir must be specified when tls-cluster, "
                    + "tls-replication or tls-auth-clients are enabled!");
        }
        List<X509Certificate> authorities = new ArrayList<>();
        if (!caFile.isEmpty()) authorities.addAll(authorityFile(dir.resolve(caFile)));
        if (!caDir.isEmpty()) authorities.addAll(authorityDir(dir.resolve(caDir)));
        String dh = config.get("tls-dh-params-file");
        if (!dh.isEmpty()) dhParams(dir.resolve(dh));
        return new TlsMaterial(key, List.copyOf(chain), clientKey, List.copyOf(clientChain), List.copyOf(authorities),
                protocols(config.get("tls-protocols")), Ciphers.select(config.get("tls-ciphers"),
                config.get("tls-ciphersuites")), config.getBool("tls-prefer-server-ciphers"),
                config.getBool("tls-session-caching"), config.getInt("tls-session-cache-size"),
                config.getInt("tls-session-cache-timeout"));
    }

    /** A trust manager factory over {@link #authorities}. */
    public TrustManagerFactory trust() throws GeneralSecurityException {
        KeyStore store = emptyStore();
        for (int i = 0; i < authorities.size(); i++) store.setCertificateEntry("ca" + i, authorities.get(i));
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(store);
        return tmf;
    }

    /**
     * Runs the TLS handshake over a connected socket as a client (a replica to its primary), presenting the client
     * certificate and verifying the peer's chain against the CA certificates (no host name check, as Redis).
     */
    public SSLSocket clientHandshake(Socket plain, String host, int port) throws IOException {
        SSLContext ctx;
        try {
            KeyStore keys = emptyStore();
            char[] none = new char[0];
            keys.setKeyEntry("client", clientKey, none, clientChain.toArray(new X509Certificate[0]));
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(keys, none);
            ctx = SSLContext.getInstance("TLS");
            ctx.init(kmf.getKeyManagers(), trust().getTrustManagers(), null);
        } catch (GeneralSecurityException e) {
            throw new IOException("TLS client context: " + e.getMessage(), e);
        }
        SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(plain, host, port, true);
        s.setUseClientMode(true);
        s.setEnabledProtocols(protocols.toArray(new String[0]));
        s.setEnabledCipherSuites(cipherSuites.toArray(new String[0]));
        s.startHandshake();
        return s;
    }

    private static KeyStore emptyStore() throws GeneralSecurityException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try {
            store.load(null, null);
        } catch (IOException e) {
            throw new GeneralSecurityException(e);
        }
        return store;
    }

    private static List<X509Certificate> certificates(Path dir, String file) throws TlsException {
        Path p = dir.resolve(file);
        try {
            return Pem.certificates(p);
        } catch (IOException | GeneralSecurityException e) {
            throw new TlsException("Failed to load certificate: " + file + ": " + reason(e), e);
        }
    }

    private static PrivateKey privateKey(Path dir, String file, String password, X509Certificate cert)
            throws TlsException {
        PrivateKey key;
        try {
            key = Pem.privateKey(dir.resolve(file), password);
        } catch (IOException | GeneralSecurityException e) {
            throw new TlsException("Failed to load private key: " + file + ": " + reason(e), e);
        }
        if (!matches(key, cert.getPublicKey())) {
            throw new TlsException("Failed to load private key: " + file + ": key values mismatch");
        }
        return key;
    }

    /** Whether the key signs what the certificate's public key verifies (OpenSSL's SSL_CTX_check_private_key). */
    private static boolean matches(PrivateKey key, PublicKey pub) {
        String alg = switch (key.getAlgorithm()) {
            case "RSA" -> "SHA256withRSA";
            case "EC" -> "SHA256withECDSA";
            case "Ed25519", "Ed448", "EdDSA" -> key.getAlgorithm();
            case "DSA" -> "SHA256withDSA";
            default -> null;
        };
        if (alg == null) return true; // nothing to check it with: the handshake will tell
        try {
            byte[] probe = "tide key check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            Signature sign = Signature.getInstance(alg);
            sign.initSign(key);
            sign.update(probe);
            byte[] sig = sign.sign();
            Signature verify = Signature.getInstance(alg);
            verify.initVerify(pub);
            verify.update(probe);
            return verify.verify(sig);
        } catch (GeneralSecurityException e) {
            return false;
        }
    }

    private static List<X509Certificate> authorityFile(Path file) throws TlsException {
        try {
            return Pem.certificates(file);
        } catch (IOException | GeneralSecurityException e) {
            throw new TlsException("Failed to configure CA certificate(s) file/directory: " + file + ": " + reason(e),
                    e);
        }
    }

    /** Every certificate in the directory's PEM files; files that hold none are passed over, as OpenSSL's lookup. */
    private static List<X509Certificate> authorityDir(Path dir) throws TlsException {
        List<X509Certificate> out = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                if (!Files.isRegularFile(f)) continue;
                try {
                    out.addAll(Pem.certificates(f));
                } catch (IOException | GeneralSecurityException notACertificate) {
                    // skipped
                }
            }
        } catch (IOException e) {
            throw new TlsException("Failed to configure CA certificate(s) file/directory: " + dir + ": " + reason(e),
                    e);
        }
        return out;
    }

    private static void dhParams(Path file) throws TlsException {
        try {
            if (!Files.readString(file, java.nio.charset.StandardCharsets.US_ASCII).contains("-----BEGIN DH PARAMETERS")) {
                throw new TlsException("Failed to load " + file + ": no DH parameters found");
            }
        } catch (IOException e) {
            throw new TlsException("Failed to load " + file + ": " + reason(e), e);
        }
    }

    /** tls-protocols: words out of TLSv1, TLSv1.1, TLSv1.2, TLSv1.3 (any case); empty = TLSv1.2 and TLSv1.3. */
    static List<String> protocols(String spec) throws TlsException {
        if (spec.isBlank()) return List.of("TLSv1.3", "TLSv1.2");
        List<String> out = new ArrayList<>();
        for (String w : spec.trim().split("\\s+")) {
            String p = switch (w.toLowerCase(Locale.ROOT)) {
                case "tlsv1" -> "TLSv1";
                case "tlsv1.1" -> "TLSv1.1";
                case "tlsv1.2" -> "TLSv1.2";
                case "tlsv1.3" -> "TLSv1.3";
                default -> throw new TlsException("Invalid tls-protocols specified. Use a combination of 'TLSv1', "
                        + "'TLSv1.1', 'TLSv1.2' and 'TLSv1.3'.");
            };
            if (!out.contains(p)) out.add(p);
        }
        return List.copyOf(out);
    }

    private static String reason(Exception e) {
        if (e instanceof java.nio.file.NoSuchFileException) return "No such file or directory";
        if (e instanceof java.nio.file.AccessDeniedException) return "Permission denied";
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }

    @Override
    public String toString() {
        return "TlsMaterial[" + chain.getFirst().getSubjectX500Principal() + "]"; // never the keys
    }
}
