#!/bin/sh
# Regenerates the committed SPIR-V kernels (*.spv) from their OpenCL C sources; OUT_DIR writes them elsewhere.
set -eu
out=$(cd "${OUT_DIR:-$(dirname "$0")}" && pwd)
cd "$(dirname "$0")"
CLANG=${CLANG:-clang-14}
LLVM_SPIRV=${LLVM_SPIRV:-llvm-spirv-14}
LLVM_AS=${LLVM_AS:-llvm-as-14}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for name in vector_add vector_add_wrong vector_add_last_wrong vector_add_partial spec_const; do
    "$CLANG" -cl-std=CL1.2 -target spir64 -O2 -emit-llvm -c "$name.cl" -o "$tmp/$name.bc"
    "$LLVM_SPIRV" "$tmp/$name.bc" -o "$out/$name.spv"
done
# OpenCL 2.0 kernels (generic address space, C11-style atomics).
for name in atomics20; do
    "$CLANG" -cl-std=CL2.0 -target spir64 -O2 -emit-llvm -c "$name.cl" -o "$tmp/$name.bc"
    "$LLVM_SPIRV" "$tmp/$name.bc" -o "$out/$name.spv"
done
# Kernels OpenCL C cannot express are written as LLVM IR.
for name in struct_arg; do
    "$LLVM_AS" "$name.ll" -o "$tmp/$name.bc"
    "$LLVM_SPIRV" "$tmp/$name.bc" -o "$out/$name.spv"
done
