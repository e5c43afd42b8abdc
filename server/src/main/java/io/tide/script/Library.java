package io.tide.script;

import java.util.Collections;
import java.util.List;

/**
 * A library loaded with FUNCTION LOAD: its name, engine ("LUA"), full code (shebang included, as FUNCTION LIST
 * WITHCODE and FUNCTION DUMP give it) and its functions in registration order. Thread-safe (immutable).
 */
public record Library(String name, String engine, byte[] code, List<LibraryFunction> functions) {

    public Library {
        functions = Collections.unmodifiableList(functions);
    }
}
