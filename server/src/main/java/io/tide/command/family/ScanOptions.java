package io.tide.command.family;

import io.tide.command.Args;
import io.tide.command.Errors;
import io.tide.protocol.Reply;
import io.tide.util.Glob;
import java.util.List;

/**
 * Thread-safe (immutable; the arrays are the command's own arguments). The options of SCAN, HSCAN, SSCAN and
 * ZSCAN, {@code [MATCH pattern] [COUNT count] [NOVALUES] [TYPE type]}: {@code pattern} is null for none (or
 * {@code *}), {@code type} null for none.
 */
record ScanOptions(long count, byte[] pattern, boolean noValues, byte[] type) {

    /** SCAN's, HSCAN's, SSCAN's and ZSCAN's reply when there is nothing to walk: cursor 0, no elements. */
    static final Reply EMPTY = Reply.array(Reply.bulk("0"), Reply.EMPTY_ARRAY);

    /**
     * Parses the options from {@code argv[from]} on, with Redis's errors, in the order they stand: a COUNT
     * that is not an integer, or below 1, and any word not taken are errors. {@code noValuesError} is null
     * where NOVALUES is accepted (HSCAN), otherwise the error line it gets; TYPE is taken where
     * {@code allowType} (SCAN).
     */
    static ScanOptions parse(byte[][] argv, int from, String noValuesError, boolean allowType) {
        long count = 10;
        byte[] pattern = null;
        boolean noValues = false;
        byte[] type = null;
        for (int i = from; i < argv.length; ) {
            boolean pair = argv.length - i >= 2;
            if (Args.is(argv[i], "count") && pair) {
                count = Args.parseLong(argv[i + 1]);
                if (count < 1) throw Errors.syntax();
                i += 2;
            } else if (Args.is(argv[i], "match") && pair) {
                byte[] p = argv[i + 1];
                pattern = p.length == 1 && p[0] == '*' ? null : p;
                i += 2;
            } else if (allowType && Args.is(argv[i], "type") && pair) {
                type = argv[i + 1];
                i += 2;
            } else if (Args.is(argv[i], "novalues")) {
                if (noValuesError != null) throw Errors.error(noValuesError);
                noValues = true;
                i++;
            } else {
                throw Errors.syntax();
            }
        }
        return new ScanOptions(count, pattern, noValues, type);
    }

    /** COUNT as the number of elements a walk asks for. */
    int limit() {
        return (int) Math.min(count, Integer.MAX_VALUE);
    }

    /** Whether {@code element} passes MATCH. */
    boolean matches(byte[] element) {
        return pattern == null || Glob.matches(pattern, element, false);
    }

    /** The reply: the next cursor (unsigned) and the elements. */
    static Reply reply(long next, List<Reply> elements) {
        return Reply.array(Reply.bulk(Long.toUnsignedString(next)), Reply.array(elements));
    }
}
