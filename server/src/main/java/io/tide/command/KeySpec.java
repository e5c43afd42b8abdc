package io.tide.command;

import java.util.List;

/**
 * A Redis 7 key specification of the {@code index} + {@code keynum} kind (EVAL, FCALL and their variants), as
 * COMMAND INFO lists it and COMMAND GETKEYS / GETKEYSANDFLAGS apply it: the argument {@code keyNumIdx} after
 * {@code beginIndex} holds the number of keys, which start {@code firstKey} after it, {@code keyStep} apart, all
 * with {@code flags}. Commands without one show the spec their legacy key range implies. Immutable, so
 * thread-safe.
 */
public record KeySpec(String notes, List<String> flags, int beginIndex, int keyNumIdx, int firstKey, int keyStep) {

    public static KeySpec keynum(String notes, String flags, int beginIndex, int keyNumIdx, int firstKey, int keyStep) {
        return new KeySpec(notes, List.of(flags.split(" ")), beginIndex, keyNumIdx, firstKey, keyStep);
    }

    /**
     * Redis's getKeysUsingKeySpecs for this spec: the argv positions of its keys, or null where it does not apply
     * to these arguments (the caller then falls back to the command's getkeys function). The count is read with
     * string2ll and must not be negative; as in Redis, the keys counted are those of its {@code (int)} value.
     */
    public int[] positions(byte[][] argv) {
        int argc = argv.length;
        if (beginIndex >= argc || beginIndex + keyNumIdx >= argc) return null;
        Long n = Args.parseLongOrNull(argv[beginIndex + keyNumIdx]);
        if (n == null || n < 0) return null;
        int first = beginIndex + firstKey;
        int last = first + (int) n.longValue() - 1;
        if (last >= argc || last < first || first >= argc) return null;
        int[] out = new int[(last - first) / keyStep + 1];
        for (int i = 0; i < out.length; i++) out[i] = first + i * keyStep;
        return out;
    }
}
