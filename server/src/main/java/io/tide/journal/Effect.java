package io.tide.journal;

/**
 * One write effect as Redis propagates it: a deterministic command ({@code argv}, name first) that applies to
 * database {@code db}. Immutable by convention: nobody changes the arrays once the effect is journalled.
 */
public record Effect(int db, byte[][] argv) {}
