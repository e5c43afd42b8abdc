package io.tide.tls;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** tls-ciphers and tls-ciphersuites in OpenSSL's syntax, as far as the JDK's suites go. */
class CiphersTest {

    @Test
    void openSslAndIanaNames_becomeJdkNames_inOrder() throws TlsException {
        assertThat(Ciphers.tls12("ECDHE-RSA-AES128-GCM-SHA256:TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384"))
                .containsExactly("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384");
    }

    @Test
    void unknownNamesAreSkipped_butNothingLeftIsAnError() throws TlsException {
        assertThat(Ciphers.tls12("NO-SUCH:ECDHE-RSA-AES128-GCM-SHA256"))
                .containsExactly("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
        assertThatThrownBy(() -> Ciphers.tls12("NO-SUCH")).hasMessage("Failed to configure ciphers: NO-SUCH");
        assertThatThrownBy(() -> Ciphers.tls13("TLS_NO_SUCH")).hasMessage("Failed to configure ciphersuites: TLS_NO_SUCH");
    }

    @Test
    void defaultMinusOne_isTheJdkDefaultsWithoutIt() throws TlsException {
        assertThat(Ciphers.tls12("DEFAULT")).contains("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
        assertThat(Ciphers.tls12("DEFAULT:!ECDHE-RSA-AES128-GCM-SHA256"))
                .doesNotContain("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256").isNotEmpty();
        assertThat(Ciphers.tls12("")).noneMatch(Ciphers::isTls13);
    }

    @Test
    void tls13Suites_keepTheirOrder_andEmptyMeansTheDefaults() throws TlsException {
        assertThat(Ciphers.tls13("TLS_CHACHA20_POLY1305_SHA256:TLS_AES_128_GCM_SHA256"))
                .containsExactly("TLS_CHACHA20_POLY1305_SHA256", "TLS_AES_128_GCM_SHA256");
        assertThat(Ciphers.tls13("")).contains("TLS_AES_256_GCM_SHA384").allMatch(Ciphers::isTls13);
    }
}
