package io.tide.script;

import java.util.Collections;
import java.util.List;

/**
 * A library loaded with FUNCTION LOAD: its name, engine ("LUA"), full code (shebang included, as FUNCTION LIST
 * WITHCODE and FUNCTION DUMP give it), its functions in registration order and the size of their compiled state
 * ({@link ScriptMemory}). Thread-safe (immutable).
 */
public record Library(String name, String engine, byte[] code, List<LibraryFunction> functions, long compiledBytes) {

    public Library {
        functions = Collections.unmodifiableList(functions);
    }
}
