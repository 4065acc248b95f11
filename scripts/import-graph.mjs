// Prints the folder-level import graph of src/ and exits 1 when an edge breaks the layering written in src/README.md,
// when files import each other round a circle, or when a rule about what only one folder names is broken. Every file
// is read with TypeScript's own parser: static imports, re-exports, `import()`, `require()` and `typeof import()`
// count, and the rules look at the syntax tree, not at lines.
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const ts = createRequire(import.meta.url)('typescript');

/** Each folder (or top-level file) of src/ and its layer; src/README.md says the same in prose. */
export const LAYERS = {
  // Everything may import these; they import only each other.
  base: ['base', 'package-dir', 'platform'],
  // What the stages use, in LIBRARY_ORDER. They never reach up into a stage, the pipeline, the doctor or the CLI.
  library: ['formats', 'versions', 'records', 'cache', 'net', 'machine', 'shells', 'prefix', 'bindings', 'caps', 'index', 'kinds', 'roles', 'manifest', 'hints'],
  // The pipeline's stages, in order. Only pipeline/ composes them; between stages only `import type` (data) passes.
  stage: ['plan', 'fetch', 'install', 'build', 'probe', 'smoke'],
  // Places that compose: the setup pipeline, the doctor, and the real side effects behind Deps.
  root: ['pipeline', 'doctor', 'bundle'],
  cli: ['cli'],
};

/**
 * The libraries from the floor up: one imports only those before it in this list (types too), so no two libraries
 * can import each other round a ring. `formats` reads bytes; `versions` is the algebra of version strings;
 * `records` the data passed between stages; `machine` reads this machine; `shells` writes the prefix's environment
 * in each shell's syntax; `prefix` is the prefix document (state, receipt, writer, lock); `bindings` calls into
 * native libraries; `index` speaks index protocols; `kinds` and `roles` are the two plug-in folders; `manifest` names them.
 */
export const LIBRARY_ORDER = LAYERS.library;

/** Library-to-library edges that would let a lower layer do a higher one's job (the order forbids them too). */
export const FORBIDDEN_LIBRARY_EDGES = [
  ['cache', 'net'], // the cache stores bytes it is given; downloading is fetch/'s job
  ['formats', 'net'], // archive readers never touch the network
  ['formats', 'cache'],
];

/**
 * Edges that break a rule today, each with the reason it is tolerated. Remove a line when its edge is gone; a listed
 * edge that no longer exists is reported, so this list cannot go stale silently.
 */
export const KNOWN_EXCEPTIONS = [];

/**
 * Files outside pipeline/ that import code (not only types) from more than one stage, each with its reason: the
 * rule is that only pipeline/ composes stages. A listed file that no longer does is reported, like KNOWN_EXCEPTIONS.
 */
export const KNOWN_COMPOSERS = [
  { file: 'bundle/bundle.ts', why: 'a bundle fetches its plans (fetch/) and writes their lockfile (plan/lockfile.ts)' },
];

/**
 * The one module that reads a prefix's receipt (readPrefixState); every other module is handed the PrefixState a run
 * read where it started. `prefix/receipt.ts` declares the format and the reader this module calls.
 */
export const RECEIPT_READER = 'prefix/prefix-state.ts';
const RECEIPT_FORMAT = 'prefix/receipt.ts';

// ---- reading a file ------------------------------------------------------------------------------------------

const posixOf = (rel) => rel.split(path.sep).join('/');
const parsed = new Map();

/** The syntax tree of one file (parsed once per text). */
function treeOf(rel, text) {
  const key = `${rel}\0${text}`;
  let sf = parsed.get(key);
  if (!sf) {
    sf = ts.createSourceFile(rel, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
    parsed.set(key, sf);
  }
  return sf;
}

function walkTree(node, visit) {
  visit(node);
  ts.forEachChild(node, (c) => walkTree(c, visit));
}

const lineOf = (sf, node) => sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
const stringOf = (node) => (node && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) ? node.text : undefined);

/**
 * Every module a file names, each as { spec, typeOnly, dynamic }: `import`, `import type`, `export … from`,
 * `import()` (code, whatever it loads), `require()`, and `typeof import()` in a type (types only).
 */
export function specifiersOf(rel, text) {
  const sf = treeOf(rel, text);
  const out = [];
  walkTree(sf, (n) => {
    if (ts.isImportDeclaration(n)) {
      const c = n.importClause;
      const named = c?.namedBindings && ts.isNamedImports(c.namedBindings) ? c.namedBindings.elements : undefined;
      const typeOnly = !!c && (c.isTypeOnly || (!c.name && !!named && named.length > 0 && named.every((e) => e.isTypeOnly)));
      out.push({ spec: stringOf(n.moduleSpecifier), typeOnly, dynamic: false });
    } else if (ts.isExportDeclaration(n) && n.moduleSpecifier) {
      const named = n.exportClause && ts.isNamedExports(n.exportClause) ? n.exportClause.elements : undefined;
      const typeOnly = n.isTypeOnly || (!!named && named.length > 0 && named.every((e) => e.isTypeOnly));
      out.push({ spec: stringOf(n.moduleSpecifier), typeOnly, dynamic: false });
    } else if (ts.isCallExpression(n) && (n.expression.kind === ts.SyntaxKind.ImportKeyword || (ts.isIdentifier(n.expression) && n.expression.text === 'require'))) {
      out.push({ spec: stringOf(n.arguments[0]), typeOnly: false, dynamic: true });
    } else if (ts.isImportTypeNode(n) && ts.isLiteralTypeNode(n.argument)) {
      out.push({ spec: stringOf(n.argument.literal), typeOnly: true, dynamic: false });
    }
  });
  return out.filter((i) => i.spec !== undefined);
}

/** The folder (or top-level file without .ts) of a path relative to src/. */
export function nodeOf(relPath) {
  const parts = relPath.split(/[\\/]/);
  return parts.length > 1 ? parts[0] : parts[0].replace(/(\.d)?\.[jt]s$/, '');
}

/** The node (folder or top-level file) a relative specifier in fileRel points at. */
function targetOf(fileRel, spec) {
  return nodeOf(path.posix.normalize(path.posix.join(path.posix.dirname(posixOf(fileRel)), spec)));
}

/** The imports of one source text into other nodes, each as { to, typeOnly }. */
function importsOf(fileRel, text) {
  const from = nodeOf(fileRel);
  return specifiersOf(fileRel, text)
    .filter((i) => i.spec.startsWith('.'))
    .map((i) => ({ to: targetOf(fileRel, i.spec), typeOnly: i.typeOnly }))
    .filter((i) => i.to !== from);
}

// ---- the layers ------------------------------------------------------------------------------------------------

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
  if (a === 'library' && b === 'library' && LIBRARY_ORDER.indexOf(to) > LIBRARY_ORDER.indexOf(from)) {
    return `${from} is below ${to} among the libraries (LIBRARY_ORDER): it may not import it, not even its types`;
  }
  if (a === 'stage' && b === 'root') return `a stage does not import ${to}`;
  if (a === 'stage' && b === 'stage' && !typeOnly) return `stages meet only in pipeline/; ${from} may import ${to}'s types, not its code`;
  if (a === 'root' && b === 'root') return `${from} and ${to} are separate entry points`;
  return undefined;
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
  const used = new Set(importsOf(fileRel, text).filter((i) => !i.typeOnly).map((i) => i.to));
  return [...used].filter((n) => LAYERS.stage.includes(n)).sort();
}

/** Files outside pipeline/ that use more than one stage's code and are not listed in `known`, and listed files that no longer do. */
export function composers(files, known = KNOWN_COMPOSERS) {
  const problems = [];
  const found = new Map();
  for (const [rel, text] of files) {
    const posix = posixOf(rel);
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

// ---- what only one folder names --------------------------------------------------------------------------------

/** The last name of an expression: `spec.kind` -> kind, `kindOf(x)` -> kindOf, `a?.b!` -> b. */
function lastName(e) {
  while (e && (ts.isNonNullExpression(e) || ts.isParenthesizedExpression(e) || ts.isAsExpression(e))) e = e.expression;
  if (!e) return undefined;
  if (ts.isIdentifier(e)) return e.text;
  if (ts.isPropertyAccessExpression(e)) return e.name.text;
  if (ts.isElementAccessExpression(e)) return stringOf(e.argumentExpression);
  if (ts.isCallExpression(e)) return lastName(e.expression);
  return undefined;
}

const EQUALITY = new Set([ts.SyntaxKind.EqualsEqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsEqualsToken, ts.SyntaxKind.EqualsEqualsToken, ts.SyntaxKind.ExclamationEqualsToken]);

/** The names a plug-in folder defines: each object literal there with a string `name` and the marker property. */
function pluginNames(files, folder, marker) {
  const names = new Set();
  for (const [rel, text] of files) {
    if (nodeOf(posixOf(rel)) !== folder) continue;
    walkTree(treeOf(rel, text), (n) => {
      if (!ts.isObjectLiteralExpression(n)) return;
      const props = new Map(n.properties.filter((p) => ts.isPropertyAssignment(p) && p.name && ts.isIdentifier(p.name)).map((p) => [p.name.text, p.initializer]));
      const name = stringOf(props.get('name'));
      if (name && props.has(marker)) names.add(name);
    });
  }
  return names;
}

/**
 * Where one file tells named things apart by name (`file:line`): a name compared (`===`, `case`) with an expression
 * whose last name says what it holds (`spec.kind`), a property of that name set to one (`kind: 'conda'`, in code or
 * in a type), two or more of the names together (a union type, an array, an object's keys), or a string that starts
 * with `name:` (a URL scheme of the thing).
 */
function namings(rel, text, names, holders, { scheme = false } = {}) {
  const sf = treeOf(rel, text);
  const hits = new Set();
  const isName = (n) => n !== undefined && names.has(n);
  const holds = (e) => {
    const n = lastName(e);
    return n !== undefined && holders.test(n);
  };
  const count = (nodes, textOf) => nodes.filter((x) => isName(textOf(x))).length;
  walkTree(sf, (n) => {
    const str = stringOf(n) ?? (ts.isTemplateHead?.(n) ? n.text : undefined);
    if (str !== undefined) {
      if (scheme && [...names].some((k) => str.startsWith(`${k}:`))) hits.add(lineOf(sf, n));
      if (!isName(str)) return;
      const p = n.parent;
      if (ts.isBinaryExpression(p) && EQUALITY.has(p.operatorToken.kind) && holds(p.left === n ? p.right : p.left)) hits.add(lineOf(sf, n));
      else if (ts.isCaseClause(p) && holds(p.parent.parent.expression)) hits.add(lineOf(sf, n));
      else if (ts.isPropertyAssignment(p) && p.initializer === n && p.name && holders.test(p.name.getText(sf))) hits.add(lineOf(sf, n));
      else if (ts.isLiteralTypeNode(p) && ts.isPropertySignature(p.parent) && holders.test(p.parent.name.getText(sf))) hits.add(lineOf(sf, n));
      else if (ts.isCallExpression(p) && ts.isPropertyAccessExpression(p.expression) && /^(includes|indexOf|has|get)$/.test(p.expression.name.text) && holds(p.expression.expression)) hits.add(lineOf(sf, n));
      else if (ts.isArrayLiteralExpression(p) && ts.isPropertyAssignment(p.parent) && p.parent.name && holders.test(p.parent.name.getText(sf))) hits.add(lineOf(sf, n));
      return;
    }
    if (ts.isUnionTypeNode(n) && count(n.types, (t) => (ts.isLiteralTypeNode(t) ? stringOf(t.literal) : undefined)) >= 2) hits.add(lineOf(sf, n));
    if (ts.isArrayLiteralExpression(n) && count(n.elements, stringOf) >= 2) hits.add(lineOf(sf, n));
    if (ts.isObjectLiteralExpression(n) && count(n.properties, (p) => (p.name ? (ts.isIdentifier(p.name) ? p.name.text : stringOf(p.name)) : undefined)) >= 2) hits.add(lineOf(sf, n));
  });
  return [...hits].sort((a, b) => a - b).map((l) => `${posixOf(rel)}:${l}`);
}

/** Lines outside kinds/ that tell source kinds apart by name: only the kind's own module may (kinds/index.ts is asked). */
export function kindNamings(files) {
  const kinds = pluginNames(files, 'kinds', 'ordering');
  const out = [];
  for (const [rel, text] of files) if (nodeOf(posixOf(rel)) !== 'kinds') out.push(...namings(rel, text, kinds, /^(kind|source|sources|kinds)$/i, { scheme: true }));
  return out;
}

/**
 * Lines outside roles/ that tell component roles apart by name (`c.roles.includes('ze-loader')`, `role === …`): what
 * a role contributes is asked of roles/index.ts. (A doctor check may share a role's name: that is not a role.)
 */
export function roleNamings(files) {
  const roles = pluginNames(files, 'roles', 'title');
  const out = [];
  for (const [rel, text] of files) if (nodeOf(posixOf(rel)) !== 'roles') out.push(...namings(rel, text, roles, /^(roles?|roleNames?)$/));
  return out;
}

const PLATFORM_NAMES = new Set(['win32', 'linux', 'darwin', 'win-x64', 'linux-x64', 'linux-aarch64', 'x64', 'arm64', 'aarch64']);

/**
 * Lines outside platform/ that branch on a platform's name (`file:line`): what differs by platform is asked of its layout
 * (layoutFor, nodeLayout, osLayout), so platform/ stays the one place that names platforms.
 */
export function platformBranches(files) {
  const out = [];
  for (const [rel, text] of files) {
    if (posixOf(rel).startsWith('platform/')) continue;
    out.push(...namings(rel, text, PLATFORM_NAMES, /./));
  }
  return out;
}

/** Whether a call reads the receipt: readReceipt(), or a file read of RECEIPT_NAME / 'receipt.json'. */
function readsReceipt(sf) {
  let found = false;
  walkTree(sf, (n) => {
    if (found) return;
    if (ts.isImportSpecifier(n) && (n.propertyName ?? n.name).text === 'readReceipt') found = true;
    if (!ts.isCallExpression(n)) return;
    const callee = lastName(n.expression);
    if (callee === 'readReceipt' && !(ts.isFunctionDeclaration(n.parent))) found = true;
    if (callee && /^(readFile|readFileSync|createReadStream|readJson)$/.test(callee)) {
      walkTree(n, (a) => {
        if ((ts.isIdentifier(a) && a.text === 'RECEIPT_NAME') || stringOf(a)?.endsWith('receipt.json')) found = true;
      });
    }
  });
  return found;
}

/** The files (relative to src/) other than RECEIPT_READER that read the receipt themselves. */
export function receiptReaders(files) {
  const out = [];
  for (const [rel, text] of files) {
    const posix = posixOf(rel);
    if (posix === RECEIPT_READER || posix === RECEIPT_FORMAT) continue;
    if (readsReceipt(treeOf(rel, text))) out.push(posix);
  }
  return out;
}

// ---- the tree --------------------------------------------------------------------------------------------------

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
  const known = new Set([...files.keys()].map(posixOf));
  const graph = new Map();
  for (const [rel, text] of files) {
    const f = posixOf(rel);
    const to = new Set();
    for (const { spec } of specifiersOf(rel, text)) {
      const t = spec.startsWith('.') ? targetFile(f, spec, known) : undefined;
      if (t && t !== f) to.add(t);
    }
    graph.set(f, [...to].sort());
  }
  return graph;
}

/** The groups of nodes that reach each other (strongly connected, two or more), each sorted. */
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

/**
 * Folders that import each other round a ring, types included. Left out: the data one stage hands the next (a stage's
 * `import type` of another stage), which the layers allow, and the listed exceptions, which are reported apart.
 */
export function folderRings(edges, exceptions = KNOWN_EXCEPTIONS) {
  const graph = new Map();
  for (const [key, typeOnly] of edges) {
    const [from, to] = key.split('->');
    if (typeOnly && layerOf(from) === 'stage' && layerOf(to) === 'stage') continue;
    if (exceptions.some((x) => x.from === from && x.to === to && (!x.typeOnly || typeOnly))) continue;
    if (!graph.has(from)) graph.set(from, []);
    graph.get(from).push(to);
  }
  return cyclesOf(graph);
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
  for (const g of folderRings(edges, exceptions)) problems.push(`folder ring: ${g.join(', ')} import each other round a ring`);
  for (const at of platformBranches(files)) problems.push(`platform branch: ${at} compares a platform's name; ask its layout (platform/) instead`);
  for (const at of kindNamings(files)) problems.push(`source kind named: ${at} tells source kinds apart; ask the kind (kinds/index.ts) instead`);
  for (const at of roleNamings(files)) problems.push(`role named: ${at} names a component role; ask the roles (roles/index.ts) instead`);
  for (const p of problems) console.error(p);
  if (problems.length) process.exit(1);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
