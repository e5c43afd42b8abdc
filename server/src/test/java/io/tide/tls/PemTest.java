package io.tide.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.tide.testing.TestCertificates;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The key and certificate formats OpenSSL writes: PKCS#8 (plain, encrypted), PKCS#1 RSA, SEC1 EC, chains. */
class PemTest {

    @TempDir
    Path dir;

    /** Writes the key as BC's traditional OpenSSL form: "RSA PRIVATE KEY" (PKCS#1) or "EC PRIVATE KEY" (SEC1). */
    private Path traditional(KeyPair keys, String name) throws Exception {
        StringWriter w = new StringWriter();
        try (JcaPEMWriter pw = new JcaPEMWriter(w)) {
            pw.writeObject(keys);
        }
        Path p = dir.resolve(name);
        Files.writeString(p, w.toString());
        return p;
    }

    @Test
    void pkcs1Rsa_readsAsTheSameKey() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("RSA");
        g.initialize(2048);
        KeyPair keys = g.generateKeyPair();
        Path p = traditional(keys, "rsa.key");
        assertThat(Files.readString(p)).startsWith("-----BEGIN RSA PRIVATE KEY-----");
        assertThat(Pem.privateKey(p, "").getEncoded()).isEqualTo(keys.getPrivate().getEncoded());
    }

    @Test
    void sec1Ec_readsAsTheSameKey_withItsCurveInline_orInAnEcParametersBlock() throws Exception {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"));
        KeyPair keys = g.generateKeyPair();
        java.security.interfaces.ECPrivateKey priv = (java.security.interfaces.ECPrivateKey) keys.getPrivate();
        var curve = org.bouncycastle.asn1.sec.SECObjectIdentifiers.secp256r1;
        // As `openssl ecparam -genkey` writes it: the curve in the key, and (without -noout) in a block before it.
        byte[] sec1 = new org.bouncycastle.asn1.sec.ECPrivateKey(256, priv.getS(), null, curve).getEncoded();
        byte[] bare = new org.bouncycastle.asn1.sec.ECPrivateKey(256, priv.getS()).getEncoded();
        var mime = java.util.Base64.getMimeEncoder(64, "\n".getBytes());
        Path inline = dir.resolve("ec.key");
        Files.writeString(inline, "-----BEGIN EC PRIVATE KEY-----\n" + mime.encodeToString(sec1)
                + "\n-----END EC PRIVATE KEY-----\n");
        Path separate = dir.resolve("ec2.key");
        Files.writeString(separate, "-----BEGIN EC PARAMETERS-----\n" + mime.encodeToString(curve.getEncoded())
                + "\n-----END EC PARAMETERS-----\n-----BEGIN EC PRIVATE KEY-----\n" + mime.encodeToString(bare)
                + "\n-----END EC PRIVATE KEY-----\n");
        for (Path p : new Path[] {inline, separate}) {
            var read = (java.security.interfaces.ECPrivateKey) Pem.privateKey(p, "");
            assertThat(read.getS()).isEqualTo(priv.getS());
            assertThat(read.getParams().getCurve()).isEqualTo(priv.getParams().getCurve());
        }
    }

    @Test
    void encryptedPkcs8_needsItsPassphrase() throws Exception {
        TestCertificates pki = TestCertificates.create();
        Path enc = pki.encryptedKey(pki.server(), "pw");
        assertThat(Files.readString(enc)).startsWith("-----BEGIN ENCRYPTED PRIVATE KEY-----");
        assertThat(Pem.privateKey(enc, "pw").getEncoded()).isEqualTo(pki.server().privateKey().getEncoded());
        assertThatThrownBy(() -> Pem.privateKey(enc, "")).isInstanceOf(GeneralSecurityException.class)
                .hasMessageContaining("no passphrase");
        assertThatThrownBy(() -> Pem.privateKey(enc, "wrong")).isInstanceOf(GeneralSecurityException.class);
    }

    @Test
    void chainFile_readsEveryCertificateInOrder_andAFileWithoutOneFails() throws Exception {
        TestCertificates pki = TestCertificates.create();
        Path chain = dir.resolve("chain.pem");
        Files.writeString(chain, "some text before\n" + Files.readString(pki.server().cert())
                + Files.readString(pki.caCert()));
        assertThat(Pem.certificates(chain)).containsExactly(pki.server().certificate(), pki.ca());
        assertThatThrownBy(() -> Pem.certificates(pki.server().key()))
                .isInstanceOf(java.security.cert.CertificateException.class);
        assertThatThrownBy(() -> Pem.privateKey(pki.caCert(), "")).isInstanceOf(GeneralSecurityException.class);
    }
}
