#!/usr/bin/env bash
# Fetches the real Level Zero .deb files the test fixtures are built from, and unpacks them into a cache dir.
#
#   bookworm: libze1 + libze-dev 1.8.12-1 through the machine's own apt sources (Debian 12).
#   bookworm-gpu: Debian 12's own GPU user-mode driver 22.43 (intel-opencl-icd holds libze_intel_gpu.so.1 and
#             ocloc) with IGC (libigc1, libigdfcl1), gmmlib (libigdgmm12) and libopencl-clang14, through the
#             machine's own apt sources. IGC needs the host's libLLVM-14 and libLLVMSPIRVLib 14 (libllvm14,
#             libllvmspirvlib14) to load.
#   trixie:   libze1 + libze-dev 1.20.6-1 through a private sources list, state and cache under the cache
#             dir; the system's apt configuration of sources is never touched. Trixie's Release file is
#             checked against debian-archive-keyring, which on Debian 12 (2023.3+deb12u1 and later)
#             already carries the trixie archive keys.
#   sid:      Debian unstable's libze-dev, libze1 and its GPU driver set (libze-intel-gpu1, intel-opencl-icd,
#             intel-ocloc, libigc2, libigdfcl2, libigdgmm12) as sid has them the day the cache is made
#             (recorded in sid/versions), the same way as trixie. Built against glibc 2.38 and newer, their
#             libraries do not load on Debian 12: the fixtures take sid's headers (a loader >= 1.25's API) and
#             its driver as one this host must refuse.
#   trixie-arm64: Debian trixie's AArch64 C runtime (libc6, libgcc-s1, libstdc++6 for arm64), the same way as trixie
#             with APT::Architectures=arm64, and lld (this machine's release, amd64) to link for AArch64: Debian
#             builds no Level Zero for arm64, so the linux-aarch64 fixtures link their loader double against these
#             real libraries and ship them as conda-forge's libgcc and libstdcxx (versions in trixie-arm64/versions).
#
# Layout: $XPU_SETUP_TEST_CACHE/debs/<suite>/{*.deb, root/usr/..., version}. A second run with the files
# in place does nothing and makes no network call. Root is not needed (apt-get download writes to cwd).
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="${XPU_SETUP_TEST_CACHE:-$repo_root/.cache/test-fixtures}"
debs="$cache/debs"
mkdir -p "$debs"

BOOKWORM_VERSION="1.8.12-1"
TRIXIE_VERSION="1.20.6-1"
GPU_DRIVER_VERSION="22.43.24595.41-1"
GPU_DRIVER_PACKAGES=(
  "intel-opencl-icd=$GPU_DRIVER_VERSION"
  "libigc1=1.0.12504.6-1+deb12u1"
  "libigdfcl1=1.0.12504.6-1+deb12u1"
  "libigdgmm12=22.3.3+ds1-1"
  "libopencl-clang14=14.0.0-4"
)
# The Debian archive this machine's own apt uses for its release (trixie sits beside it); XPU_SETUP_TRIXIE_MIRROR overrides.
system_mirror() {
  local codename
  codename="$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")"
  apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' 2>/dev/null |
    awk -v rel="$codename" '$2 == rel { print $1; exit }'
}
TRIXIE_MIRROR="${XPU_SETUP_TRIXIE_MIRROR:-$(system_mirror)}"
KEYRING="/usr/share/keyrings/debian-archive-keyring.gpg"

# apt drops to the _apt user for downloads and warns when that user cannot write our dir; as root we
# simply download as root.
sandbox=()
if [ "$(id -u)" = 0 ]; then sandbox=(-o APT::Sandbox::User=root); fi

done_already() { # suite version
  [ -f "$debs/$1/version" ] && [ "$(cat "$debs/$1/version")" = "$2" ] && [ -d "$debs/$1/root/usr/include/level_zero" ]
}

fetch_gpu_driver() {
  local dir="$debs/bookworm-gpu"
  rm -rf "$dir"
  mkdir -p "$dir"
  if ! (cd "$dir" && apt-get "${sandbox[@]}" -q download "${GPU_DRIVER_PACKAGES[@]}"); then
    echo "fixtures: 'apt-get download ${GPU_DRIVER_PACKAGES[*]}' failed; on Debian 12 run 'apt-get update' first (a pinned version may have been superseded: update GPU_DRIVER_PACKAGES)" >&2
    exit 1
  fi
  mkdir -p "$dir/root.tmp"
  for f in "$dir"/*.deb; do dpkg-deb -x "$f" "$dir/root.tmp"; done
  mv "$dir/root.tmp" "$dir/root"
  printf '%s' "$GPU_DRIVER_VERSION" > "$dir/version"
}

unpack() { # suite version
  local dir="$debs/$1"
  rm -rf "$dir/root.tmp"
  mkdir -p "$dir/root.tmp"
  for f in "$dir"/libze1_"$2"_amd64.deb "$dir"/libze-dev_"$2"_amd64.deb; do
    dpkg-deb -x "$f" "$dir/root.tmp"
  done
  rm -rf "$dir/root"
  mv "$dir/root.tmp" "$dir/root"
  printf '%s' "$2" > "$dir/version"
}

fetch_bookworm() {
  local dir="$debs/bookworm"
  mkdir -p "$dir"
  if ! (cd "$dir" && apt-get "${sandbox[@]}" -q download "libze1=$BOOKWORM_VERSION" "libze-dev=$BOOKWORM_VERSION"); then
    echo "fixtures: 'apt-get download libze1=$BOOKWORM_VERSION' failed; on Debian 12 run 'apt-get update' first" >&2
    exit 1
  fi
}

# A private apt for one Debian suite under $2 (its own sources list, lists and cache; the system's apt
# configuration of sources is never read or touched), with its lists fetched: apt-get and apt-cache take
# "${suite_opts[@]}".
suite_apt() {
  local suite="$1" apt="$2" arch="${3:-}"
  if [ ! -r "$KEYRING" ]; then
    echo "fixtures: $KEYRING missing; install debian-archive-keyring" >&2
    exit 1
  fi
  if [ -z "$TRIXIE_MIRROR" ]; then
    echo "fixtures: cannot tell which Debian archive this machine's apt uses; set XPU_SETUP_TRIXIE_MIRROR" >&2
    exit 1
  fi
  mkdir -p "$apt/parts" "$apt/prefs" "$apt/state/lists/partial" "$apt/cache/archives/partial"
  printf 'deb [signed-by=%s] %s %s main\n' "$KEYRING" "$TRIXIE_MIRROR" "$suite" > "$apt/sources.list"
  suite_opts=(
    -o "Dir::Etc::SourceList=$apt/sources.list"
    -o "Dir::Etc::SourceParts=$apt/parts"
    -o "Dir::Etc::Preferences=/dev/null"
    -o "Dir::Etc::PreferencesParts=$apt/prefs"
    -o "Dir::State=$apt/state"
    -o "Dir::Cache=$apt/cache"
    -o "Acquire::Languages=none"
    -o "Debug::NoLocking=1"
    "${sandbox[@]}"
  )
  if [ -n "$arch" ]; then suite_opts+=(-o "APT::Architecture=$arch" -o "APT::Architectures=$arch"); fi
  if ! apt-get "${suite_opts[@]}" -q update >&2; then
    echo "fixtures: apt-get update for $suite failed (mirror $TRIXIE_MIRROR, keyring $KEYRING)" >&2
    exit 1
  fi
}

fetch_trixie() {
  local dir="$debs/trixie" apt="$debs/trixie/apt"
  mkdir -p "$dir"
  suite_apt trixie "$apt"
  if ! (cd "$dir" && apt-get "${suite_opts[@]}" -q download "libze1=$TRIXIE_VERSION" "libze-dev=$TRIXIE_VERSION"); then
    echo "fixtures: trixie no longer offers libze1=$TRIXIE_VERSION; update TRIXIE_VERSION in .ci/fixtures.sh" >&2
    exit 1
  fi
  # The package lists (~20 MB) are only needed for that one download.
  rm -rf "$apt"
}

# With the rest of sid's driver set (ICD, ocloc, IGC 2, gmmlib): the conda-forge-shaped fixtures are built from its files.
SID_PACKAGES=(libze-dev libze1 libze-intel-gpu1 intel-opencl-icd intel-ocloc libigc2 libigdfcl2 libigdgmm12)

# Downloads the current version of each package from a suite set up by suite_apt (its lists then dropped) into $dir,
# recording them in "$dir/versions": download_current DIR WHAT PACKAGE... (WHAT names the suite in messages).
download_current() {
  local dir="$1" what="$2" pkg version
  shift 2
  versions=()
  for pkg in "$@"; do
    version="$(apt-cache "${suite_opts[@]}" show "$pkg" 2>/dev/null | awk '/^Version:/ { print $2; exit }')"
    if [ -z "$version" ]; then
      echo "fixtures: $what has no $pkg" >&2
      exit 1
    fi
    versions+=("$pkg=$version")
  done
  if ! (cd "$dir" && apt-get "${suite_opts[@]}" -q download "${versions[@]}"); then
    echo "fixtures: 'apt-get download ${versions[*]}' from $what failed" >&2
    exit 1
  fi
  printf '%s\n' "${versions[@]}" > "$dir/versions.tmp"
}

# Unpacks every .deb of a directory into its root/ and puts the recorded versions in place.
unpack_all() {
  local dir="$1" f
  mkdir -p "$dir/root.tmp"
  for f in "$dir"/*.deb; do dpkg-deb -x "$f" "$dir/root.tmp"; done
  mv "$dir/root.tmp" "$dir/root"
  mv "$dir/versions.tmp" "$dir/versions"
}

fetch_sid() {
  local dir="$debs/sid" apt="$debs/sid/apt"
  rm -rf "$dir"
  suite_apt sid "$apt"
  download_current "$dir" sid "${SID_PACKAGES[@]}"
  rm -rf "$apt"
  unpack_all "$dir"
}

ARM64_PACKAGES=(libc6 libgcc-s1 libstdc++6)
LLD_PACKAGES=(lld-15 liblld-15)

fetch_arm64() {
  local dir="$debs/trixie-arm64" apt="$debs/trixie-arm64/apt"
  rm -rf "$dir"
  suite_apt trixie "$apt" arm64
  download_current "$dir" "trixie (arm64)" "${ARM64_PACKAGES[@]}"
  rm -rf "$apt"
  if ! (cd "$dir" && apt-get "${sandbox[@]}" -q download "${LLD_PACKAGES[@]}"); then
    echo "fixtures: 'apt-get download ${LLD_PACKAGES[*]}' failed; on Debian 12 run 'apt-get update' first" >&2
    exit 1
  fi
  unpack_all "$dir"
}

# Test files run in parallel processes: one of them fetches, the others wait for it.
exec 9> "$debs/.lock"
flock 9

if ! done_already bookworm "$BOOKWORM_VERSION"; then
  fetch_bookworm
  unpack bookworm "$BOOKWORM_VERSION"
fi
if ! { [ -f "$debs/bookworm-gpu/version" ] && [ "$(cat "$debs/bookworm-gpu/version")" = "$GPU_DRIVER_VERSION" ] && [ -x "$debs/bookworm-gpu/root/usr/bin/ocloc" ]; }; then
  fetch_gpu_driver
fi
if ! done_already trixie "$TRIXIE_VERSION"; then
  fetch_trixie
  unpack trixie "$TRIXIE_VERSION"
fi
if ! { [ -f "$debs/sid/versions" ] && [ -d "$debs/sid/root/usr/include/level_zero" ] && [ "$(wc -l < "$debs/sid/versions")" = "${#SID_PACKAGES[@]}" ]; }; then
  fetch_sid
fi
if ! { [ -f "$debs/trixie-arm64/versions" ] && [ -x "$debs/trixie-arm64/root/usr/lib/llvm-15/bin/ld.lld" ]; }; then
  fetch_arm64
fi
