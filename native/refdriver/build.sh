#!/bin/sh
# Builds the CPU reference Level Zero driver: build.sh <level-zero include dir> <output .so path>
set -eu
if [ $# -ne 2 ]; then
    echo "usage: $0 <include dir containing level_zero/ze_api.h> <output path, e.g. lib/libze_xpu_setup_refdriver.so>" >&2
    exit 2
fi
src=$(cd "$(dirname "$0")" && pwd)
exec "${CC:-cc}" -std=gnu11 -shared -fPIC -O2 -fvisibility=hidden -I"$1" "$src"/*.c -o "$2" -lOpenCL -ldl -lpthread
