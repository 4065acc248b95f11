#!/usr/bin/env bash
# Runs a program inside a root made by scripts/debian-root.sh, as this machine's own programs run: the same
# environment, the same working directory, and the host's /tmp and the given directories at their own paths:
#
#   in-root.sh ROOT [--bind DIR]... -- PROGRAM [ARG...]
#
# Each run has a mount namespace of its own (proc, dev, the binds), so nothing stays mounted when it ends; processes
# it leaves behind (a wineserver) keep theirs. Needs root.
set -euo pipefail

root="${1:?usage: in-root.sh ROOT [--bind DIR]... -- PROGRAM [ARG...]}"
shift
binds=(/tmp)
while [ $# -gt 0 ]; do
  case "$1" in
    --bind) binds+=("$(cd "$2" && pwd -P)"); shift 2 ;;
    --) shift; break ;;
    *) printf 'in-root.sh: unexpected %s (want --bind DIR or --)\n' "$1" >&2; exit 2 ;;
  esac
done
[ $# -gt 0 ] || { printf 'in-root.sh: no program given\n' >&2; exit 2; }
[ -f "$root/.xpu-root" ] || { printf 'in-root.sh: %s is not a finished root (scripts/debian-root.sh makes it)\n' "$root" >&2; exit 2; }
root="$(cd "$root" && pwd -P)"
cwd="$(pwd -P)"

exec unshare --mount --propagation private bash -c '
  set -e
  root="$1" cwd="$2" n="$3"; shift 3
  mount -t proc proc "$root/proc"
  mount --rbind /dev "$root/dev"
  for ((i = 0; i < n; i++)); do
    mkdir -p "$root$1"
    mount --bind "$1" "$root$1"
    shift
  done
  exec chroot "$root" /bin/sh -c '"'"'cd "$0" 2>/dev/null || cd /; exec "$@"'"'"' "$cwd" "$@"
' bash "$root" "$cwd" "${#binds[@]}" "${binds[@]}" "$@"
