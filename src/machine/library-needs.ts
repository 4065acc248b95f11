// Whether every shared library in a tree finds what it needs (ELF: DT_NEEDED, symbol versions, every undefined symbol; PE: imported DLLs) in the tree or on this machine, read from the files without loading them.
import { existsSync, realpathSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { isXpuError } from '../base/errors.js';
import { LIBRARY_FILE, readSafely, readSafelyWith } from '../base/safe-read.js';
import { newestInFamily, readElfNeeds, readElfSymbols, readElfTables, SHARED_LIBRARY, type ElfNeeds, type ElfSymbols } from '../formats/elf.js';
import { readPeImports, type PeImports } from '../formats/pe.js';
import { nodeLayout, osLayout } from '../platform/index.js';
import type { LdconfigEntry } from './ldconfig.js';
import { symbolTable, type SymbolOrigin } from './symbol-table.js';

export interface UnmetNeed {
  /** The library that needs it, as a path under the tree's root (`lib/libur_adapter_level_zero.so.0`). */
  file: string;
  /** The library needed (`libumf.so.1`). */
  library: string;
  /** A symbol version it needs of that library and the copy found lacks (`GLIBCXX_3.4.32`). */
  version?: string;
  /** Where the library was found, when only a version is missing. */
  foundAt?: string;
  /** The newest version of the same family that copy has (`GLIBCXX_3.4.30`). */
  newest?: string;
  /** Which package brings it, when known. */
  providedBy?: string;
  /** A DLL it delay-loads: it loads without it, and its first call into it fails. */
  delayed?: boolean;
  /** Symbols it takes from other libraries that none of those it loads with defines (`zeDeviceSynchronize`). */
  symbols?: string[];
  /** Where they were looked for: the library itself, then each library it loads with, as found here, in load order. */
  lookedIn?: string[];
  /** What the project's symbol table knows of them: the first release of the library that has each. */
  origins?: SymbolOrigin[];
  /** Why the library named is not looked at, or what was found in its place (a path, outside the tree, not a library). */
  reason?: string;
  /** The library itself is not read (`reason` says why): it is taken as one that does not load. */
  unreadable?: boolean;
}

/** Why a file is not read as a library: not an ELF file at all, or one it is not safe to read (a FIFO, past a limit). */
interface Refused {
  refused: string;
  notElf?: boolean;
}

/** A library as read once: what it needs and, when its dynamic symbol table could be read, what it takes and gives. */
interface ReadLibrary {
  elf: ElfNeeds;
  symbols?: ElfSymbols;
}

/** Where `file` really is (links followed), or undefined when it does not resolve. */
function realpathOrNone(file: string): string | undefined {
  try {
    return realpathSync.native(file);
  } catch {
    return undefined;
  }
}

/** `f` answering each key once: a later call with the same key gets the first answer. */
function keptByKey<V>(f: (key: string) => V): (key: string) => V {
  const kept = new Map<string, V>();
  return (key) => {
    if (!kept.has(key)) kept.set(key, f(key));
    return kept.get(key)!;
  };
}

/**
 * The needs of the shared libraries in `libDirs` (directories under `root`) that nothing meets: each DT_NEEDED is
 * looked up as the dynamic linker would for a program started from the prefix's env files (RPATH, the prefix's
 * library directories on LD_LIBRARY_PATH, the caller's LD_LIBRARY_PATH, RUNPATH, ld.so.cache, the default
 * directories), and each symbol version it needs of that library must be defined by the copy found there. `only`:
 * just the libraries of those file names are checked (their needs are still looked for in the whole tree).
 */
export async function unmetLibraryNeeds(deps: Deps, root: string, libDirs: string[], ldcache: LdconfigEntry[], only?: readonly string[]): Promise<UnmetNeed[]> {
  const layout = nodeLayout(deps.platform);
  // Every file is read and parsed once, whichever library needs it, for its needs and its symbols alike.
  const readOrWhy = keptByKey((file: string): Promise<ReadLibrary | Refused> =>
    readSafelyWith(file, LIBRARY_FILE, readElfTables).then((r) => {
      if ('refused' in r) return r;
      const elf = readElfNeeds(r.value);
      if (!elf) return { refused: `${file} is not an ELF shared library`, notElf: true };
      // Only the tree's own libraries are checked for what they take; the system's are asked what they define.
      const symbols = readElfSymbols(r.value, file.startsWith(root + path.sep));
      const refused = elf.refused ?? symbols?.refused;
      return refused ? { refused: `${file} ${refused} (past what a real library has, so it is not read)` } : { elf, symbols };
    }),
  );
  const prefetch = (file: string) => void readOrWhy(file).catch(() => undefined);
  const read = async (file: string): Promise<ReadLibrary | undefined> => {
    const r = await readOrWhy(file);
    return 'refused' in r ? undefined : r;
  };
  // Each path is looked at once, and each name searched for once: every library of a tree looks for libc, libstdc++
  // and the rest along the same paths.
  // Looked at without the thread pool: a check asks of a few hundred paths, each a moment's work for the kernel.
  const exists = keptByKey((p: string): boolean => existsSync(p));
  const realOf = keptByKey(realpathOrNone);
  const systemSearch = keptByKey((lib: string): string[] => layout.librarySearch(lib, deps.env, ldcache).map((c) => c.path));
  const treeDirs = libDirs.map((d) => path.join(root, d));
  const systemDirs = new Set([...layout.librarySearch('', deps.env, []).map((c) => path.resolve(c.path)), ...ldcache.map((e) => path.dirname(e.path))]);
  /** Where the dynamic linker looks, in order, for `lib` needed by `from` (its own RPATH/RUNPATH, `$ORIGIN` its directory). */
  const candidatesOf = (from: string, elf: ElfNeeds, lib: string): string[] => {
    const origin = (p: string) => p.replace(/\$(ORIGIN|\{ORIGIN\})/g, path.dirname(from));
    return [
      ...(elf.runpath.length ? [] : elf.rpath.map(origin)).map((d) => path.resolve(d, lib)),
      ...treeDirs.map((d) => path.join(d, lib)),
      ...elf.runpath.map(origin).map((d) => path.resolve(d, lib)),
      ...systemSearch(lib),
    ];
  };
  /**
   * Where the dynamic linker finds `lib` for the object `from`, or why it is not looked for: a name holding `/` is a
   * path the linker opens as it is (relative to the program's working directory), never searched for; a directory of
   * RPATH or RUNPATH outside the tree and the system's library directories is named, not read.
   */
  const locateOrWhy = (from: string, elf: ElfNeeds, lib: string): { at?: string; reason?: string } => {
    if (lib.includes('/')) return { reason: `the name holds "/": the dynamic linker opens it as a path, not a library in a search directory, and it is not read` };
    let outside: string | undefined;
    for (const c of candidatesOf(from, elf, lib)) {
      const inTree = c.startsWith(root + path.sep) || systemDirs.has(path.dirname(c));
      if (!inTree) {
        if (!outside && exists(c)) outside = c;
        continue;
      }
      if (exists(c)) return { at: c };
    }
    return outside ? { reason: `its RPATH or RUNPATH leads to ${outside}, outside the tree and this system's library directories: named, not read` } : {};
  };
  const locate = (from: string, elf: ElfNeeds, lib: string): string | undefined => locateOrWhy(from, elf, lib).at;
  const out: UnmetNeed[] = [];
  const seen = new Set<string>();
  const libraries = (
    await Promise.all(
      treeDirs.map(async (dir) => (await readdir(dir).catch(() => [] as string[])).filter((n) => SHARED_LIBRARY.test(n) && (!only || only.includes(n))).sort().map((name) => ({ name, file: path.join(dir, name) }))),
    )
  ).flat();
  // Every library is read at once, and each one's needs are found and read together: the reads wait on the disk, not
  // on each other.
  for (const { file } of libraries) prefetch(file);
  for (const { name, file } of libraries) {
    const real = realOf(file);
    if (!real || seen.has(real)) continue;
    seen.add(real);
    const self = await readOrWhy(file);
    const rel = path.relative(root, file).split(path.sep).join('/');
    // A file of a library's name that is no ELF (a linker script) is not loaded; one that cannot be read is said.
    if ('refused' in self) {
      if (!self.notElf) out.push({ file: rel, library: name, reason: self.refused, unreadable: true });
      continue;
    }
    const elf = self.elf;
    let complete = true;
    const located = elf.needed.map((lib) => locateOrWhy(file, elf, lib));
    for (const { at } of located) if (at) prefetch(at);
    for (const [i, lib] of elf.needed.entries()) {
      const { at, reason } = located[i]!;
      const providedBy = layout.libraryPackages[lib];
      if (!at) {
        complete = false;
        out.push({ file: rel, library: lib, providedBy, ...(reason ? { reason } : {}) });
        continue;
      }
      // The first file of the name is the one loaded: one that is not a library ends the load there.
      const found = await readOrWhy(at);
      if ('refused' in found) {
        complete = false;
        out.push({ file: rel, library: lib, foundAt: at, reason: found.refused });
        continue;
      }
      const wanted = elf.versionNeeds.find((v) => v.file === lib)?.versions ?? [];
      if (!wanted.length) continue;
      const defs = found.elf.versionDefs;
      for (const v of wanted.filter((w) => !defs.includes(w))) {
        complete = false;
        out.push({ file: rel, library: lib, version: v, foundAt: at, newest: newestInFamily(defs, v), providedBy });
      }
    }
    // A library whose own needs are unmet already fails to load: its symbols would only repeat that.
    if (complete) {
      const missing = await unresolvedSymbols(file, { read, prefetch, locate, realOf }, layout.dynamicLinker);
      const inTree = (p: string) => (p.startsWith(root + path.sep) ? path.relative(root, p).split(path.sep).join('/') : p);
      if (missing) {
        const origins = symbolOrigins(missing.symbols);
        const library = origins[0]?.libraries[layout.binaryFormat] ?? missing.library;
        out.push({ file: rel, ...missing, library, lookedIn: missing.lookedIn.map(inTree), ...(origins.length ? { origins } : {}) });
      }
    }
  }
  return out;
}

/** How a check reads and finds libraries, each answer kept for the whole check (unmetLibraryNeeds). */
interface Looks {
  read: (file: string) => Promise<ReadLibrary | undefined>;
  /** Starts reading a library that is awaited later (which then sees any failure). */
  prefetch: (file: string) => void;
  locate: (from: string, elf: ElfNeeds, lib: string) => string | undefined;
  realOf: (file: string) => string | undefined;
}

/**
 * The undefined, non-weak symbols of `file` that no library of its load scope defines: the file itself, then its
 * DT_NEEDED libraries breadth first, each found as the dynamic linker finds it, and the dynamic linker itself; as
 * `LD_BIND_NOW` (or `ldd -r`) would resolve them when the file is loaded. Undefined when all resolve, or when a library
 * of the scope cannot be read (then nothing can be said).
 */
async function unresolvedSymbols(file: string, look: Looks, dynamicLinker: string | undefined): Promise<{ library: string; symbols: string[]; lookedIn: string[] } | undefined> {
  const { read, prefetch, locate, realOf } = look;
  const self = await read(file);
  if (!self?.symbols?.undefinedNames.length) return undefined;
  const scope: { path: string; symbols: ElfSymbols }[] = [];
  const queue: string[] = [file];
  const inScope = new Set<string>();
  const needed: string[] = [];
  while (queue.length) {
    const at = queue.shift()!;
    const real = realOf(at) ?? at;
    if (inScope.has(real)) continue;
    inScope.add(real);
    const lib = await read(at);
    if (!lib?.symbols) return undefined;
    scope.push({ path: at, symbols: lib.symbols });
    const found = lib.elf.needed.map((dep) => locate(at, lib.elf, dep));
    for (const f of found) if (f) prefetch(f);
    queue.push(...found.filter((f): f is string => f !== undefined));
    if (at === file) needed.push(...lib.elf.needed);
  }
  if (dynamicLinker && !inScope.has(realOf(dynamicLinker) ?? dynamicLinker)) {
    const ld = await read(dynamicLinker);
    if (ld?.symbols) scope.push({ path: dynamicLinker, symbols: ld.symbols });
  }
  const unmet = self.symbols.undefinedNames.filter((name) => !scope.some((l) => l.symbols.defines(name)));
  const symbols = [...new Set(unmet.map((name) => name.text))].sort();
  if (!symbols.length) return undefined;
  return { library: needed.join(', '), symbols, lookedIn: scope.map((l) => l.path) };
}

/** The first release of the library that has each symbol, where the project's table knows it. */
function symbolOrigins(symbols: string[]): SymbolOrigin[] {
  const table = symbolTable();
  return symbols.map((s) => table.get(s)).filter((o): o is SymbolOrigin => o !== undefined);
}

const PE_FILE = /\.(dll|exe)$/i;
/** API sets name contracts, not files: the Windows loader maps them to whichever system DLL implements them. */
const API_SET = /^(api|ext)-ms-/i;

export interface DllImportCheck {
  unmet: UnmetNeed[];
  /** Files that cannot be read as DLLs or EXEs, each with the reader's message naming it. */
  damaged: string[];
  /** System DLLs taken as present without looking, when the tree is checked on a system that is not Windows. */
  assumed: string[];
}

/** Every file under `dir` whose name ends in .dll or .exe (any case), as paths. */
async function peFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await peFiles(full)));
    else if (e.isFile() && PE_FILE.test(e.name)) out.push(full);
  }
  return out.sort();
}

/**
 * The imports of every DLL and EXE in the tree at `root` that nothing meets, as Windows would look for them for a
 * program started from the prefix's env files: each imported DLL (case does not matter) in the importing file's own
 * directory, then the tree's library directories `libDirs` (on PATH through the env files), then the system. API sets
 * always resolve. On Windows (under Wine: the Wine prefix's system32) the system is System32, the Windows directory and
 * PATH, looked at; on any other system the documented set of Windows' own and the GPU driver's DLLs is taken as
 * present, and each such DLL a file imports is listed in `assumed`. `only`: just the files of those names (any case) are
 * checked.
 */
export async function unmetDllImports(deps: Deps, root: string, libDirs: string[], only?: readonly string[]): Promise<DllImportCheck> {
  // Where this process loads DLLs itself (Windows, Wine), the system's own are looked at, not taken on trust.
  const onWindows = nodeLayout(deps.platform).binaryFormat === 'pe';
  // Each directory's file names by their lower case (Windows matches names in any case).
  const namesIn = keptByKey((dir: string): Promise<Map<string, string>> => readdir(dir).then((n) => new Map(n.map((x) => [x.toLowerCase(), x])), () => new Map<string, string>()));
  // Every DLL is read once, whichever file imports from it; undefined when it cannot be read as one.
  const exportsOf = new Map<string, Promise<PeImports['exports'] | undefined>>();
  const exportsAt = (file: string): Promise<PeImports['exports'] | undefined> => {
    let p = exportsOf.get(file);
    if (!p) {
      p = readSafely(file, LIBRARY_FILE).then((r) => ('bytes' in r ? readPeImports(r.bytes, file)?.exports : undefined)).catch(() => undefined);
      exportsOf.set(file, p);
    }
    return p;
  };
  const windows = osLayout('win32')!;
  const documented = new Set([...(windows.hostLibraries?.system ?? []), ...(windows.hostLibraries?.driver ?? [])]);
  const packages = new Map(Object.entries(windows.libraryPackages).map(([k, v]) => [k.toLowerCase(), v]));
  const treeDirs = libDirs.map((d) => path.join(root, ...d.split(/[\\/]/)));
  const onSystem = new Map<string, Promise<string | undefined>>();
  const systemHas = (dll: string): Promise<string | undefined> => {
    let p = onSystem.get(dll);
    if (!p) {
      p = (async () => {
        for (const c of windows.librarySearch(dll, deps.env)) if (await deps.exists(c.path)) return c.path;
        return undefined;
      })();
      onSystem.set(dll, p);
    }
    return p;
  };
  const result: DllImportCheck = { unmet: [], damaged: [], assumed: [] };
  const assumed = new Set<string>();
  const checked = only && new Set(only.map((n) => n.toLowerCase()));
  for (const file of await peFiles(root)) {
    if (checked && !checked.has(path.basename(file).toLowerCase())) continue;
    const rel = path.relative(root, file).split(path.sep).join('/');
    let pe: PeImports | undefined;
    const bytes = await readSafely(file, LIBRARY_FILE);
    if ('refused' in bytes) {
      result.damaged.push(bytes.refused);
      continue;
    }
    try {
      pe = readPeImports(bytes.bytes, rel);
    } catch (e) {
      if (!isXpuError(e, 'BAD_LIBRARY')) throw e;
      result.damaged.push(e.message);
      continue;
    }
    if (!pe) {
      result.damaged.push(`${rel} is not a Windows DLL or EXE (it does not start with MZ)`);
      continue;
    }
    const missing: { dll: string; at: string; names: string[]; delayed: boolean }[] = [];
    for (const { dll, delayed, names, ordinals } of pe.importedSymbols) {
      const lower = dll.toLowerCase();
      if (API_SET.test(dll)) continue;
      let at: string | undefined;
      for (const dir of [path.dirname(file), ...treeDirs]) {
        const real = (await namesIn(dir)).get(lower);
        if (real) {
          at = path.join(dir, real);
          break;
        }
      }
      if (!at && !onWindows && documented.has(lower)) {
        assumed.add(dll);
        continue;
      }
      if (!at && onWindows) at = await systemHas(dll);
      if (!at) {
        result.unmet.push({ file: rel, library: dll, providedBy: packages.get(lower), ...(delayed ? { delayed } : {}) });
        continue;
      }
      // As the Windows loader binds them: each function by name, or by ordinal, in the DLL found.
      const exported = await exportsAt(at);
      if (!exported) continue;
      const lacking = [...names.filter((n) => !exported.names.has(n)), ...ordinals.filter((o) => !exported.ordinals.has(o)).map((o) => `#${o}`)];
      if (lacking.length) missing.push({ dll, at, names: lacking, delayed });
    }
    for (const m of missing) {
      const inTree = m.at.startsWith(root + path.sep) ? path.relative(root, m.at).split(path.sep).join('/') : m.at;
      const origins = symbolOrigins(m.names);
      result.unmet.push({ file: rel, library: m.dll, symbols: m.names.sort(), foundAt: inTree, lookedIn: [inTree], ...(m.delayed ? { delayed: true } : {}), ...(origins.length ? { origins } : {}) });
    }
  }
  result.assumed = [...assumed].sort((a, b) => a.localeCompare(b));
  return result;
}

/** One line a person can act on. */
export function describeUnmet(u: UnmetNeed): string {
  const from = u.providedBy ? ` (it comes with ${u.providedBy})` : '';
  if (u.symbols) return describeUnresolved(u);
  if (u.unreadable) return `${u.file}: ${u.reason}; taken as a library that does not load`;
  if (u.reason) return `${u.file} needs ${u.library}${u.foundAt ? `, found at ${u.foundAt}` : ''}: ${u.reason}, so it does not load`;
  if (u.delayed) return `${u.file} delay-loads ${u.library}, which is neither in the new tree nor on this system, so its first call into it fails${from}`;
  if (!u.version) return `${u.file} needs ${u.library}, which is neither in the new tree nor on this system${from}`;
  // The C library is this machine's, never the tree's: say it in the terms of the glibc release.
  if (/^GLIBC_/.test(u.version) && u.newest && u.foundAt && path.isAbsolute(u.foundAt)) {
    return `${u.file} needs ${u.version}, this host has ${u.newest.replace(/^GLIBC_/, '')} (${u.foundAt}): it was built for a newer distribution; take a build for this glibc (conda-forge's, or this distribution's own)`;
  }
  return `${u.file} needs ${u.version} of ${u.library}, which the copy at ${u.foundAt} lacks${u.newest ? ` (it has up to ${u.newest})` : ''}${from}`;
}

const words = (xs: string[]): string => (xs.length < 2 ? xs.join('') : `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}`);

function describeUnresolved(u: UnmetNeed): string {
  const symbols = u.symbols!;
  const shown = symbols.length > 6 ? [...symbols.slice(0, 5), `${symbols.length - 5} more`] : symbols;
  const head = u.foundAt
    ? `${u.file} imports ${words(shown)} from ${u.library}, which the copy at ${u.foundAt} does not export, so ${u.delayed ? 'its first call into it fails' : 'it does not load'}`
    : `${u.file} calls ${words(shown)}, which no library it loads with defines (looked in ${u.lookedIn?.join(', ')}), so it does not load`;
  const byRelease = new Map<string, SymbolOrigin[]>();
  for (const o of u.origins ?? []) byRelease.set(`${o.library} ${o.since}`, [...(byRelease.get(`${o.library} ${o.since}`) ?? []), o]);
  const since = [...byRelease.values()].map((os) => {
    const o = os[0]!;
    return `${words(os.map((x) => x.symbol))} first ${os.length > 1 ? 'appear' : 'appears'} in ${o.library} ${o.since} (${o.source}): install ${o.component} >= ${o.since} (\`--require '${o.component}>=${o.since}'\`)`;
  });
  return since.length ? `${head}: ${since.join('; ')}` : head;
}
