package io.tide.script;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Lua 5.1's wording of the runtime errors LuaJ words its own way. Redis runs Lua 5.1, whose messages name the
 * operand's type as "a nil value" and, where the bytecode tells, the variable ("local 'x' (a nil value)"); LuaJ
 * names the operands' types ("arithmetic __add on nil and number", "attempt to call nil") and never the variable.
 * This gives the form Lua 5.1 uses when it has no name (an expression's value: a call's result, a literal, an
 * indexed table's field), chosen by Lua 5.1's own rules for which operand is reported. Where Lua 5.1 names a
 * variable the message still differs by that name. Messages it does not recognise are left as they are.
 */
final class LuaMessages {
    private static final Pattern ARITHMETIC =
            Pattern.compile("attempt to perform arithmetic __\\w+ on (\\w+) and (\\w+)");
    private static final Pattern UNARY = Pattern.compile("attempt to perform arithmetic on (\\w+)");
    private static final Pattern CONCAT = Pattern.compile("attempt to concatenate (\\w+) and (\\w+)");
    private static final Pattern COMPARE = Pattern.compile("attempt to compare __\\w+ on (\\w+) and (\\w+)");
    /** LuaJ's message for an order comparison of a number and a string: the two types the other way round. */
    private static final Pattern COMPARE_SWAPPED =
            Pattern.compile("attempt to compare (\\w+) with (\\w+) expected, got \\w+");
    private static final Pattern LENGTH = Pattern.compile("attempt to get length of (\\w+)");
    private static final Pattern INDEX = Pattern.compile("attempt to index \\? \\(a (\\w+) value\\)");
    private static final Pattern CALL = Pattern.compile("attempt to call (\\w+)");

    private LuaMessages() {}

    /** Lua 5.1's text for LuaJ's runtime error {@code text} (without its position), or null if it has none. */
    static String lua51(String text) {
        if (!text.startsWith("attempt to ")) return null;
        Matcher m;
        if ((m = ARITHMETIC.matcher(text)).matches()) {
            // luaG_aritherror: the first operand unless it converts to a number (LuaJ calls a numeric string a number)
            return "attempt to perform arithmetic on a " + (m.group(1).equals("number") ? m.group(2) : m.group(1))
                    + " value";
        }
        if ((m = UNARY.matcher(text)).matches()) return "attempt to perform arithmetic on a " + m.group(1) + " value";
        if ((m = CONCAT.matcher(text)).matches()) {
            // luaG_concaterror: the first operand unless it is a string or a number
            String first = m.group(1);
            boolean joins = first.equals("string") || first.equals("number");
            return "attempt to concatenate a " + (joins ? m.group(2) : first) + " value";
        }
        if ((m = COMPARE.matcher(text)).matches()) return compare(m.group(1), m.group(2));
        if ((m = COMPARE_SWAPPED.matcher(text)).matches()) return compare(m.group(2), m.group(1));
        if ((m = LENGTH.matcher(text)).matches()) return "attempt to get length of a " + m.group(1) + " value";
        if ((m = INDEX.matcher(text)).matches()) return "attempt to index a " + m.group(1) + " value";
        if ((m = CALL.matcher(text)).matches()) return "attempt to call a " + m.group(1) + " value";
        return null;
    }

    /** luaG_ordererror. */
    private static String compare(String a, String b) {
        return a.equals(b) ? "attempt to compare two " + a + " values" : "attempt to compare " + a + " with " + b;
    }
}
