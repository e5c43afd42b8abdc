package io.tide.tls;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.KeySpec;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.crypto.Cipher;
import javax.crypto.EncryptedPrivateKeyInfo;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Reads the PEM files OpenSSL writes: certificates, and private keys as PKCS#8 (plain or encrypted with a
 * passphrase), PKCS#1 RSA or SEC1 EC (the last two unencrypted: convert an old-style encrypted one with
 * {@code openssl pkcs8 -topk8}). Thread-safe (stateless).
 */
public final class Pem {

    private static final byte[] RSA_ALGORITHM = hex("300d06092a864886f70d0101010500");  // rsaEncryption, NULL
    private static final byte[] EC_PUBLIC_KEY_OID = hex("06072a8648ce3d0201");           // id-ecPublicKey

    private Pem() {}

    /** Every certificate in the file, in order (a chain: the leaf first). */
    public static List<X509Certificate> certificates(Path file) throws IOException, CertificateException {
        byte[] bytes = Files.readAllBytes(file);
        List<X509Certificate> out = new ArrayList<>();
        CertificateFactory cf = CertificateFactory.getInstance("X.509");
        for (Block b : blocks(new String(bytes, StandardCharsets.US_ASCII))) {
            if (b.label.equals("CERTIFICATE") || b.label.equals("TRUSTED CERTIFICATE")
                    || b.label.equals("X509 CERTIFICATE")) {
                out.add((X509Certificate) cf.generateCertificate(new ByteArrayInputStream(b.der)));
            }
        }
        if (out.isEmpty()) throw new CertificateException("no certificate found");
        return out;
    }

    /** The first private key in the file; {@code password} (empty for none) opens an encrypted PKCS#8 key. */
    public static PrivateKey privateKey(Path file, String password) throws IOException, GeneralSecurityException {
        String text = Files.readString(file, StandardCharsets.US_ASCII);
        byte[] ecParameters = null; // `openssl ecparam -genkey` writes the curve's OID in a block of its own first
        for (Block b : blocks(text)) {
            switch (b.label) {
                case "PRIVATE KEY" -> {
                    return pkcs8(b.der);
                }
                case "ENCRYPTED PRIVATE KEY" -> {
                    return encryptedPkcs8(b.der, password);
                }
                case "RSA PRIVATE KEY" -> {
                    if (b.encrypted) throw legacyEncrypted();
                    return pkcs8(sequence(integer0(), RSA_ALGORITHM, octets(b.der)));
                }
                case "EC PRIVATE KEY" -> {
                    if (b.encrypted) throw legacyEncrypted();
                    byte[] curve = ecCurve(b.der);
                    if (curve == null) curve = ecParameters;
                    if (curve == null) throw new GeneralSecurityException("EC key without named curve parameters");
                    return pkcs8(sequence(integer0(), sequence(EC_PUBLIC_KEY_OID, curve), octets(b.der)));
                }
                case "EC PARAMETERS" -> ecParameters = b.der;
                default -> { } // certificates in a combined file: skip
            }
        }
        throw new GeneralSecurityException("no private key found");
    }

    private static GeneralSecurityException legacyEncrypted() {
        return new GeneralSecurityException("old-style encrypted PEM keys are not supported; convert with "
                + "'openssl pkcs8 -topk8'");
    }

    private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
        KeySpec spec = new PKCS8EncodedKeySpec(der);
        GeneralSecurityException last = null;
        for (String alg : new String[] {"RSA", "EC", "Ed25519", "Ed448", "RSASSA-PSS", "DSA"}) {
            try {
                return KeyFactory.getInstance(alg).generatePrivate(spec);
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw new GeneralSecurityException("unsupported private key", last);
    }

    private static PrivateKey encryptedPkcs8(byte[] der, String password) throws IOException, GeneralSecurityException {
        if (password.isEmpty()) throw new GeneralSecurityException("the key is encrypted and no passphrase is set");
        EncryptedPrivateKeyInfo info = new EncryptedPrivateKeyInfo(der);
        String alg = info.getAlgName();
        AlgorithmParameters params = info.getAlgParameters();
        if (alg.equals("1.2.840.113549.1.5.13") || alg.equalsIgnoreCase("PBES2")) alg = params.toString(); // PBES2
        SecretKeyFactory skf = SecretKeyFactory.getInstance(alg);
        Cipher cipher = Cipher.getInstance(alg);
        cipher.init(Cipher.DECRYPT_MODE, skf.generateSecret(new PBEKeySpec(password.toCharArray())), params);
        try {
            return pkcs8(info.getKeySpec(cipher).getEncoded());
        } catch (GeneralSecurityException e) {
            throw new GeneralSecurityException("bad decrypt (wrong passphrase?)", e);
        }
    }

    /**
     * The curve OID of a SEC1 ECPrivateKey ({@code SEQUENCE { INTEGER 1, OCTET STRING, [0] OID, [1] BIT STRING }}), or
     * null when it has no parameters.
     */
    private static byte[] ecCurve(byte[] sec1) throws GeneralSecurityException {
        int[] seq = header(sec1, 0);
        int p = seq[0];
        int end = p + seq[1];
        while (p < end) {
            int tag = sec1[p] & 0xff;
            int[] h = header(sec1, p);
            if (tag == 0xa0) {
                int[] oid = header(sec1, h[0]);
                return java.util.Arrays.copyOfRange(sec1, h[0], oid[0] + oid[1]);
            }
            p = h[0] + h[1];
        }
        return null;
    }

    /** {contents offset, contents length} of the DER element at {@code p}. */
    private static int[] header(byte[] der, int p) throws GeneralSecurityException {
        if (p + 2 > der.length) throw new GeneralSecurityException("truncated DER");
        int len = der[p + 1] & 0xff;
        int off = p + 2;
        if (len >= 0x80) {
            int n = len & 0x7f;
            if (n == 0 || n > 3 || off + n > der.length) throw new GeneralSecurityException("bad DER length");
            len = 0;
            for (int i = 0; i < n; i++) len = (len << 8) | (der[off + i] & 0xff);
            off += n;
        }
        if (off + len > der.length) throw new GeneralSecurityException("truncated DER");
        return new int[] {off, len};
    }

    private static byte[] integer0() {
        return new byte[] {0x02, 0x01, 0x00};
    }

    private static byte[] octets(byte[] content) {
        return element(0x04, content);
    }

    private static byte[] sequence(byte[]... parts) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] p : parts) body.writeBytes(p);
        return element(0x30, body.toByteArray());
    }

    private static byte[] element(int tag, byte[] content) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
        out.write(tag);
        int n = content.length;
        if (n < 0x80) {
            out.write(n);
        } else if (n < 0x100) {
            out.write(0x81);
            out.write(n);
        } else if (n < 0x10000) {
            out.write(0x82);
            out.write(n >> 8);
            out.write(n);
        } else {
            out.write(0x83);
            out.write(n >> 16);
            out.write(n >> 8);
            out.write(n);
        }
        out.writeBytes(content);
        return out.toByteArray();
    }

    private static byte[] hex(String s) {
        return java.util.HexFormat.of().parseHex(s);
    }

    /** One {@code -----BEGIN label-----} block: its label, DER bytes and whether it has old-style encryption headers. */
    private record Block(String label, byte[] der, boolean encrypted) {}

    private static List<Block> blocks(String text) {
        List<Block> out = new ArrayList<>();
        int from = 0;
        while (true) {
            int begin = text.indexOf("-----BEGIN ", from);
            if (begin < 0) return out;
            int labelEnd = text.indexOf("-----", begin + 11);
            if (labelEnd < 0) return out;
            String label = text.substring(begin + 11, labelEnd);
            String endMarker = "-----END " + label + "-----";
            int end = text.indexOf(endMarker, labelEnd);
            if (end < 0) return out;
            String body = text.substring(labelEnd + 5, end);
            boolean encrypted = body.contains("Proc-Type:") && body.contains("ENCRYPTED");
            StringBuilder b64 = new StringBuilder();
            for (String line : body.split("\r?\n")) {
                if (line.contains(":")) continue; // Proc-Type, DEK-Info headers
                b64.append(line.strip());
            }
            try {
                out.add(new Block(label, Base64.getMimeDecoder().decode(b64.toString()), encrypted));
            } catch (IllegalArgumentException bad) {
                // not base64: skip the block, as a later one may still be what the caller wants
            }
            from = end + endMarker.length();
        }
    }
}
