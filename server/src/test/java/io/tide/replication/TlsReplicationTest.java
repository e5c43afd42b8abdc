package io.tide.replication;

import static io.tide.replication.RedisReplicaOfTideTest.await;
import static io.tide.replication.RedisReplicaOfTideTest.awaitLinkUp;
import static io.tide.replication.RedisReplicaOfTideTest.field;
import static org.assertj.core.api.Assertions.assertThat;

import io.tide.Server;
import io.tide.testing.RealRedis;
import io.tide.testing.TestCertificates;
import io.tide.testing.TestServers;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * Replication over TLS ({@code tls-replication yes}): Tide replicating from a redis-server primary that requires client
 * certificates on its TLS port, a redis-server replicating from Tide's TLS port, and Tide from Tide with a separate
 * client certificate (tls-client-cert-file), whose CN the primary sees on the replica's connection.
 */
class TlsReplicationTest {

    private static final TestCertificates PKI = TestCertificates.create();

    private static String[] replicaOptions(int primaryTlsPort, String... extra) {
        List<String> args = new ArrayList<>(List.of("--tls-replication", "yes",
                "--tls-cert-file", PKI.server().cert().toString(), "--tls-key-file", PKI.server().key().toString(),
                "--tls-ca-cert-file", PKI.caCert().toString(), "--replicaof", "127.0.0.1 " + primaryTlsPort));
        args.addAll(List.of(extra));
        return args.toArray(new String[0]);
    }

    private static void writeAndCompare(Jedis primary, Jedis replica) throws InterruptedException {
        for (int i = 0; i < 100; i++) primary.set("tls:k" + i, "v" + i);
        primary.rpush("tls:list", "a", "b", "c");
        await("the replica to apply the stream", 20_000, () -> "v99".equals(replica.get("tls:k99"))
                && replica.llen("tls:list") == 3);
        assertThat(replica.get("tls:k0")).isEqualTo("v0");
        assertThat(replica.lrange("tls:list", 0, -1)).containsExactly("a", "b", "c");
    }

    @Test
    void tideReplicaOfRedis_overTls() throws Exception {
        int redisTls = RealRedis.freePort();
        try (RealRedis redis = RealRedis.startWith(PKI.serverOptions(redisTls, "--repl-diskless-sync-delay", "0"));
             Jedis p = TestServers.jedis(redis.port(), 2)) {
            p.set("before-sync", "1");
            try (Server tide = TestServers.start(2, replicaOptions(redisTls));
                 Jedis t = TestServers.jedis(tide.port(), 2)) {
                awaitLinkUp(t);
                assertThat(t.get("before-sync")).isEqualTo("1");
                writeAndCompare(p, t);
                assertThat(field(t, "replication", "master_port")).isEqualTo(Integer.toString(redisTls));
            }
        }
    }

    @Test
    void redisReplicaOfTide_overTls() throws Exception {
        int tideTls = RealRedis.freePort();
        try (Server tide = TestServers.start(1, PKI.serverOptions(tideTls, "--port",
                Integer.toString(RealRedis.freePort()), "--repl-diskless-sync-delay", "0"));
             Jedis p = TestServers.jedis(tide.port(), 2)) {
            p.set("before-sync", "1");
            List<String> redisArgs = new ArrayList<>(List.of(replicaOptions(tideTls)));
            int i = redisArgs.indexOf("--replicaof");
            redisArgs.set(i + 1, "127.0.0.1 " + tideTls);
            try (RealRedis redis = RealRedis.startWith(redisArgs.toArray(new String[0]));
                 Jedis r = TestServers.jedis(redis.port(), 2)) {
                await("redis to sync over TLS", 20_000, () -> "up".equals(field(r, "replication", "master_link_status")));
                assertThat(r.get("before-sync")).isEqualTo("1");
                writeAndCompare(p, r);
            }
        }
    }

    @Test
    void tideReplicaOfTide_overTls_withItsOwnClientCertificate() throws Exception {
        int primaryTls = RealRedis.freePort();
        try (Server primary = TestServers.start(1, PKI.serverOptions(primaryTls, "--port",
                Integer.toString(RealRedis.freePort()), "--repl-diskless-sync-delay", "0"));
             Jedis p = TestServers.jedis(primary.port(), 2);
             Server replica = TestServers.start(1, replicaOptions(primaryTls,
                     "--tls-client-cert-file", PKI.client().cert().toString(),
                     "--tls-client-key-file", PKI.client().key().toString()));
             Jedis r = TestServers.jedis(replica.port(), 2)) {
            awaitLinkUp(r);
            writeAndCompare(p, r);
            assertThat(primary.context().clients().stream()
                    .filter(s -> "alice".equals(s.tlsPeerName())).count()).as("the replica's link").isEqualTo(1);
        }
    }
}
