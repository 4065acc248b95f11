// The module groups mutation testing covers: what each mutates and the test files that are meant to kill its mutants.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/**
 * What a group mutates: a file or glob (a string), one top-level declaration of a file by name (`{ file, fn }`), or a
 * file from one top-level declaration to its end (`{ file, from }`). Declarations are named, not numbered, so a range
 * follows its code when lines move; `resolveGroup` turns them into Stryker's `file:start-end` when a run starts.
 *
 * name -> { mutate, testFiles, coverageAnalysis?, timeoutMS? }; `npm run test:mutation -- <name>...` runs a subset,
 * in this order.
 */
export const GROUPS = {
  caps: {
    // The feature table and its derivation; in arch.ts the lookups, not the name table they read.
    mutate: ['src/caps/features.ts', { file: 'src/caps/arch.ts', from: 'decodeIp' }],
    testFiles: ['test/unit/caps-features.test.ts', 'test/unit/caps-arch.test.ts'],
  },
  smoke: {
    mutate: [
      { file: 'src/smoke/index.ts', fn: 'median' },
      { file: 'src/smoke/index.ts', fn: 'checkVectorAdd' },
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
  // The PE import reader: every offset it follows is bounds-checked, and a damaged file is named.
  pe: {
    mutate: ['src/formats/pe.ts'],
    testFiles: ['test/unit/pe-imports.test.ts'],
    // A mutant that stops the descriptor loop from ending hangs until the timeout: keep that short.
    timeoutMS: 10_000,
  },
  // The dependency resolver (newest that fits, backtracking, going back from the source's choice) and the two
  // readers of the packages' own dependency text it decides on: conda match specs and PEP 508 requirements.
  resolver: {
    mutate: ['src/versions/resolve.ts', 'src/versions/match-spec.ts', 'src/versions/pep508.ts'],
    testFiles: ['test/unit/resolve.test.ts', 'test/unit/dependency-specs.test.ts'],
  },
  // The download cache and the downloads into it: what is hashed, compared, resumed, kept or thrown away.
  cache: {
    // download.ts from the range check on: the lock-taking above it is not verification.
    mutate: ['src/cache/*.ts', { file: 'src/net/download.ts', from: 'contentRange' }, { file: 'src/kinds/apt.ts', fn: 'fetchApt' }],
    testFiles: ['test/unit/cache.test.ts', 'test/unit/fetch-download.test.ts'],
    // Its tests wait out retries (seconds each): each mutant runs only the tests that reached it.
    coverageAnalysis: 'perTest',
  },
  // Staging (extract into a temp tree, every member through safePath, within the unpack limits) and the swap.
  install: {
    mutate: [
      'src/install/staging.ts',
      { file: 'src/install/install.ts', fn: 'swapIn' },
      { file: 'src/prefix/prefix-state.ts', fn: 'recoverInterruptedSwap' },
    ],
    testFiles: [
      'test/unit/install.test.ts',
      'test/unit/staging.test.ts',
      'test/unit/zip-live.test.ts',
      'test/unit/fetch-install-overlap.test.ts',
      'test/integration/formats.test.ts',
      'test/integration/hostile-archives.test.ts',
    ],
    coverageAnalysis: 'perTest',
  },
};

/** The top-level declarations of a TypeScript file, name -> 1-based first and last line (export keyword included). */
function declarations(file) {
  const text = fs.readFileSync(path.join(ROOT, file), 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const lines = (node) => [source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1, source.getLineAndCharacterOfPosition(node.end).line + 1];
  const found = new Map();
  for (const s of source.statements) {
    if ((ts.isFunctionDeclaration(s) || ts.isClassDeclaration(s)) && s.name) found.set(s.name.text, lines(s));
    if (ts.isVariableStatement(s)) {
      for (const d of s.declarationList.declarations) if (ts.isIdentifier(d.name)) found.set(d.name.text, lines(s));
    }
  }
  return { found, total: text.split('\n').length };
}

/** Where else under src/ a top-level function or class of that name is declared: the hint when it has moved. */
function movedTo(name) {
  const pattern = new RegExp(`^(export )?(async )?(function\\*? |class |const |let )${name}\\b`, 'm');
  const hits = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
      const rel = path.posix.join(dir, e.name);
      if (e.isDirectory()) walk(rel);
      else if (rel.endsWith('.ts') && pattern.test(fs.readFileSync(path.join(ROOT, rel), 'utf8'))) hits.push(rel);
    }
  };
  walk('src');
  return hits;
}

/** The files a pattern with `*` in its last part names (`src/cache/*.ts`); Node 20 has no fs.globSync. */
function globInDir(pattern) {
  const dir = path.posix.dirname(pattern);
  const re = new RegExp(`^${path.posix.basename(pattern).split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*')}$`);
  return fs.existsSync(path.join(ROOT, dir)) ? fs.readdirSync(path.join(ROOT, dir)).filter((n) => re.test(n)) : [];
}

/** One `mutate` entry as Stryker takes it; throws, naming the group and what to change, when it names nothing. */
export function resolveEntry(group, entry) {
  if (typeof entry === 'string') {
    const matched = entry.includes('*') ? globInDir(entry) : fs.existsSync(path.join(ROOT, entry)) ? [entry] : [];
    if (!matched.length) throw new Error(`stryker/groups.mjs: group "${group}" mutates ${entry}, which names no file: fix the group`);
    return entry;
  }
  const name = entry.fn ?? entry.from;
  if (!fs.existsSync(path.join(ROOT, entry.file))) {
    const where = movedTo(name);
    throw new Error(`stryker/groups.mjs: group "${group}" names ${entry.file}, which does not exist${where.length ? `; ${name} is now in ${where.join(', ')}` : ''}: fix the group`);
  }
  const { found, total } = declarations(entry.file);
  const lines = found.get(name);
  if (!lines) {
    const where = movedTo(name).filter((f) => f !== entry.file);
    const hint = where.length ? `it is now in ${where.join(', ')}` : 'no file under src/ declares it';
    throw new Error(`stryker/groups.mjs: group "${group}" names ${name} in ${entry.file}, which declares no ${name} at its top level (${hint}): fix the group`);
  }
  return `${entry.file}:${lines[0]}-${entry.from ? total : lines[1]}`;
}

/** A group with its `mutate` list resolved to files and line ranges, and its test files checked; throws on a stale name. */
export function resolveGroup(name) {
  const group = GROUPS[name];
  if (!group) throw new Error(`no mutation group "${name}"; groups: ${Object.keys(GROUPS).join(', ')}`);
  const missing = group.testFiles.filter((f) => !fs.existsSync(path.join(ROOT, f)));
  if (missing.length) throw new Error(`stryker/groups.mjs: group "${name}" runs ${missing.join(', ')}, which does not exist: fix the group`);
  return { ...group, mutate: group.mutate.map((e) => resolveEntry(name, e)) };
}
