#!/usr/bin/env bash
# Sourced by Tide's scripts: sets JAVA_HOME to a JDK 25 or newer, or explains what is missing and exits 1.
# Looks at $JAVA_HOME, then `java` on PATH, then the JDKs under /usr/lib/jvm (Temurin's among them).

tide_java_version() { # JAVA_BIN -> major version number, or nothing
  "$1" -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.specification.version/ {print $2; exit}'
}

tide_find_java() {
  local cand v
  local -a cands=()
  [[ -n ${JAVA_HOME:-} ]] && cands+=("$JAVA_HOME")
  if command -v java >/dev/null 2>&1; then
    cands+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
  for cand in /usr/lib/jvm/temurin-25* /usr/lib/jvm/*25* /usr/lib/jvm/*; do
    [[ -d $cand ]] && cands+=("$cand")
  done
  for cand in "${cands[@]}"; do
    [[ -x $cand/bin/java && -x $cand/bin/javac ]] || continue
    v=$(tide_java_version "$cand/bin/java")
    if [[ -n $v && ${v%%.*} -ge 25 ]]; then
      export JAVA_HOME=$cand
      export PATH="$JAVA_HOME/bin:$PATH"
      return 0
    fi
  done
  echo "tide: needs a JDK 25 or newer (java and javac); none found in JAVA_HOME, on PATH or under /usr/lib/jvm." >&2
  echo "tide: install one (e.g. Temurin 25) and set JAVA_HOME to it." >&2
  return 1
}

tide_find_java || exit 1
