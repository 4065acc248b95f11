#!/usr/bin/env bash
# Intel's Level Zero conformance tests (oneapi-src/level-zero-tests) against the CPU reference driver, in a Debian sid
# root with sid's Level Zero loader (1.32): the developers' measurement of the driver, not part of `npm test`.
#
#   conformance.sh build  SRC            # SRC: a level-zero-tests source tree (e.g. `git archive 452ecd77` of it)
#   conformance.sh run    DRIVER OUT [BINARY...]   # runs the core binaries (or those named) with DRIVER (a .so inside
#                                                  # the root); OUT: a JSON file of the counts
#
# A binary's console logs and exit codes go to $ROOT/lzt/results/NAME/BINARY.{N.log,exit} (NAME: OUT's file name
# without .json), replacing those of its last run with that NAME; OUT counts every binary that has them, so the binaries
# can run as they are built, a few at a time. A binary killed by a signal is run again without the tests it died in
# (--gtest_filter), within its 300 s and at most 50 runs, so one crash does not hide the tests after it.
#
# The root is scripts/debian-root.sh's sid root with the build and run packages (ROOT, default
# .cache/roots/sid-lzt); the build goes to $ROOT/lzt (-j2: the tests are heavy to compile). Nothing of
# level-zero-tests is kept in this repository. Each binary runs at most 300 s; its gtest console logs give the counts
# (scripts/conformance-count.mjs).
#
# sid's PoCL 7.1 refuses SPIR 1.2 bitcode (clCreateProgramWithBinary: -42): a driver that predates its SPIR-V path
# (clCreateProgramWithIL) fails every module here.
# A source tree from a mirror without the media files may hold empty placeholders for them: only the image tests,
# which are not run here, read them.
set -euo pipefail

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root="${ROOT:-$repo_root/.cache/roots/sid-lzt}"
packages=(build-essential cmake libboost-log-dev libboost-program-options-dev libboost-timer-dev libboost-chrono-dev
  libboost-serialization-dev libgtest-dev libgmock-dev libpng-dev libze-dev opencl-headers ocl-icd-opencl-dev
  pocl-opencl-icd llvm-spirv-21 clinfo)
binaries=(test_barrier test_cmdlist test_cmdqueue test_context test_copy test_device test_driver test_event test_fence
  test_memory test_module test_usm)
say() { printf 'conformance: %s\n' "$*" >&2; }

case "${1:-}" in
build)
  src="$(cd "${2:?conformance.sh build SRC}" && pwd)"
  bash "$repo_root/scripts/debian-root.sh" sid "$root" "${packages[@]}"
  rm -rf "$root/lzt/src"
  mkdir -p "$root/lzt/build"
  cp -a "$src" "$root/lzt/src"
  start=$SECONDS
  # Debian's googletest sources stand in for the repository's submodule; boost_system is header-only in sid's Boost.
  sed -i 's/ chrono system serialization)/ chrono serialization)/' "$root/lzt/src/CMakeLists.txt"
  # sid's Boost (1.89+) makes process v2 the default, and <boost/process.hpp> is v2's; level-zero-tests is written
  # against v1 (boost::process::child). BOOST_PROCESS_VERSION=1 makes v1 the inline namespace, and a
  # <boost/process.hpp> found before /usr/include (in the build tree, not the source) includes v1's headers.
  mkdir -p "$root/lzt/compat/boost"
  # Written only when it differs: a newer header would rebuild every file that includes it.
  compat='#include <boost/process/v1.hpp>'
  [ "$(cat "$root/lzt/compat/boost/process.hpp" 2>/dev/null)" = "$compat" ] || printf '%s\n' "$compat" >"$root/lzt/compat/boost/process.hpp"
  chroot "$root" sh -c 'cd /lzt/build && cmake -DCMAKE_BUILD_TYPE=Release -DGTEST_ROOT=/usr/src/googletest -DGROUP=/conformance_tests/core "-DCMAKE_CXX_FLAGS=-DBOOST_PROCESS_VERSION=1 -I/lzt/compat" ../src >cmake.log 2>&1' ||
    { tail -30 "$root/lzt/build/cmake.log" >&2; exit 1; }
  : >"$root/lzt/build/make.log"
  # Each binary's directory, with the helper programs some of them start (test_affinity_helper, test_import_helper ...).
  for b in "${binaries[@]}"; do
    chroot "$root" sh -c "cd /lzt/build && make -j2 -C conformance_tests/core/$b >>make.log 2>&1" || { tail -30 "$root/lzt/build/make.log" >&2; exit 1; }
  done
  say "built ${#binaries[@]} binaries in $((SECONDS - start)) s"
  ;;
run)
  driver="${2:?conformance.sh run DRIVER OUT}"
  out="${3:?conformance.sh run DRIVER OUT}"
  results="lzt/results/$(basename "$out" .json)"
  mkdir -p "$root/$results"
  shift 3
  for b in "${@:-${binaries[@]}}"; do
    dir="$(cd "$root" && find lzt/build/conformance_tests -name "$b" -type f -perm -u+x -printf '%h\n' | head -1)"
    [ -n "$dir" ] || { say "$b was not built"; continue; }
    # Its install rules put the binary beside the kernels (.spv) it loads from its working directory, in lzt/build/out.
    chroot "$root" cmake -P "/$dir/cmake_install.cmake" >/dev/null || { say "$b: cannot install it beside its kernels and helpers"; continue; }
    exe="$(cd "$root" && find lzt/build/out -name "$b" -type f -perm -u+x | head -1)"
    rm -f "$root/$results/$b".*
    start=$SECONDS
    skip=""
    for attempt in $(seq 1 50); do
      left=$((300 - (SECONDS - start)))
      [ "$left" -gt 0 ] || break
      log="/$results/$b.$attempt.log"
      rc=0
      # PoCL reads the CPU topology from /sys (without it: an assertion on global_mem_size).
      bash "$repo_root/scripts/in-root.sh" "$root" --bind /sys -- env -i PATH=/usr/bin:/bin HOME=/tmp TMPDIR=/tmp \
        ZE_ENABLE_ALT_DRIVERS="$driver" XPU_SETUP_LLVM_SPIRV=/usr/bin/llvm-spirv-21 \
        sh -c "cd /$(dirname "$exe") && timeout -k 5 $left ./$b ${skip:+'--gtest_filter=-$skip'} >$log 2>&1" || rc=$?
      printf '%s %s\n' "$rc" "$((SECONDS - start))" >>"$root/$results/$b.exit"
      # A binary killed by a signal is run again without the test it died in (started, never finished), within the same
      # 300 s.
      died="$(grep -aE '^\[ (RUN {6}| {6}OK |  FAILED  |  SKIPPED )\] ' "$root$log" | tail -1 | sed -n 's/^\[ RUN \{6\}\] //p')"
      [ "$rc" -gt 128 ] && [ "$rc" -ne 124 ] && [ -n "$died" ] || break
      skip="${skip:+$skip:}$died"
      say "$b: died (exit $rc) in $died; running the rest"
    done
    say "$b: exit $rc after $attempt run(s) in $((SECONDS - start)) s"
  done
  node "$repo_root/scripts/conformance-count.mjs" "$root/$results" "${binaries[@]}" >"$out"
  ;;
*)
  printf 'usage: %s build SRC | run DRIVER OUT [BINARY...]\n' "$0" >&2
  exit 2
  ;;
esac
