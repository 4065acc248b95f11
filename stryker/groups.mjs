// The module groups mutation testing covers: what each mutates and the test files that are meant to kill its mutants.
import * as fs from 'node:fs';

/**
 * `file:start-end` for a top-level function, found by its declaration and the first `}` in column 0 after it, so a
 * range follows the function when code above it moves.
 */
export function fnRange(file, declaration) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith(declaration));
  if (start < 0) throw new Error(`${file}: no line starts with "${declaration}"`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith('}'));
  if (end < 0) throw new Error(`${file}: "${declaration}" has no closing brace in column 0`);
  return `${file}:${start + 1}-${end + 1}`;
}

/** `file:start-end` from the line that starts with `declaration` to the end of the file. */
export function fromLine(file, declaration) {
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const start = lines.findIndex((l) => l.startsWith(declaration));
  if (start < 0) throw new Error(`${file}: no line starts with "${declaration}"`);
  return `${file}:${start + 1}-${lines.length}`;
}

/** name -> { mutate, testFiles, coverageAnalysis? }; `npm run test:mutation -- <name>...` runs a subset, in this order. */
export const GROUPS = {
  caps: {
    // The feature table and its derivation; in arch.ts the lookups, not the name table they read.
    mutate: ['src/caps/features.ts', fromLine('src/caps/arch.ts', 'export function decodeIp')],
    testFiles: ['test/unit/caps-features.test.ts', 'test/unit/caps-arch.test.ts'],
  },
  smoke: {
    mutate: [
      fnRange('src/smoke/index.ts', 'export function median'),
      fnRange('src/smoke/index.ts', 'export function checkVectorAdd'),
    ],
    testFiles: ['test/integration/smoke-no-driver.test.ts'],
  },
  'safe-path': {
    mutate: ['src/formats/safe-path.ts'],
    testFiles: ['test/unit/safe-path.test.ts', 'test/integration/formats.test.ts', 'test/integration/hostile-archives.test.ts'],
    coverageAnalysis: 'perTest',
  },
  archive: {
    // The two readers that name members and links (the others only pick a reader or decompress).
    mutate: ['src/formats/tar.ts', 'src/formats/zip.ts'],
    testFiles: ['test/unit/archive-readers.test.ts', 'test/integration/formats.test.ts', 'test/integration/hostile-archives.test.ts'],
    coverageAnalysis: 'perTest',
    // A mutant that stops a reader's loop hangs until the timeout: keep that short.
    timeoutMS: 10_000,
  },
  // The download cache and the downloads into it: what is hashed, compared, resumed, kept or thrown away.
  cache: {
    // download.ts from the range check on: the lock-taking above it is not verification.
    mutate: ['src/cache/*.ts', fromLine('src/fetch/download.ts', 'function contentRangeStart'), 'src/fetch/apt.ts'],
    testFiles: ['test/unit/cache.test.ts', 'test/unit/fetch-download.test.ts'],
    // Its tests wait out retries (seconds each): each mutant runs only the tests that reached it.
    coverageAnalysis: 'perTest',
  },
  // Staging (extract into a temp tree, every member through safePath, within the unpack limits) and the swap.
  install: {
    mutate: [
      'src/install/staging.ts',
      fnRange('src/install/install.ts', 'async function swapIn'),
      fnRange('src/install/install.ts', 'async function recoverInterruptedSwap'),
    ],
    testFiles: ['test/unit/install.test.ts', 'test/unit/staging.test.ts', 'test/integration/formats.test.ts', 'test/integration/hostile-archives.test.ts'],
    coverageAnalysis: 'perTest',
  },
};
