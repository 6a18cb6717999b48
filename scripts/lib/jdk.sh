# shellcheck shell=bash
# Finds a JDK 21 or newer, for ./mvnw and scripts that run Java:
#   1. $JAVA_HOME, when it is 21+;
#   2. otherwise the newest JDK 21+ under /usr/lib/jvm, /opt/java, /opt or ~/.sdkman/candidates/java;
#   3. otherwise the JDK of `javac` on the PATH, when it is 21+.
# find_jdk prints its home, or nothing.

java_major() { # $1 = a JDK home; prints its feature version, or nothing
  local release="$1/release" v
  [[ -x "$1/bin/javac" && -r "$release" ]] || return 0
  v=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "$release")
  [[ -n "$v" ]] && echo "$v"
}

find_jdk() {
  local best="" best_v=0 home v
  if [[ -n "${JAVA_HOME:-}" ]]; then
    v=$(java_major "$JAVA_HOME")
    if [[ -n "$v" && "$v" -ge 21 ]]; then echo "$JAVA_HOME"; return; fi
  fi
  for home in /usr/lib/jvm/* /opt/java/* /opt/* "$HOME"/.sdkman/candidates/java/*; do
    [[ -d "$home" ]] || continue
    v=$(java_major "$home")
    if [[ -n "$v" && "$v" -ge 21 && "$v" -gt "$best_v" ]]; then best="$home" best_v="$v"; fi
  done
  if [[ -z "$best" ]] && command -v javac >/dev/null; then
    home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    v=$(java_major "$home")
    if [[ -n "$v" && "$v" -ge 21 ]]; then best="$home"; fi
  fi
  echo "$best"
}
