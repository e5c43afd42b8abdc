package io.tide.junit5;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a field that receives the Tide server: as {@code io.tide.Server} (the handle), {@code java.net.URI}
 * ({@code redis://127.0.0.1:PORT}) or {@code io.tide.network.Faults} (fault injection). Parameters of those types
 * need no annotation.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface TideInject {}
