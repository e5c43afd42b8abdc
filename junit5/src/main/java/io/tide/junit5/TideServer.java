package io.tide.junit5;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs an in-process Tide server for a test class, on an ephemeral port of 127.0.0.1: one for the whole class
 * ({@link Lifecycle#PER_CLASS}, the default) or a fresh one for each test method. Inject it with {@link TidePort}
 * ({@code int} or {@code Integer}) and {@link TideInject} ({@code io.tide.Server}, {@code java.net.URI},
 * {@code io.tide.network.Faults}) on fields, or as test method parameters of those types.
 *
 * <p>Settings apply in this order, a later one overriding an earlier: {@code port 0} and a temporary {@code dir}, then
 * {@link #shards}, {@link #databases} and {@link #requirepass}, then the {@link #configResource} file, then the
 * {@link #config} lines. {@link TideExtension#builder()} offers the same settings for {@code @RegisterExtension}.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@ExtendWith(TideExtension.class)
public @interface TideServer {

    /** When servers start and stop. */
    enum Lifecycle {
        /** One server for the test class: started before the first test, stopped after the last. */
        PER_CLASS,
        /** A server for each test method, stopped after it; methods may then run in parallel. */
        PER_METHOD
    }

    /** One server per class (default) or per method. */
    Lifecycle lifecycle() default Lifecycle.PER_CLASS;

    /** Shards (event-loop threads owning a slice of the keyspace); 0 = one per available processor. */
    int shards() default 1;

    /** Number of databases (SELECT 0 to n-1). */
    int databases() default 16;

    /** The default user's password (Redis's {@code requirepass}); empty: none. */
    String requirepass() default "";

    /** A redis.conf file on the test class path (e.g. {@code "tide-test.conf"}); empty: none. */
    String configResource() default "";

    /** Config lines in redis.conf syntax, e.g. {@code "maxmemory 10mb"}, {@code "notify-keyspace-events KEA"}. */
    String[] config() default {};

    /**
     * FLUSHALL after each test method (with a per-class server). Methods of the class must then not run concurrently
     * with each other; give them a server each ({@link Lifecycle#PER_METHOD}) instead.
     */
    boolean flushBetweenMethods() default false;
}
