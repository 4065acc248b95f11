#!/usr/bin/env bash
# Makes a Debian root of another suite for the tests (a newer Wine, a newer glibc and what runs on it), from Debian's
# archive: `debian-root.sh SUITE DIR [PACKAGE...]` runs `debootstrap --variant=minbase SUITE`, then installs the
# packages inside it with --no-install-recommends. A second run with the same suite and packages only checks the stamp
# DIR/.xpu-root; a change of either builds the root anew. Programs run inside it through scripts/in-root.sh.
#
# Needs root (debootstrap, chroot and mounts) and the debootstrap package. Exit 3, with the reason on stderr, when this
# machine cannot build the root (not root, no debootstrap): the suites that need it skip on that stated reason. The
# archive is the one this machine's apt uses (XPU_SETUP_DEBIAN_MIRROR overrides), checked against
# debian-archive-keyring. The system's apt configuration is never touched.
set -euo pipefail

[ $# -ge 2 ] || { printf 'usage: %s SUITE DIR [PACKAGE...]\n' "$0" >&2; exit 2; }
suite="$1"
dir="$2"
shift 2
packages=("$@")

say() { printf 'debian-root(%s): %s\n' "$suite" "$*" >&2; }
cannot() { say "cannot build $dir here: $*"; exit 3; }

stamp="suite=$suite packages=${packages[*]}"
if [ "$(cat "$dir/.xpu-root" 2>/dev/null)" = "$stamp" ]; then exit 0; fi

[ "$(id -u)" = 0 ] || cannot "debootstrap and chroot need root (this is uid $(id -u))"
command -v debootstrap >/dev/null 2>&1 || cannot "debootstrap is not installed (apt-get install debootstrap)"
command -v unshare >/dev/null 2>&1 || cannot "unshare (util-linux) is not installed"

mkdir -p "$(dirname "$dir")"
# One build at a time per root: a second caller waits, then finds the stamp.
exec 9>"$dir.lock"
if ! flock -n 9; then
  say "waiting for the build of $dir already running"
  flock 9
fi
if [ "$(cat "$dir/.xpu-root" 2>/dev/null)" = "$stamp" ]; then exit 0; fi

codename="$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")"
mirror="${XPU_SETUP_DEBIAN_MIRROR:-$(apt-get indextargets --format '$(REPO_URI) $(RELEASE)' 'Identifier: Packages' 2>/dev/null | awk -v rel="$codename" '$2 == rel { print $1; exit }')}"
[ -n "$mirror" ] || mirror="http://deb.debian.org/debian/"
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
[ -f "$keyring" ] || cannot "$keyring is missing (apt-get install debian-archive-keyring)"

tmp="$dir.tmp"
rm -rf "$tmp"
start=$SECONDS
say "debootstrap --variant=minbase $suite from $mirror"
if ! debootstrap --variant=minbase --keyring="$keyring" "$suite" "$tmp" "$mirror" >"$dir.log" 2>&1; then
  tail -20 "$dir.log" >&2
  say "debootstrap failed (the whole log: $dir.log)"
  exit 1
fi
# A mirror may serve a snapshot older than the Release file's Valid-Until (sid's runs a week): debootstrap does not check
# it, and the root's apt, left to itself, would refuse the lists that debootstrap took.
printf 'Acquire::Check-Valid-Until "false";\n' > "$tmp/etc/apt/apt.conf.d/99xpu-valid-until"
if [ ${#packages[@]} -gt 0 ]; then
  say "installing ${packages[*]}"
  # In a mount namespace of its own, so nothing stays mounted whatever happens.
  if ! unshare --mount --propagation private sh -c '
      root="$1"; shift
      mount -t proc proc "$root/proc" && mount --rbind /dev "$root/dev" &&
      exec chroot "$root" env DEBIAN_FRONTEND=noninteractive sh -c "apt-get -qq update && apt-get -qq install -y --no-install-recommends \"\$@\" && apt-get clean" sh "$@"
    ' sh "$tmp" "${packages[@]}" >>"$dir.log" 2>&1; then
    tail -20 "$dir.log" >&2
    say "installing ${packages[*]} failed (the whole log: $dir.log)"
    exit 1
  fi
fi
printf '%s' "$stamp" > "$tmp/.xpu-root"
rm -rf "$dir"
mv "$tmp" "$dir"
say "ready in $((SECONDS - start)) s: $dir"
