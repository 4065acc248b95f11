#!/bin/sh
# Starts the test fixtures' local package index (conda channels, PyPI simple index) on 127.0.0.1 and prints its URLs.
# Stop it with Ctrl-C (or kill the pid it runs as).
set -eu
repo=$(cd "$(dirname "$0")/.." && pwd)
out="$repo/.cache/fixture-index"
"$repo/node_modules/.bin/tsc" --outDir "$out" --rootDir "$repo/test/support" --module NodeNext --moduleResolution NodeNext \
  --target ES2022 --types node --skipLibCheck --esModuleInterop "$repo/test/support/serve-fixtures.ts"
echo '{"type":"module"}' > "$out/package.json"
XPU_SETUP_TEST_CACHE="${XPU_SETUP_TEST_CACHE:-$repo/.cache/test-fixtures}" NODE_PATH="$repo/node_modules" exec node "$out/serve-fixtures.js"
