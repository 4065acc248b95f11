// Prints the folder-level import graph of src/ and exits 1 when an edge breaks the layering written in src/README.md,
// or when files import each other round a circle.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Each folder (or top-level file) of src/ and its layer; src/README.md says the same in prose. */
export const LAYERS = {
  // Everything may import these; they import only each other.
  base: ['errors', 'deps', 'finding', 'env-names', 'reporter', 'version', 'package-dir', 'host', 'spelling', 'fs-errors', 'lock-owner', 'shell-words', 'pieces'],
  // What the stages use. They never reach up into a stage, the pipeline, the doctor or the CLI.
  library: ['manifest', 'kinds', 'roles', 'records', 'versions', 'net', 'cache', 'formats', 'runtime', 'caps', 'sources', 'inspect', 'hints'],
  // The pipeline's stages, in order. Only pipeline/ composes them; between stages only `import type` (data) passes.
  stage: ['plan', 'fetch', 'install', 'build', 'probe', 'smoke'],
  // Places that compose: the setup pipeline, the doctor, and the real side effects behind Deps.
  root: ['pipeline', 'doctor', 'real-deps', 'bundle'],
  cli: ['cli'],
};

/** Library-to-library edges that would let a lower layer do a higher one's job. */
export const FORBIDDEN_LIBRARY_EDGES = [
  ['cache', 'net'], // the cache stores bytes it is given; downloading is fetch/'s job
  ['formats', 'net'], // archive readers never touch the network
  ['formats', 'cache'],
];

/**
 * Edges that break a rule today, each with the reason it is tolerated. Remove a line when its edge is gone; a listed
 * edge that no longer exists is reported, so this list cannot go stale silently.
 */
export const KNOWN_EXCEPTIONS = [
  // The inspection library reads the receipt's shape (types only) to tell the prefix's own files from others.
  { from: 'inspect', to: 'install', typeOnly: true, why: 'the receipt format is declared in install/receipt.ts' },
  // Pasteable commands repeat the request a receipt records (types only).
  { from: 'hints', to: 'install', typeOnly: true, why: 'the receipt format is declared in install/receipt.ts' },
];

/**
 * Files outside pipeline/ that import code (not only types) from more than one stage, each with its reason: the
 * rule is that only pipeline/ composes stages. A listed file that no longer does is reported, like KNOWN_EXCEPTIONS.
 */
export const KNOWN_COMPOSERS = [
  { file: 'bundle/bundle.ts', why: 'a bundle fetches its plans (fetch/) and writes their lockfile (plan/lockfile.ts)' },
  { file: 'cli/action.ts', why: 'data only: the reference driver\'s requirements (build/) and the env variables it exports (install/)' },
  { file: 'cli/setup-options.ts', why: 'defaults only: the lockfile name (plan/) and the unpack limits (install/)' },
];

/**
 * The one module that reads a prefix's receipt (readPrefixState); every other module is handed the PrefixState a run
 * read where it started. `install/receipt.ts` declares the format and the reader this module calls.
 */
export const RECEIPT_READER = 'install/prefix-state.ts';
const RECEIPT_FORMAT = 'install/receipt.ts';
// A call of readReceipt (whatever way it was imported), or a static import of the name.
const RECEIPT_CALL_RE = /(?<!function\s+)\breadReceipt\s*\(/;
const RECEIPT_IMPORT_RE = /^\s*import\s*\{[^}]*\breadReceipt\b[^}]*\}\s*from\s*['"][^'"]*receipt\.js['"]/m;

/** The files (relative to src/) other than RECEIPT_READER that read the receipt themselves. */
export function receiptReaders(files) {
  const out = [];
  for (const [rel, text] of files) {
    const posix = rel.split(path.sep).join('/');
    if (posix === RECEIPT_READER || posix === RECEIPT_FORMAT) continue;
    if (RECEIPT_CALL_RE.test(text) || RECEIPT_IMPORT_RE.test(text)) out.push(posix);
  }
  return out;
}

// A platform's name compared or switched on: `platform === 'win32'`, `'linux-x64' !== x.platform`, `case 'win32':`.
const PLATFORM_NAME = `'(?:win32|linux|darwin|win-x64|linux-x64)'`;
const PLATFORM_BRANCH_RE = new RegExp(
  `\\b(?:platform|os)\\s*[!=]==?\\s*${PLATFORM_NAME}|${PLATFORM_NAME}\\s*[!=]==?\\s*[\\w.?]*\\b(?:platform|os)\\b|\\bcase\\s+${PLATFORM_NAME}\\s*:`,
);

/**
 * Lines outside host/ that branch on a platform's name (`file:line`): what differs by platform is asked of its layout
 * (layoutFor, nodeLayout, osLayout), so host/ stays the one place that names platforms.
 */
export function platformBranches(files) {
  const out = [];
  for (const [rel, text] of files) {
    const posix = rel.split(path.sep).join('/');
    if (posix.startsWith('host/')) continue;
    text.split('\n').forEach((line, i) => {
      if (PLATFORM_BRANCH_RE.test(line)) out.push(`${posix}:${i + 1}`);
    });
  }
  return out;
}

function layerOf(node) {
  for (const [layer, names] of Object.entries(LAYERS)) if (names.includes(node)) return layer;
  return undefined;
}

/** The reason an edge is forbidden, or undefined when it is allowed. `typeOnly`: every import along it is `import type`. */
export function violation(from, to, typeOnly) {
  const a = layerOf(from);
  const b = layerOf(to);
  if (!a) return `${from} is in no layer (add it to LAYERS and src/README.md)`;
  if (!b) return `${to} is in no layer (add it to LAYERS and src/README.md)`;
  if (b === 'cli' && a !== 'cli') return 'nothing imports the CLI';
  if (a === 'base' && b !== 'base') return `the base layer imports only the base layer, not ${b} ${to}`;
  if (a === 'library' && (b === 'stage' || b === 'root')) return `a library does not import the ${b} ${to}`;
  if (a === 'library' && FORBIDDEN_LIBRARY_EDGES.some(([x, y]) => x === from && y === to)) return `${from} must not import ${to}`;
  if (a === 'stage' && b === 'root') return `a stage does not import ${to}`;
  if (a === 'stage' && b === 'stage' && !typeOnly) return `stages meet only in pipeline/; ${from} may import ${to}'s types, not its code`;
  if (a === 'root' && b === 'root') return `${from} and ${to} are separate entry points`;
  return undefined;
}

const IMPORT_RE = /^\s*(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]/gm;

/** The folder (or top-level file without .ts) of a path relative to src/. */
export function nodeOf(relPath) {
  const parts = relPath.split(/[\\/]/);
  return parts.length > 1 ? parts[0] : parts[0].replace(/(\.d)?\.[jt]s$/, '');
}

const DYNAMIC_IMPORT_RE = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The node (folder or top-level file) a relative specifier in fileRel points at. */
function targetOf(fileRel, spec) {
  return nodeOf(path.posix.normalize(path.posix.join(path.posix.dirname(fileRel.split(path.sep).join('/')), spec)));
}

/** The static imports and re-exports of one source text, each as { to, typeOnly }; other nodes only. */
function importsOf(fileRel, text) {
  const from = nodeOf(fileRel);
  const out = [];
  for (const m of text.matchAll(IMPORT_RE)) {
    if (!m[3].startsWith('.')) continue;
    const to = targetOf(fileRel, m[3]);
    if (to === from) continue;
    // `import type { A }` is type-only; `import { type A }` is too when every name in braces is marked type.
    const braces = /\{([^}]*)\}/.exec(m[0]);
    const names = braces ? braces[1].split(',').map((s) => s.trim()).filter(Boolean) : [];
    const onlyBraces = /^\s*(import|export)\s+\{/.test(m[0]);
    out.push({ to, typeOnly: Boolean(m[2]) || (onlyBraces && names.length > 0 && names.every((s) => s.startsWith('type '))) });
  }
  return out;
}

/** Folder edges of one source text: Map "from->to" to whether all imports along it are type-only. */
export function edgesOf(fileRel, text, into = new Map()) {
  const from = nodeOf(fileRel);
  for (const { to, typeOnly } of importsOf(fileRel, text)) {
    const key = `${from}->${to}`;
    into.set(key, (into.get(key) ?? true) && typeOnly);
  }
  return into;
}

/** The stages (other than its own) whose code one file imports, statically or with import(). */
export function stagesUsedBy(fileRel, text) {
  const from = nodeOf(fileRel);
  const used = new Set(importsOf(fileRel, text).filter((i) => !i.typeOnly).map((i) => i.to));
  for (const m of text.matchAll(DYNAMIC_IMPORT_RE)) if (m[1].startsWith('.')) used.add(targetOf(fileRel, m[1]));
  used.delete(from);
  return [...used].filter((n) => LAYERS.stage.includes(n)).sort();
}

/** Files outside pipeline/ that use more than one stage's code and are not listed in `known`, and listed files that no longer do. */
export function composers(files, known = KNOWN_COMPOSERS) {
  const problems = [];
  const found = new Map();
  for (const [rel, text] of files) {
    const posix = rel.split(path.sep).join('/');
    if (nodeOf(posix) === 'pipeline') continue;
    const stages = stagesUsedBy(posix, text);
    if (stages.length > 1) found.set(posix, stages);
  }
  for (const [file, stages] of found) {
    if (!known.some((k) => k.file === file)) problems.push(`${file} uses the stages ${stages.join(', ')}: only pipeline/ composes stages`);
  }
  for (const k of known) if (!found.has(k.file)) problems.push(`${k.file} is listed in KNOWN_COMPOSERS but uses one stage or none: remove it from the list`);
  return problems;
}

function walk(dir, root, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, root, out);
    else if (e.name.endsWith('.ts')) out.push(path.relative(root, p));
  }
  return out;
}

/** Every source file of src/ and its text, in path order. */
export function sourcesOf(srcDir) {
  return new Map(walk(srcDir, srcDir, []).sort().map((f) => [f, fs.readFileSync(path.join(srcDir, f), 'utf8')]));
}

export function graphOf(srcDir, files = sourcesOf(srcDir)) {
  const edges = new Map();
  for (const [f, text] of files) edgesOf(f, text, edges);
  return edges;
}

/** Checks a graph: the forbidden edges not listed as exceptions, and exceptions whose edge has gone. */
export function check(edges, exceptions = KNOWN_EXCEPTIONS) {
  const problems = [];
  for (const [key, typeOnly] of edges) {
    const [from, to] = key.split('->');
    const why = violation(from, to, typeOnly);
    if (!why) continue;
    const known = exceptions.find((x) => x.from === from && x.to === to && (!x.typeOnly || typeOnly));
    if (!known) problems.push(`${from} -> ${to}: ${why}`);
  }
  for (const x of exceptions) {
    const typeOnly = edges.get(`${x.from}->${x.to}`);
    if (typeOnly === undefined || !violation(x.from, x.to, typeOnly)) {
      problems.push(`${x.from} -> ${x.to} is listed in KNOWN_EXCEPTIONS but no longer breaks a rule: remove it from the list`);
    }
  }
  return problems;
}

/** A relative import's file, as a path relative to src/ (`./x.js` -> `x.ts`, a folder -> its index.ts). */
function targetFile(fromRel, spec, files) {
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), spec)).replace(/\.js$/, '.ts');
  if (files.has(joined)) return joined;
  const index = `${joined.replace(/\.ts$/, '')}/index.ts`;
  return files.has(index) ? index : undefined;
}

/** File-level imports of src/: every relative `import`, `import type`, `export ... from` and `import()`. */
export function fileGraphOf(srcDir, files = sourcesOf(srcDir)) {
  const known = new Set([...files.keys()].map((f) => f.split(path.sep).join('/')));
  const graph = new Map();
  for (const [rel, text] of files) {
    const f = rel.split(path.sep).join('/');
    const specs = [...[...text.matchAll(IMPORT_RE)].map((m) => m[3]), ...[...text.matchAll(DYNAMIC_IMPORT_RE)].map((m) => m[1])];
    const to = new Set();
    for (const spec of specs) {
      const t = spec.startsWith('.') ? targetFile(f, spec, known) : undefined;
      if (t && t !== f) to.add(t);
    }
    graph.set(f, [...to].sort());
  }
  return graph;
}

/** The groups of files that reach each other through imports (strongly connected, two files or more), each sorted. */
export function cyclesOf(graph) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const groups = [];
  let next = 0;
  const visit = (v) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v), low.get(w)));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v), index.get(w)));
    }
    if (low.get(v) !== index.get(v)) return;
    const group = [];
    let w;
    do {
      w = stack.pop();
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return groups.sort((a, b) => a[0].localeCompare(b[0]));
}

function main() {
  // `--src DIR` checks another tree (the tests give it one with a forbidden edge); `--no-exceptions` drops the list.
  const exceptions = process.argv.includes('--no-exceptions') ? [] : KNOWN_EXCEPTIONS;
  const at = process.argv.indexOf('--src');
  const srcDir = at > 0 && process.argv[at + 1] ? path.resolve(process.argv[at + 1]) : path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');
  const files = sourcesOf(srcDir);
  const edges = graphOf(srcDir, files);
  const byFrom = new Map();
  for (const [key, typeOnly] of edges) {
    const [from, to] = key.split('->');
    if (!byFrom.has(from)) byFrom.set(from, []);
    byFrom.get(from).push(typeOnly ? `${to} (types)` : to);
  }
  const order = Object.values(LAYERS).flat();
  const rank = (n) => (order.includes(n) ? order.indexOf(n) : order.length);
  for (const from of [...byFrom.keys()].sort((a, b) => rank(b) - rank(a) || a.localeCompare(b))) {
    console.log(`${from.padEnd(11)} -> ${byFrom.get(from).sort((a, b) => rank(a) - rank(b) || a.localeCompare(b)).join(', ')}`);
  }
  for (const x of exceptions) console.log(`known exception: ${x.from} -> ${x.to} (${x.why})`);
  const known = process.argv.includes('--no-exceptions') ? [] : KNOWN_COMPOSERS;
  for (const k of known) console.log(`known composer: ${k.file} (${k.why})`);
  const problems = check(edges, exceptions).map((p) => `forbidden edge: ${p}`);
  problems.push(...composers(files, known).map((p) => `stages composed outside pipeline/: ${p}`));
  for (const f of receiptReaders(files)) {
    problems.push(`receipt read outside ${RECEIPT_READER}: ${f} reads it itself; take the PrefixState the run read where it started (readPrefixState)`);
  }
  for (const g of cyclesOf(fileGraphOf(srcDir, files))) problems.push(`import cycle: ${g.join(', ')} import each other round a circle`);
  for (const at of platformBranches(files)) problems.push(`platform branch: ${at} compares a platform's name; ask its layout (host/) instead`);
  for (const p of problems) console.error(p);
  if (problems.length) process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
