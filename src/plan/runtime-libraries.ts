// The runtime-library rule: a runtime package (libstdcxx, libgcc, libgomp, _openmp_mutex) is installed only where this machine lacks what the installed binaries need of it, and never where its copy is older than the machine's.
import * as path from 'node:path';
import { realpath } from 'node:fs/promises';
import type { Deps } from '../base/deps.js';
import { LIBRARY_FILE, readSafelyWith } from '../base/safe-read.js';
import { newestInFamily, readElfNeeds, readElfTables, SHARED_LIBRARY, type ElfNeeds } from '../formats/elf.js';
import { readArchive } from '../formats/index.js';
import type { LdconfigEntry } from '../machine/ldconfig.js';
import { isInside, layoutFor, nodeLayout } from '../platform/index.js';
import { CONDA_RUNTIME_PACKAGES } from '../index/repodata.js';
import type { PlannedArchive } from '../records/archive.js';
import type { StagedMember } from '../install/staging.js';
import { planKeyOf } from './key.js';
import type { InstallPlan, PlannedComponent } from '../records/plan.js';
import type { LockedPlatform } from '../records/lock.js';

/**
 * Linux runtime packages decided from the ELF files: what conda-forge's compilers put in `run_exports`, and the
 * metadata-only packages that hold them together. Windows' runtime packages (ucrt, vc14_runtime) are still left to the
 * host (see closure.ts); deciding them from PE imports would add their names here for win-x64.
 */
export const DECIDED_RUNTIME = new Set(CONDA_RUNTIME_PACKAGES);

/** A shared library of an archive, by file name: its ELF needs, or the name it links to. */
export interface LibraryFile {
  name: string;
  elf?: ElfNeeds;
  /** A symbolic link's target, by file name (`libgomp.so.1` -> `libgomp.so.1.0.0`). */
  linkTo?: string;
}

/** This machine's copy of a library, as a program started without the env files gets it. */
export interface HostLibrary {
  path: string;
  defs: string[];
}

export interface RuntimePackage {
  key: string;
  label: string;
  name: string;
  depends: string[];
  /** Undefined when its archive has not been read (not fetched yet). */
  libraries?: LibraryFile[];
}

export interface RuntimeDecision {
  install: boolean;
  why: string;
}

/** A need of the tree's binaries that neither the tree nor this machine meets. */
interface Unmet {
  by: string;
  library: string;
  /** The symbol versions a copy must define to meet it. */
  versions: string[];
  /** This machine's copy, which lacks versions[0]; absent when it has none. */
  host?: HostLibrary;
}

function describeNeed(u: Unmet): string {
  if (!u.host) return `needs ${u.library}, which this machine does not have`;
  const newest = newestInFamily(u.host.defs, u.versions[0]!);
  return `needs ${u.versions[0]}, host has ${newest ? /[\d.]+$/.exec(newest)![0] : 'none of that family'}`;
}

/** The needs of `files` that nothing among `inTree` (by file name) or on the host meets. */
function unmetNeeds(files: { by: string; elf: ElfNeeds }[], inTree: Map<string, LibraryFile>, host: (lib: string) => HostLibrary | undefined): Unmet[] {
  const out: Unmet[] = [];
  for (const { by, elf } of files) {
    for (const lib of elf.needed) {
      if (inTree.has(lib)) continue;
      const wanted = elf.versionNeeds.find((v) => v.file === lib)?.versions ?? [];
      const h = host(lib);
      if (!h) out.push({ by, library: lib, versions: wanted });
      else for (const v of wanted.filter((w) => !h.defs.includes(w))) out.push({ by, library: lib, versions: [v], host: h });
    }
  }
  return out;
}

/** The library a file name stands for in a set, through symbolic links. */
function follow(name: string, files: Map<string, LibraryFile>): LibraryFile | undefined {
  let f = files.get(name);
  for (let i = 0; f?.linkTo && i < 8; i++) f = files.get(f.linkTo) ?? f;
  return f?.elf ? f : undefined;
}

/** What of the host's copy the package's copy lacks: then the package's is older and would shadow it. */
function olderThanHost(lib: LibraryFile, host: HostLibrary | undefined): string | undefined {
  return host?.defs.find((d) => !lib.elf!.versionDefs.includes(d));
}

/**
 * Pure: the decision for each runtime package, from what the tree's binaries need (`binaries`, the libraries of every
 * other package) and what this machine has (`host`). Undefined when a need is unmet and some runtime package has not
 * been read yet: the caller reads them and asks again. A package is installed when a need of an installed binary
 * is met by its copy and by nothing on the host, and none of its libraries is older than the host's copy; a package
 * without libraries (a mutex) goes with the installed packages that depend on it.
 */
export function decideRuntime(
  binaries: { by: string; elf: ElfNeeds }[],
  packages: RuntimePackage[],
  host: (lib: string) => HostLibrary | undefined,
  treeFiles: string[],
): Map<string, RuntimeDecision> | undefined {
  const tree = new Map(treeFiles.map((n): [string, LibraryFile] => [n, { name: n }]));
  const first = unmetNeeds(binaries, tree, host);
  const out = new Map<string, RuntimeDecision>();
  if (!first.length) {
    for (const p of packages) out.set(p.key, { install: false, why: 'satisfied by the host' });
    return out;
  }
  if (packages.some((p) => !p.libraries)) return undefined;
  const filesOf = (p: RuntimePackage) => new Map(p.libraries!.map((f) => [f.name, f]));
  const all = new Map(packages.flatMap((p) => p.libraries!.map((f): [string, LibraryFile] => [f.name, f])));
  const refused = new Map<string, string>();
  const installed = new Set<string>();
  for (let changed = true; changed; ) {
    changed = false;
    const inTree = new Map(tree);
    const files = [...binaries];
    for (const p of packages.filter((x) => installed.has(x.key))) {
      for (const f of p.libraries!) inTree.set(f.name, f);
      for (const f of p.libraries!) if (f.elf) files.push({ by: `${p.label}: ${f.name}`, elf: f.elf });
    }
    for (const u of unmetNeeds(files, inTree, host)) {
      const p = packages.find((x) => !installed.has(x.key) && filesOf(x).has(u.library));
      if (!p) continue;
      const lib = follow(u.library, all);
      const lacks = lib ? u.versions.find((v) => !lib.elf!.versionDefs.includes(v)) : undefined;
      if (!lib || lacks) {
        refused.set(p.key, `${describeNeed(u)}, and its ${u.library} ${lib ? `lacks ${lacks} too` : 'is not a library this can read'}: not installed`);
        continue;
      }
      const hostCopies = p.libraries!.map((f) => [f, host(f.name)] as const);
      const older = hostCopies.map(([f, h]) => (follow(f.name, all) && h ? [f.name, olderThanHost(follow(f.name, all)!, h), h] as const : undefined)).find((x) => x?.[1]);
      if (older) {
        refused.set(p.key, `${describeNeed(u)}, but its ${older[0]} is older than this machine's ${older[2]!.path} (it lacks ${older[1]}): not installed, it would shadow the newer one`);
        continue;
      }
      installed.add(p.key);
      out.set(p.key, { install: true, why: describeNeed(u) });
      // The package that holds the file a link points at comes too (_openmp_mutex's libgomp.so.1 -> libgomp's).
      const target = filesOf(p).get(u.library)?.linkTo;
      const holder = target ? packages.find((x) => !installed.has(x.key) && filesOf(x).get(target)?.elf) : undefined;
      if (holder) {
        installed.add(holder.key);
        out.set(holder.key, { install: true, why: `holds ${target}, which ${p.label}'s ${u.library} links to` });
      }
      changed = true;
    }
    for (const p of packages.filter((x) => !installed.has(x.key) && !x.libraries!.some((f) => f.elf || f.linkTo))) {
      const by = packages.find((q) => installed.has(q.key) && q.depends.some((d) => d.split(/\s+/)[0] === p.name));
      if (!by) continue;
      installed.add(p.key);
      out.set(p.key, { install: true, why: `needed by ${by.label}` });
      changed = true;
    }
  }
  for (const p of packages) if (!out.has(p.key)) out.set(p.key, { install: false, why: refused.get(p.key) ?? 'satisfied by the host' });
  return out;
}

// ---- reading the archives and the host ---------------------------------------------------------------------------

/** The shared libraries of an archive, read from the file without unpacking it anywhere. */
export async function librariesOf(archive: PlannedArchive, file: string): Promise<LibraryFile[]> {
  const out: LibraryFile[] = [];
  await readArchive(archive.format, file, async (entry, body) => {
    const name = path.posix.basename(entry.path);
    if (!SHARED_LIBRARY.test(name) || (entry.type !== 'file' && entry.type !== 'symlink')) {
      body?.resume();
      return;
    }
    if (entry.type === 'symlink') {
      out.push({ name, linkTo: path.posix.basename(entry.linkTarget ?? '') });
      return;
    }
    // Into one buffer of the member's stated size (the archive readers hold members to it): no second copy. A member
    // larger than any shared library may be is not read.
    if (entry.size > LIBRARY_FILE.max) {
      body?.resume();
      out.push({ name, elf: undefined });
      return;
    }
    const bytes = Buffer.allocUnsafe(entry.size);
    let at = 0;
    for await (const c of body!) at += (c as Buffer).copy(bytes, at);
    out.push({ name, elf: readElfNeeds(bytes.subarray(0, at)) });
  });
  return out;
}

/**
 * This machine's copy of each library as the dynamic linker finds it for a program started without the env files
 * (the caller's LD_LIBRARY_PATH, ld.so.cache, the default directories), never one inside `prefix` itself.
 */
export function hostLibraries(deps: Deps, ldcache: LdconfigEntry[], prefix: string): (lib: string) => Promise<HostLibrary | undefined> {
  const seen = new Map<string, Promise<HostLibrary | undefined>>();
  const inside = (p: string) => p === prefix || isInside(prefix, p);
  return (lib) => {
    let p = seen.get(lib);
    if (!p) {
      p = (async () => {
        for (const c of nodeLayout(deps.platform).librarySearch(lib, deps.env, ldcache)) {
          if (inside(c.path)) continue;
          const real = await realpath(c.path).catch(() => undefined);
          if (!real || inside(real)) continue;
          const read = await readSafelyWith(real, LIBRARY_FILE, readElfTables);
          const elf = 'value' in read ? readElfNeeds(read.value) : undefined;
          if (elf) return { path: c.path, defs: elf.versionDefs };
        }
        return undefined;
      })();
      seen.set(lib, p);
    }
    return p;
  };
}

// ---- the plan ------------------------------------------------------------------------------------------------------

const keyOf = (a: PlannedArchive): string => a.sha256;
const pending = (a: PlannedArchive): boolean => !!a.runtime && a.runtime.install === undefined;

/** Whether a plan's runtime packages are decided from this machine's libraries (else all come along, unread). */
export function readsHostLibraries(plan: Pick<InstallPlan, 'host' | 'platform'>): boolean {
  return plan.host.native && layoutFor(plan.platform).decidesRuntimeLibraries;
}

/** Whether a plan still has runtime packages to decide. */
export function hasUndecidedRuntime(plan: Pick<InstallPlan, 'components'>): boolean {
  return plan.components.some((c) => c.archives.some(pending));
}

/** The archives a decision reads first: every archive but the undecided runtime ones. */
export function componentArchives(plan: Pick<InstallPlan, 'components'>): PlannedArchive[] {
  return plan.components.filter((c) => c.status === 'planned').flatMap((c) => c.archives.filter((a) => !pending(a)));
}

export function runtimeArchives(plan: Pick<InstallPlan, 'components'>): PlannedArchive[] {
  return plan.components.filter((c) => c.status === 'planned').flatMap((c) => c.archives.filter(pending));
}

/** Where an archive's verified file is, when it is there. */
export type ArchiveFile = (a: PlannedArchive) => Promise<string | undefined>;

/** The shared libraries of an archive; undefined when they are not at hand (its file is not in the cache). */
export type ArchiveLibraries = (a: PlannedArchive) => Promise<LibraryFile[] | undefined>;

/** Each archive's libraries, read from its file where `fileOf` has one. */
export function fromArchiveFiles(fileOf: ArchiveFile): ArchiveLibraries {
  return async (a) => {
    const file = await fileOf(a);
    return file === undefined ? undefined : librariesOf(a, file);
  };
}

/**
 * The shared libraries among the members an archive put in a tree, read from there: only each library's tables
 * (readElfTables), and nothing decompressed again.
 */
export async function librariesInTree(members: readonly StagedMember[]): Promise<LibraryFile[]> {
  const libraries = members.filter((m) => SHARED_LIBRARY.test(path.basename(m.file)));
  return Promise.all(
    libraries.map(async (m): Promise<LibraryFile> => {
      const name = path.basename(m.file);
      if (m.linkTo !== undefined) return { name, linkTo: path.posix.basename(m.linkTo) };
      const read = await readSafelyWith(m.file, LIBRARY_FILE, readElfTables);
      return { name, elf: 'value' in read ? readElfNeeds(read.value) : undefined };
    }),
  );
}

/**
 * Decides every undecided runtime package of `plan` from the binaries of the other archives and this machine's
 * libraries. `libraries` gives an archive's libraries (setup: from the tree it unpacked them into, or from the file;
 * `plan`: from the cache); `fetchRuntime` brings the runtime archives when a need is unmet (setup fetches them;
 * `plan` passes none and leaves them undecided). Returns the plan with each runtime package either kept with why, or
 * moved to the component's `leftToHost` with why; the plan as it was when an archive it needs is missing.
 */
export async function settleRuntime(
  plan: InstallPlan,
  deps: Deps,
  ldcache: LdconfigEntry[],
  libraries: ArchiveLibraries,
  fetchRuntime?: () => Promise<void>,
): Promise<InstallPlan> {
  if (!hasUndecidedRuntime(plan)) return plan;
  // Another machine's libraries cannot be read from here: its runtime packages come along, as conda would install them.
  if (!readsHostLibraries(plan)) {
    return withDecisions(plan, () => ({ install: true, why: 'planned for another machine, whose libraries cannot be read from here' }));
  }
  const binaries: { by: string; elf: ElfNeeds }[] = [];
  const treeFiles: string[] = [];
  for (const a of componentArchives(plan)) {
    const files = await libraries(a);
    if (!files) return plan;
    for (const f of files) {
      treeFiles.push(f.name);
      if (f.elf) binaries.push({ by: `${a.package} ${a.version}: ${f.name}`, elf: f.elf });
    }
  }
  const hostLib = hostLibraries(deps, ldcache, path.resolve(plan.prefix));
  // The host's copies are looked up once, before the pure rule asks synchronously.
  const wanted = new Set<string>();
  const read = async (packages: RuntimePackage[]): Promise<Map<string, HostLibrary | undefined>> => {
    for (const b of binaries) for (const n of b.elf.needed) wanted.add(n);
    for (const p of packages) for (const f of p.libraries ?? []) {
      wanted.add(f.name);
      for (const n of f.elf?.needed ?? []) wanted.add(n);
    }
    return new Map(await Promise.all([...wanted].map(async (n) => [n, await hostLib(n)] as const)));
  };
  const runtime = runtimeArchives(plan);
  const packages: RuntimePackage[] = runtime.map((a) => ({ key: keyOf(a), label: `${a.package} ${a.version}`, name: a.package, depends: a.depends ?? [] }));
  let hosts = await read(packages);
  let decisions = decideRuntime(binaries, packages, (l) => hosts.get(l), treeFiles);
  if (!decisions) {
    if (fetchRuntime) await fetchRuntime();
    for (const [i, a] of runtime.entries()) {
      const files = await libraries(a);
      if (!files) return plan;
      packages[i]!.libraries = files;
    }
    hosts = await read(packages);
    decisions = decideRuntime(binaries, packages, (l) => hosts.get(l), treeFiles)!;
  }
  const decided = decisions;
  return withDecisions(plan, (a) => decided.get(keyOf(a))!);
}

/**
 * The plan with the decisions a receipt recorded for these very archives (its recorded plan): what a re-run compares
 * with the prefix before it reads any archive. None when a runtime archive of the plan has no recorded decision.
 */
export function withRecordedRuntime(plan: InstallPlan, recorded: Pick<LockedPlatform, 'components'> | undefined): InstallPlan | undefined {
  if (!hasUndecidedRuntime(plan)) return plan;
  const known = new Map<string, RuntimeDecision>();
  for (const c of recorded?.components ?? []) {
    for (const a of [...c.archives, ...(c.leftToHost ?? [])]) if (a.runtime?.install !== undefined) known.set(keyOf(a), { install: a.runtime.install, why: a.runtime.why ?? '' });
  }
  if (!runtimeArchives(plan).every((a) => known.has(keyOf(a)))) return undefined;
  return withDecisions(plan, (a) => known.get(keyOf(a))!);
}

/**
 * The plan with each undecided runtime package kept (installed) or moved to its component's `leftToHost`, with why.
 * A runtime package two components need is installed once, with the first; the other says so.
 */
function withDecisions(plan: InstallPlan, decide: (a: PlannedArchive) => RuntimeDecision): InstallPlan {
  const installedWith = new Map<string, string>();
  const components = plan.components.map((c): PlannedComponent => {
    if (!c.archives.some(pending)) return c;
    const archives: PlannedArchive[] = [];
    const left: PlannedArchive[] = [...(c.leftToHost ?? [])];
    const notes = [...c.notes];
    for (const a of c.archives) {
      const d = pending(a) ? decide(a) : undefined;
      const first = d?.install ? installedWith.get(keyOf(a)) : undefined;
      if (!d) archives.push(a);
      else if (first) notes.push(`runtime library ${a.package} ${a.version}: installed with ${first}`);
      else (d.install ? archives : left).push({ ...a, runtime: { install: d.install, why: d.why } });
      if (d?.install && !first) installedWith.set(keyOf(a), c.name);
    }
    return { ...c, archives, notes, ...(left.length ? { leftToHost: left } : {}) };
  });
  return { ...plan, components, planKey: planKeyOf(plan.platform, components) };
}

