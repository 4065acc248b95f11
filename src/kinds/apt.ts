// The apt source kind: Debian/Ubuntu archives through the machine's own apt, versions and SHA256 from apt-cache, and
// `apt:` archives downloaded with apt's own fetcher (its mirrors, methods and proxy) into the verified cache.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { hashMismatch, sha256File, type CachedFile, type DownloadCache } from '../cache/store.js';
import { indexCacheDir } from '../cache/index-cache.js';
import { escapeControls, fieldsWithoutControls } from '../base/control-chars.js';
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import { isDebianLike } from '../platform/linux.js';
import { layoutFor } from '../platform/index.js';
import type { PlannedArchive } from '../records/archive.js';
import { isInstalled, readDpkgStatus } from '../machine/dpkg-db.js';
import { parseRelationGroup, type AptRelation } from '../formats/deb.js';
import { checkSkip, isStrArr, skipMap } from './closure.js';
import { NotAvailable, type ClosureResult, type Kind, type Resolution, type SkippedPackage, type SourceBase, type SourceContext } from './kind.js';

export interface AptSourceSpec extends SourceBase {
  kind: 'apt';
  packages: string[];
}

/** The URL scheme of an archive apt-get downloads: `apt:<package>=<version>`. */
const SCHEME = 'apt:';
import { inRange } from '../versions/range.js';
import { compareDebian, debianUpstream, meetsAll, unmetText } from '../versions/order.js';

export interface AptRecord {
  package: string;
  version: string;
  architecture?: string;
  filename?: string;
  sha256?: string;
  size?: number;
  /** Pre-Depends and Depends, as the fields write them (`libigc1 (>= 1.0.12504.6)`, `a | b`). */
  depends?: string[];
  provides?: string[];
}

const splitList = (field: string | undefined): string[] => (field ?? '').split(',').map((x) => x.trim()).filter(Boolean);

/** `libfoo:any (>= 1.2)` -> `libfoo`: the package name without the architecture qualifier or the relation. */
const relationName = (text: string): string => text.trim().split(/[\s(]/)[0]!.replace(/:.*$/, '');

/** Whether a package's version meets a relation, in dpkg's own order. */
export function meetsRelation(version: string, rel: AptRelation): boolean {
  if (!rel.op || !rel.version) return true;
  const d = compareDebian(version, rel.version);
  return rel.op === '<<' ? d < 0 : rel.op === '<=' ? d <= 0 : rel.op === '=' ? d === 0 : rel.op === '>=' ? d >= 0 : d > 0;
}

export const relationText = (rel: AptRelation): string => (rel.op ? `${rel.name} (${rel.op} ${rel.version})` : rel.name);

/** What apt-cache shows is read from: named as the document when it hands out a name that cannot be printed. */
const APT_LISTS = "apt's package lists (apt-cache show)";

/** Parses `apt-cache show` output (RFC 822 stanzas); continuation lines are ignored. */
export function parseAptCacheShow(text: string): AptRecord[] {
  const out: AptRecord[] = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const f: Record<string, string> = {};
    for (const line of stanza.split('\n')) {
      const m = /^([A-Za-z0-9-]+):\s*(.*)$/.exec(line);
      if (m) f[m[1]!.toLowerCase()] = m[2]!.trim();
    }
    if (!f.package || !f.version) continue;
    fieldsWithoutControls({ package: f.package, version: f.version, architecture: f.architecture, filename: f.filename, depends: f.depends, 'pre-depends': f['pre-depends'], provides: f.provides }, `package "${escapeControls(f.package)}"`, APT_LISTS);
    out.push({
      package: f.package,
      version: f.version,
      architecture: f.architecture,
      filename: f.filename,
      sha256: f.sha256,
      size: f.size ? Number(f.size) : undefined,
      ...((f['pre-depends'] || f.depends) && { depends: [f['pre-depends'], f.depends].filter(Boolean).flatMap(splitList) }),
      ...(f.provides && { provides: splitList(f.provides).map((p) => relationName(p)) }),
    });
  }
  return out;
}

/** What `apt-cache policy` says of a name. */
export interface AptPolicy {
  /** The version apt would install (after pins and priorities), or null where it has none (a purely virtual package). */
  candidate: string | null;
  /**
   * Each listed version's package indexes, in apt's order and as apt describes them
   * (`http://deb.debian.org/debian bookworm/main amd64 Packages`); dpkg's status file is not one.
   */
  origins: Map<string, string[]>;
}

/**
 * Pure: what `apt-cache policy` output says of each name (its first stanza; a foreign architecture's follows it): the
 * candidate, and where each version of the table comes from. Read from apt's untranslated output (LC_ALL=C).
 */
export function parseAptCachePolicy(text: string): Map<string, AptPolicy> {
  const out = new Map<string, AptPolicy>();
  let at: AptPolicy | undefined;
  let origins: string[] | undefined;
  for (const line of text.split('\n')) {
    const head = /^([a-z0-9][a-z0-9+.-]*)(?::[a-z0-9-]+)?:\s*$/.exec(line);
    if (head) {
      at = out.has(head[1]!) ? undefined : { candidate: null, origins: new Map() };
      if (at) out.set(head[1]!, at);
      origins = undefined;
      continue;
    }
    if (!at) continue;
    const candidate = /^\s+Candidate:\s*(\S+)\s*$/.exec(line)?.[1];
    // A version line is ` *** 2.36-9 500` (installed) or `     2.36-9 500`; its indexes follow, further in.
    const version = /^(?: \*\*\*| {4}) (\S+) -?\d+(?:\s.*)?$/.exec(line)?.[1];
    const origin = /^ {6,}-?\d+ (\S.*?)\s*$/.exec(line)?.[1];
    if (candidate) at.candidate = candidate === '(none)' ? null : candidate;
    else if (version) at.origins.set(version, (origins = []));
    else if (origin && origins && !origin.startsWith('/')) origins.push(origin);
  }
  return out;
}

/** The host's C library package: never added to a closure (a prefix cannot bring its own glibc). */
const HOST_LIBC = 'libc6';

/** Where apt's lists put an archive: its Filename, under the repository of any of its package indexes (apt's order). */
interface Placed {
  filename: string;
  origins: string[];
}

/** What a run's apt work keeps, by machine seam. */
interface AptSeam {
  /** apt's configuration, asked once: whether the system's binary cache is used, and the architectures. */
  config?: Promise<{ systemCache: boolean; architectures: string[] }>;
  /** The first apt-cache start: the one that builds the binary cache when it is missing or stale. */
  firstStart?: Promise<unknown>;
  /** Where apt-cache placed each archive it showed, by sha256: the download finds it without asking apt again. */
  placed: Map<string, Placed>;
}

const seams = new WeakMap<Deps, AptSeam>();

function seamOf(deps: Deps): AptSeam {
  let seam = seams.get(deps);
  if (!seam) seams.set(deps, (seam = { placed: new Map() }));
  return seam;
}

/**
 * Whether apt keeps a binary cache of its own that this process may use and write (apt then keeps it current): apt's
 * configuration names a file, and the file, or where it would be made, can be written.
 */
async function sharesSystemCache(deps: Deps): Promise<boolean> {
  const r = await deps.exec('apt-config', ['shell', 'P', 'Dir::Cache::pkgcache/f'], { env: deps.env, timeoutMs: 10_000 });
  const file = r.exitCode === 0 ? /^P='([^']+)'$/m.exec(r.stdout)?.[1] : undefined;
  if (!file || !path.isAbsolute(file)) return false;
  const why = await deps.accessRW(file);
  return why === undefined || (why === 'ENOENT' && (await deps.accessRW(path.dirname(file))) === undefined);
}

/**
 * apt's options for a run: the architectures it works with (aptArchitectures), and where its binary cache is. Each
 * start of apt-cache or apt-get needs apt's binary cache (`pkgcache.bin`), which it otherwise builds from the package
 * lists: about a second on Debian 12, two on sid. The system's is used where apt keeps
 * one this process may write (apt keeps it current itself, and every apt command shares it); else one kept in the index
 * cache, which apt rebuilds when the lists change. Machines and images that keep none (Docker's Debian images set
 * `Dir::Cache::pkgcache ""`), and users who cannot write the system's, then pay for it once, not on every start.
 */
export async function aptOptions(deps: Deps, cacheDir: string | undefined): Promise<string[]> {
  if (!cacheDir) return [];
  const seam = seamOf(deps);
  seam.config ??= Promise.all([sharesSystemCache(deps), aptArchitectures(deps)]).then(([systemCache, architectures]) => ({ systemCache, architectures }));
  const { systemCache, architectures } = await seam.config;
  const given = architectures.flatMap((a) => ['-o', `APT::Architectures::=${a}`]);
  if (systemCache) return given;
  await fs.mkdir(path.join(indexCacheDir(cacheDir), 'apt'), { recursive: true });
  return [...given, '-o', `Dir::Cache::pkgcache=${path.join(indexCacheDir(cacheDir), 'apt', 'pkgcache.bin')}`, '-o', 'Dir::Cache::srcpkgcache='];
}

/**
 * The architectures apt works with, as apt-config gives them (APT::Architectures as configured, else the native one and
 * dpkg's foreign ones), to be handed to every apt-cache and apt-get start: one left to find them itself asks dpkg two or
 * three times (20 dpkg starts in a plan of the driver set). None when apt-config cannot say: apt then asks dpkg.
 */
async function aptArchitectures(deps: Deps): Promise<string[]> {
  const r = await deps.exec('apt-config', ['dump', '--format', '%f=%v%n', 'APT::Architectures'], { env: deps.env, timeoutMs: 10_000 });
  if (r.exitCode !== 0) return [];
  return [...r.stdout.matchAll(/^APT::Architectures::=([a-z0-9-]+)$/gm)].map((m) => m[1]!);
}

/**
 * One start of apt-cache, untranslated. The first of a run goes alone and the rest wait for it: starts side by side
 * would each build a missing binary cache (a second of CPU each on Debian 12) where one builds it for all.
 */
async function aptCache(deps: Deps, cacheDir: string | undefined, args: string[]) {
  const options = await aptOptions(deps, cacheDir);
  const seam = seamOf(deps);
  const first = seam.firstStart;
  const start = (async () => {
    await first?.catch(() => undefined);
    return deps.exec('apt-cache', [...options, ...args], { env: { ...deps.env, LC_ALL: 'C' }, timeoutMs: 30_000 });
  })();
  seam.firstStart ??= start;
  return start;
}

/** What apt-cache showed of each name asked: its record, or null (unknown to apt, or purely virtual). */
type Known = Map<string, AptRecord | null>;

/**
 * The record of the version apt would install of each name, from two apt-cache starts side by side: `policy` for the
 * candidate version, `show` for every version's record. Both read apt's binary cache as it is; `show --no-all-versions`
 * and `depends` first build apt's whole dependency cache (300 ms of a start's 330 on Debian 12 and on sid).
 */
async function candidates(names: readonly string[], deps: Deps, cacheDir: string | undefined): Promise<Known> {
  const [policy, show] = await Promise.all([aptCache(deps, cacheDir, ['policy', ...names]), aptCache(deps, cacheDir, ['show', ...names])]);
  const failed = policy.failedToStart ?? show.failedToStart;
  if (failed) throw new NotAvailable(`apt-cache cannot run: ${failed}`);
  const chosen = parseAptCachePolicy(policy.stdout);
  const known: Known = new Map(names.map((n) => [n, null]));
  const { placed } = seamOf(deps);
  for (const rec of parseAptCacheShow(show.stdout)) {
    if (known.get(rec.package) === null && chosen.get(rec.package)?.candidate === rec.version) known.set(rec.package, rec);
    const origins = chosen.get(rec.package)?.origins.get(rec.version);
    if (rec.sha256 && rec.filename && origins?.length) placed.set(rec.sha256, { filename: rec.filename, origins });
  }
  return known;
}

/**
 * The records of a run's apt packages, asked for once however many components, closures and re-plans want them: by
 * run (SourceContext.runNames) or, without one, by the machine's seam.
 */
const asked = new WeakMap<object, Map<string, Promise<Known>>>();

function recordsFor(spec: AptSourceSpec, ctx: SourceContext): Promise<Known> {
  const run = ctx.runNames?.get('apt');
  const names = run && spec.packages.every((p) => run.includes(p)) ? run : spec.packages;
  const owner = ctx.runNames ?? ctx.deps;
  const made = asked.get(owner) ?? new Map<string, Promise<Known>>();
  asked.set(owner, made);
  const key = names.join('\n');
  let records = made.get(key);
  if (!records) {
    records = candidates(names, ctx.deps, ctx.gateway.cacheDir);
    made.set(key, records);
  }
  return records;
}

/** `1.8.12-1` -> `1.8.12`: the upstream version without epoch or Debian revision. */
export async function resolveApt(spec: AptSourceSpec, ctx: SourceContext): Promise<Resolution> {
  if (!ctx.host.native || !layoutFor(ctx.host.platform).systemPackages || !isDebianLike(ctx.host.distro)) {
    throw new NotAvailable('apt is only used on a Debian or Ubuntu machine installing for itself');
  }
  const archives: PlannedArchive[] = [];
  const known = await recordsFor(spec, ctx);
  for (const pkg of spec.packages) {
    const rec = known.get(pkg);
    if (!rec) throw new NotAvailable(`this machine's apt lists no package ${pkg}: not in this release, or its package lists are older than the package (apt-get update)`);
    if (!rec.sha256) throw new NotAvailable(`apt lists ${pkg} without a SHA256`);
    if (!inRange('debian', rec.version, spec.versions)) {
      throw new NotAvailable(`apt has ${pkg} ${rec.version}, outside ${spec.versions}`);
    }
    if (!meetsAll(rec.version, ctx.constraints ?? [], 'debian')) {
      throw new NotAvailable(`apt has ${pkg} ${rec.version}, which does not meet ${unmetText(rec.version, ctx.constraints!, 'debian')}`);
    }
    archives.push(archiveOf(rec, spec));
  }
  const distro = ctx.host.distro!;
  return {
    source: 'apt',
    origin: distro.prettyName ?? distro.id,
    version: debianUpstream(archives[0]!.version),
    archives,
  };
}

/** The archive a plan names for an apt record. */
function archiveOf(rec: AptRecord, spec: AptSourceSpec, requiredBy?: string[]): PlannedArchive {
  return {
    package: rec.package,
    version: rec.version,
    filename: rec.filename ? path.posix.basename(rec.filename) : `${rec.package}_${rec.version}.deb`,
    url: `${SCHEME}${rec.package}=${rec.version}`,
    sha256: rec.sha256!,
    size: rec.size,
    format: 'deb',
    map: spec.map,
    ...(requiredBy && { requiredBy }),
    ...(rec.depends && { depends: rec.depends }),
  };
}

/** What stands for a name: a package of that name, or one that provides it (a virtual package has no version). */
interface Candidate {
  name: string;
  version: string;
  provides?: string[];
}

function satisfiedBy(c: Candidate, rel: AptRelation): boolean {
  if (c.name === rel.name) return meetsRelation(c.version, rel);
  return !rel.op && !!c.provides?.includes(rel.name);
}

/**
 * The packages' own Depends (and Pre-Depends), followed through apt-cache: a relation the machine's installed packages
 * meet (dpkg's status, with what they provide) stays the machine's; the rest is added, first alternative apt has that
 * meets it, and followed in turn: one round of apt-cache starts per level, for the names nothing else settles (a
 * level the machine meets whole costs no start).
 */
async function aptClosure(spec: AptSourceSpec, r: Resolution, ctx: SourceContext): Promise<ClosureResult> {
  const status = await readDpkgStatus(ctx.deps);
  if (!status) return { archives: r.archives, notes: { runtime: [], skipped: ['the dependencies were not followed: dpkg\'s status file cannot be read'] } };
  const installed: Candidate[] = status.filter(isInstalled).flatMap((p) => (p.version ? [{ name: p.name, version: p.version, provides: p.provides }] : []));
  const skip = skipMap((spec as { skip?: SkippedPackage[] }).skip);
  const archives = [...r.archives];
  const inClosure: Candidate[] = r.archives.map((a) => ({ name: a.package, version: a.version }));
  const known: Known = new Map(await recordsFor(spec, ctx));
  const skipped: string[] = [];
  type Open = { by: string; group: AptRelation[] };
  let open: Open[] = r.archives.flatMap((a) => (a.depends ?? []).map((d) => ({ by: `${a.package} ${a.version}`, group: parseRelationGroup(d) })));
  const recordsOf = (names: string[]) => [...known.values()].filter((x): x is AptRecord => !!x && names.includes(x.package));
  const met = (o: Open) => o.group.some((rel) => installed.some((c) => satisfiedBy(c, rel)) || inClosure.some((c) => satisfiedBy(c, rel)));
  const libcOf = (o: Open) => o.group.find((rel) => rel.name === HOST_LIBC && rel.op === '>=');
  const skipOf = (o: Open) => o.group.map((rel) => skip.get(rel.name)).find(Boolean);
  for (let round = 0; open.length; round++) {
    // Only a relation that neither the machine, the closure, the host's C library nor a skip settles needs apt's records.
    const asked = open.filter((o) => !met(o) && !libcOf(o) && !skipOf(o));
    const unknown = [...new Set(asked.flatMap((o) => o.group.map((g) => g.name)))].filter((n) => !known.has(n));
    // A name apt has no candidate of is unknown to it or purely virtual (what provides it is found by its own name).
    if (unknown.length) for (const [n, rec] of await candidates(unknown, ctx.deps, ctx.gateway.cacheDir)) known.set(n, rec);
    const next: Open[] = [];
    let progress = false;
    for (const o of open) {
      if (met(o)) {
        progress = true;
        continue;
      }
      // The C library is the host's: a package that needs a newer one does not load here, and none is put in a prefix.
      const libc = libcOf(o);
      if (libc) {
        const need = debianUpstream(libc.version!);
        if (ctx.host.glibc && compareDebian(ctx.host.glibc, need) >= 0) {
          progress = true;
          continue;
        }
        throw new NotAvailable(`${o.by} needs glibc ${need}; this host has glibc ${ctx.host.glibc ?? 'unknown'}`);
      }
      const skipWhy = skipOf(o);
      if (skipWhy) {
        skipped.push(`${o.group.map(relationText).join(' | ')}: ${skipWhy}`);
        progress = true;
        continue;
      }
      const pick = o.group.flatMap((rel) => recordsOf([rel.name]).filter((rec) => meetsRelation(rec.version, rel) && rec.sha256))[0];
      if (pick) {
        const why = `${o.by}: ${o.group.map(relationText).join(' | ')}`;
        const same = archives.find((a) => a.package === pick.package);
        if (same) same.requiredBy = [...(same.requiredBy ?? []), why];
        else {
          archives.push(archiveOf(pick, spec, [why]));
          inClosure.push({ name: pick.package, version: pick.version, provides: pick.provides });
          next.push(...(pick.depends ?? []).map((d) => ({ by: `${pick.package} ${pick.version}`, group: parseRelationGroup(d) })));
        }
        progress = true;
        continue;
      }
      next.push(o);
    }
    if (!progress || round > 64) {
      const o = next[0]!;
      const have = o.group.map((rel) => {
        const rec = known.get(rel.name);
        return rec ? `apt has ${rel.name} ${rec.version}` : `apt has no package ${rel.name}`;
      });
      throw new NotAvailable(`${o.by} needs ${o.group.map(relationText).join(' | ')}, which this machine does not have installed; ${have.join(', ')}`);
    }
    open = next;
  }
  return { archives, notes: { runtime: [], skipped } };
}

/** Downloads an `apt:` archive with apt-get into the cache, then checks it against the SHA256 apt-cache listed. */
export async function fetchApt(archive: PlannedArchive, cache: DownloadCache, deps: Deps): Promise<CachedFile> {
  return (await fetchAptMany([archive], cache, deps)).get(archive.sha256)!;
}

/** apt's own fetcher for given URIs; it ships with apt, outside PATH. */
const APT_HELPER = '/usr/lib/apt/apt-helper';

/**
 * The URI apt would fetch each archive from, where this process's apt-cache answers place every one: the repository of
 * the first of the version's package indexes that `apt-get indextargets` names, joined with the record's Filename
 * (each part %-quoted, as apt quotes it). Undefined when any is not placed.
 */
async function archiveUris(archives: readonly PlannedArchive[], deps: Deps, cacheDir: string): Promise<string[] | undefined> {
  const { placed } = seamOf(deps);
  const where = archives.map((a) => placed.get(a.sha256));
  if (!where.every((w): w is Placed => w !== undefined)) return undefined;
  const options = await aptOptions(deps, cacheDir);
  const r = await deps.exec('apt-get', [...options, 'indextargets', '--format', '$(DESCRIPTION)\t$(REPO_URI)'], { env: { ...deps.env, LC_ALL: 'C' }, timeoutMs: 30_000 });
  if (r.exitCode !== 0) return undefined;
  const repos = new Map<string, string>();
  for (const [description, repo] of r.stdout.split('\n').map((l) => l.split('\t'))) {
    if (description && repo && !repos.has(description)) repos.set(description, repo.endsWith('/') ? repo : `${repo}/`);
  }
  const uris = where.map((w) => {
    const repo = w.origins.map((o) => repos.get(o)).find(Boolean);
    return repo && repo + w.filename.split('/').map(encodeURIComponent).join('/');
  });
  return uris.every(Boolean) ? (uris as string[]) : undefined;
}

/**
 * Downloads archives into `work` with apt's own fetcher and configuration (its methods, proxies, credentials and
 * retries), `apt-helper download-file`, each checked by apt against its SHA256 and copied, not linked, from a file:
 * repository. apt-get download would first work out the candidate of every package the machine knows (0.3 s of CPU
 * on Debian 12) to find URIs this process already has. Whether it brought every one as a plain file; when not, `work`
 * is left empty.
 */
async function fetchWithHelper(archives: readonly PlannedArchive[], uris: readonly string[], work: string, deps: Deps, cacheDir: string): Promise<boolean> {
  const targets = archives.map((a, i) => path.join(work, `${a.package.replace(/[^A-Za-z0-9+.-]/g, '_')}_${i}.deb`));
  const args = ['-q', '-o', 'APT::Sandbox::User=root', '-o', 'Acquire::Source-Symlinks=false', ...(await aptOptions(deps, cacheDir)), 'download-file'];
  const r = await deps.exec(APT_HELPER, [...args, ...archives.flatMap((a, i) => [uris[i]!, targets[i]!, `SHA256:${a.sha256}`])], { cwd: work, timeoutMs: 300_000 });
  const files = await Promise.all(targets.map((t) => fs.lstat(t).then((st) => st.isFile(), () => false)));
  if (r.exitCode === 0 && files.every(Boolean)) return true;
  for (const name of await fs.readdir(work)) await fs.rm(path.join(work, name), { recursive: true, force: true });
  return false;
}

/**
 * Downloads every `apt:` archive the cache lacks in one start of apt: apt-helper where this process's plan placed them
 * all (fetchWithHelper), else `apt-get download` of each package=version (one read of apt's lists, its own parallel
 * downloads). Then each file is checked against the SHA256 apt-cache listed; the answer maps each archive's sha256 to
 * its cached file. A package apt could not bring, or brought with another hash, is named.
 */
export async function fetchAptMany(archives: readonly PlannedArchive[], cache: DownloadCache, deps: Deps): Promise<Map<string, CachedFile>> {
  const out = new Map<string, CachedFile>();
  const missing: PlannedArchive[] = [];
  for (const a of archives) {
    if (out.has(a.sha256) || missing.some((m) => m.sha256 === a.sha256)) continue;
    const hit = await cache.lookup(a.sha256);
    if (hit) out.set(a.sha256, hit);
    else missing.push(a);
  }
  if (!missing.length) return out;
  const specs = missing.map((a) => a.url.slice(SCHEME.length));
  const dir = path.dirname(await cache.tempFile(missing[0]!.filename));
  const work = await fs.mkdtemp(path.join(dir, 'apt-'));
  try {
    const uris = await archiveUris(missing, deps, cache.root);
    const helped = uris !== undefined && (await fetchWithHelper(missing, uris, work, deps, cache.root));
    const r = helped
      ? undefined
      : await deps.exec('apt-get', ['download', '-q', '-o', 'APT::Sandbox::User=root', ...(await aptOptions(deps, cache.root)), ...specs], { cwd: work, timeoutMs: 300_000 });
    const files = (await fs.readdir(work)).filter((n) => n.endsWith('.deb'));
    const byHash = new Map<string, string>();
    for (const f of files) byHash.set(await sha256File(path.join(work, f)), f);
    const failed: PlannedArchive[] = [];
    const brought: [PlannedArchive, string][] = [];
    for (const a of missing) {
      const f = byHash.get(a.sha256);
      if (f) {
        brought.push([a, path.join(work, f)]);
        continue;
      }
      // apt-get names the file package_version_arch.deb (an epoch's colon written %3a), apt-helper's here package_N.deb.
      const other = files.find((n) => n.startsWith(`${a.package}_`));
      if (other) throw hashMismatch(a.url, a.sha256, [...byHash].find(([, n]) => n === other)![0]);
      failed.push(a);
    }
    if (failed.length || (r && r.exitCode !== 0)) {
      const unbrought = failed.length ? failed : missing;
      const named = unbrought.filter((a) => r?.stderr.includes(a.package));
      const blamed = named.length ? named : unbrought;
      const what = blamed.map((a) => a.url.slice(SCHEME.length)).join(', ');
      throw new XpuError('NETWORK', `apt-get download ${what} failed${specs.length > 1 ? ` (one call for ${specs.length} packages)` : ''}`, {
        details: { url: blamed[0]!.url, ...(blamed.length > 1 ? { urls: blamed.map((a) => a.url) } : {}), stderr: r?.stderr || r?.failedToStart },
        hints: ['check that apt can reach its archive (apt-get update), or choose another source with --source'],
      });
    }
    for (const [a, file] of brought) out.set(a.sha256, await cache.adopt(file, a.sha256, (await fs.stat(file)).size));
    return out;
  } finally {
    await fs.rm(work, { recursive: true, force: true });
  }
}

export const apt: Kind<AptSourceSpec> = {
  name: 'apt',
  ordering: 'debian',
  validate(s, bad) {
    if (!isStrArr(s.packages)) throw bad('"packages" must be a non-empty list of names');
    checkSkip((s as { skip?: unknown }).skip, bad);
  },
  resolve: resolveApt,
  closure: aptClosure,
  runNames: (spec) => spec.packages,
  describe: () => 'apt',
  // apt reads the machine's own sources.list through apt-get, not an index of ours.
  indexes: () => [],
  recordedIndexes: () => [],
  fetcher: { scheme: SCHEME, fetch: fetchApt, fetchMany: fetchAptMany },
};
