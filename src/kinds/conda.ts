// The conda source kind: channels' platform subdir and noarch read through the gateway (repodata.ts is the format),
// best builds chosen, and the dependency closure over depends/constrains with strict channel priority.
import { isUnreachable } from '../base/errors.js';
import { formatOf } from '../formats/index.js';
import { layoutFor } from '../platform/index.js';
import type { PlannedArchive } from '../records/archive.js';
import type { Gateway } from '../index/gateway.js';
import { CONDA_RUNTIME_PACKAGES, type CondaCandidate } from '../index/repodata.js';
import { checkVirtual, isVirtual, matchesSpec, parseMatchSpec } from '../versions/match-spec.js';
import { compareConda, meetsAll, unmetText, type Constraint } from '../versions/order.js';
import { inRange } from '../versions/range.js';
import { resolveFromChoice, requirementText, type Candidate, type Provider, type Requirement } from '../versions/resolve.js';
import { archiveWhy, checkSkip, dedupe, isStrArr, older, rootRequirements, skipMap } from './closure.js';
import type { KindIndexes } from '../records/plan.js';
import { indexRoot, NotAvailable, type ClosureNotes, type ClosureResult, type Kind, type Resolution, type SkippedPackage, type SourceBase, type SourceContext } from './kind.js';

export interface CondaSourceSpec extends SourceBase {
  kind: 'conda';
  channels: string[];
  packages: string[];
  /** Dependencies of the packages not to install. */
  skip?: SkippedPackage[];
  /**
   * Dependencies a package needs at the major.minor it was built against (the lower bound of its depends on them),
   * where the depends allow more: compute-runtime checks IGC's interface when it loads it, and conda-forge's
   * `intel-graphics-compiler >=2.40.14,<3.0a0` would take any IGC 2.x.
   */
  sameMinor?: string[];
}

/** The built-against bound of a depends range (`>=2.40.14,<3.0a0`) as a requirement of its major.minor: `<2.41.0a0`. */
export function sameMinorBound(range: string): string | undefined {
  const m = />=\s*(\d+)\.(\d+)/.exec(range);
  return m ? `<${m[1]}.${Number(m[2]) + 1}.0a0` : undefined;
}

/**
 * Runtime libraries a conda package depends on that are left to this machine: Windows' C runtime (its decision from
 * PE imports is not made yet). The Linux ones (libstdcxx, libgcc, ...) are resolved with the closure and installed
 * only where the binaries need what the host lacks (DECIDED_RUNTIME, plan/runtime-libraries.ts).
 */
export const RUNTIME_LIBRARIES = new Set(['ucrt', 'vc', 'vc14_runtime', 'vs2015_runtime']);

/** The runtime library packages whose install plan/runtime-libraries.ts decides from the binaries' needs (Linux). */
const DECIDED_RUNTIME = new Set(CONDA_RUNTIME_PACKAGES);

/** `level-zero ==1.20.6 h84d6215_0` or `level-zero 1.20.6 h84d6215_0` -> pinned version and build. */
export function parsePin(dep: string): { name: string; version?: string; build?: string } {
  const [name = '', version, build] = dep.trim().split(/\s+/);
  return { name, version: version?.replace(/^==?/, ''), build };
}

export function better(a: CondaCandidate, b: CondaCandidate): number {
  // Higher build number first; at equal builds prefer .conda (smaller, faster to read).
  if (a.build_number !== b.build_number) return b.build_number - a.build_number;
  const ac = a.filename.endsWith('.conda') ? 0 : 1;
  const bc = b.filename.endsWith('.conda') ? 0 : 1;
  if (ac !== bc) return ac - bc;
  return (b.timestamp ?? 0) - (a.timestamp ?? 0);
}

/**
 * Picks one version that every requested package has (highest first, within the range), then per package the best
 * build, honouring exact pins between the requested packages (devel packages pin their runtime's build).
 */
export function selectCondaSet(
  candidates: CondaCandidate[],
  packages: string[],
  range?: string,
  constraints: readonly Constraint[] = [],
): CondaCandidate[] | undefined {
  const byName = new Map<string, CondaCandidate[]>();
  for (const c of candidates) {
    if (!packages.includes(c.name) || !c.sha256) continue;
    if (!byName.has(c.name)) byName.set(c.name, []);
    byName.get(c.name)!.push(c);
  }
  if (packages.some((p) => !byName.has(p))) return undefined;
  const versionSets = packages.map((p) => new Set(byName.get(p)!.map((c) => c.version)));
  const common = [...versionSets[0]!].filter((v) => versionSets.every((s) => s.has(v)) && inRange('conda', v, range) && meetsAll(v, constraints, 'conda'));
  common.sort((a, b) => compareConda(b, a));
  for (const version of common) {
    const chosen = new Map<string, CondaCandidate>();
    for (const p of packages) {
      const list = byName.get(p)!.filter((c) => c.version === version).sort(better);
      chosen.set(p, list[0]!);
    }
    // A pinned build wins over "highest build number" for the pinned package.
    for (const c of [...chosen.values()]) {
      for (const dep of c.depends ?? []) {
        const pin = parsePin(dep);
        if (!chosen.has(pin.name) || !pin.build || pin.version !== version) continue;
        const pinned = byName.get(pin.name)!.filter((x) => x.version === version && x.build === pin.build).sort(better)[0];
        if (pinned) chosen.set(pin.name, pinned);
      }
    }
    return packages.map((p) => chosen.get(p)!);
  }
  return undefined;
}

/** The records of `names` in one channel, the target's subdir and noarch, through the run's gateway: what the dependency closure reads. */
export async function condaRecords(ctx: SourceContext, channel: string, names: string[]): Promise<CondaCandidate[]> {
  const ch = channel.replace(/\/+$/, '');
  const [arch, noarch] = await subdirAndNoarch(ctx.gateway, ch, layoutFor(ctx.host.platform).condaSubdir, names);
  return [...arch, ...noarch];
}

/**
 * The records of `names` in a channel's platform subdir and in its noarch, read at once. When both fail (an
 * unreachable channel), the platform subdir's failure is the one told, whichever came first.
 */
async function subdirAndNoarch(gateway: Gateway, ch: string, subdir: string, names: string[]): Promise<[CondaCandidate[], CondaCandidate[]]> {
  const [arch, noarch] = await Promise.allSettled([gateway.condaRecords(ch, subdir, names), gateway.condaRecords(ch, 'noarch', names, { optional: true })]);
  if (arch.status === 'rejected') throw arch.reason;
  if (noarch.status === 'rejected') throw noarch.reason;
  return [arch.value, noarch.value];
}

/** The channels a run reads for this entry: the named ones (--conda-channel) in place of the manifest's. */
const channelsOf = (spec: CondaSourceSpec, named: KindIndexes): string[] => (named.conda?.length ? named.conda : spec.channels);

export async function resolveConda(spec: CondaSourceSpec, ctx: SourceContext): Promise<Resolution> {
  const channels = channelsOf(spec, ctx.indexes);
  const subdir = layoutFor(ctx.host.platform).condaSubdir;
  const misses: string[] = [];
  let unreachable: unknown;
  for (const channel of channels) {
    const ch = channel.replace(/\/+$/, '');
    let arch: CondaCandidate[];
    let noarch: CondaCandidate[];
    try {
      // Every name the run may ask for goes into the first read, so a channel without shards is scanned once.
      const names = [...new Set([...spec.packages, ...(ctx.runNames?.get(conda.name) ?? [])])];
      [arch, noarch] = await subdirAndNoarch(ctx.gateway, ch, subdir, names);
    } catch (e) {
      // One unreachable channel is not the end: the next channel may answer.
      if (!isUnreachable(e)) throw e;
      unreachable ??= e;
      misses.push(`${ch} unreachable`);
      continue;
    }
    const set = selectCondaSet([...arch, ...noarch], spec.packages, spec.versions, ctx.constraints);
    if (!set) {
      // A record without sha256 is never chosen (its download could not be verified): when those are all there is, say so.
      const unverifiable = [...arch, ...noarch].filter((c) => spec.packages.includes(c.name) && !c.sha256);
      const fitWithThem = unverifiable.length > 0 && selectCondaSet([...arch, ...noarch].map((c) => ({ ...c, sha256: c.sha256 || '-' })), spec.packages, spec.versions, ctx.constraints);
      if (fitWithThem) {
        const more = unverifiable.length > 1 ? ` and ${unverifiable.length - 1} more record${unverifiable.length > 2 ? 's' : ''}` : '';
        misses.push(
          `${ch} (${subdir}) lists ${unverifiable[0]!.filename}${more} without a sha256, so the download could not be verified and it is not used: ask the channel's maintainers to publish sha256 in its repodata, or name another channel with --conda-channel`,
        );
        continue;
      }
      const newest = ctx.constraints?.length ? selectCondaSet([...arch, ...noarch], spec.packages, spec.versions)?.[0]?.version : undefined;
      misses.push(
        newest
          ? `newest ${spec.packages[0]} in ${ch} (${subdir}) is ${newest}, which does not meet ${unmetText(newest, ctx.constraints!, 'conda')}`
          : `${spec.packages.join(' + ')} not found in ${ch} (${subdir})`,
      );
      continue;
    }
    const archives: PlannedArchive[] = set.map((c) => ({
      package: c.name,
      version: c.version,
      build: c.build,
      filename: c.filename,
      url: c.url,
      sha256: c.sha256!,
      size: c.size,
      format: formatOf(c.filename)!,
      map: spec.map,
    }));
    return { source: 'conda', origin: ch, version: set[0]!.version, archives };
  }
  if (unreachable && misses.every((m) => m.endsWith('unreachable'))) throw unreachable;
  throw new NotAvailable(misses.join('; '));
}

// ---- conda ------------------------------------------------------------------------------------------------------

interface CondaPick extends Candidate {
  record?: CondaCandidate;
  /** A runtime library the channel has no fitting record of: this machine's own stands in (and is checked before the swap). */
  hostStandIn?: true;
}

/** A conda channel list as the resolver sees it: strict channel priority (the first channel with a name wins). */
function condaProvider(ctx: SourceContext, channels: string[], skip: Map<string, string>, notes: ClosureNotes, sameMinor: readonly string[] = []): Provider<CondaPick> {
  const host = ctx.host;
  const cache = new Map<string, Promise<CondaPick[]>>();
  // Only a machine installing for itself can leave a runtime library to its own copy: another machine's are not read here.
  const decided = (name: string) => host.native && layoutFor(host.platform).decidesRuntimeLibraries && DECIDED_RUNTIME.has(name);
  const read = (names: string[]): void => {
    const fresh = names.filter((n) => !cache.has(n) && !isVirtual(n));
    if (!fresh.length) return;
    // One read of each channel for every name asked at once (repodata is read whole).
    const all = (async () => {
      const out = new Map<string, CondaPick[]>();
      for (const ch of channels) {
        const records = await condaRecords(ctx, ch, fresh);
        for (const n of fresh) {
          if (out.has(n)) continue;
          const mine = records.filter((r) => r.name === n && r.sha256);
          if (mine.length) out.set(n, mine.sort(betterCondaRecord).map((r) => ({ name: n, version: r.version, build: r.build, record: r })));
        }
      }
      return out;
    })();
    for (const n of fresh) cache.set(n, all.then((m) => m.get(n) ?? []));
  };
  return {
    async candidates(name) {
      if (isVirtual(name)) {
        const v = checkVirtual({ name, version: '' }, host);
        return v.ok ? [{ name, version: name === '__glibc' ? host.glibc ?? '0' : '0' }] : [];
      }
      read([name]);
      const records = await cache.get(name)!;
      return decided(name) ? [...records, { name, version: '0', hostStandIn: true }] : records;
    },
    satisfies(r, c) {
      if (c.hostStandIn) return true;
      if (isVirtual(r.name)) return checkVirtual({ name: r.name, version: r.spec.split(/\s+/)[0] ?? '' }, host).ok;
      const spec = parseMatchSpec(`${r.name} ${r.spec}`);
      return matchesSpec(spec, { name: c.name, version: c.version, build: c.record?.build });
    },
    async dependencies(c) {
      const by = `${c.name} ${c.version}`;
      const out: Requirement[] = [];
      for (const dep of c.record?.depends ?? []) {
        const spec = parseMatchSpec(dep);
        const rest = dep.trim().slice(spec.name.length).trim();
        if (RUNTIME_LIBRARIES.has(spec.name)) {
          notes.runtime.push(`${dep} (needed by ${by})`);
          continue;
        }
        if (skip.has(spec.name)) {
          notes.skipped.push(`${dep} (needed by ${by}): not installed: ${skip.get(spec.name)}`);
          continue;
        }
        out.push({ name: spec.name, spec: rest, by, byName: c.name });
        const bound = sameMinor.includes(spec.name) ? sameMinorBound(rest) : undefined;
        if (bound) out.push({ name: spec.name, spec: bound, by: `${by} (the major.minor it was built against)`, byName: c.name });
      }
      read(out.map((r) => r.name));
      return out;
    },
    constraints(c) {
      const by = `${c.name} ${c.version}`;
      return (c.record?.constrains ?? []).map((dep) => {
        const spec = parseMatchSpec(dep);
        return { name: spec.name, spec: dep.trim().slice(spec.name.length).trim(), by, byName: c.name };
      });
    },
  };
}

/** Newest version first, then conda's preference among builds of one version. */
const betterCondaRecord = (a: CondaCandidate, b: CondaCandidate): number => compareConda(b.version, a.version) || better(a, b);

export async function condaClosure(spec: CondaSourceSpec, r: Resolution, ctx: SourceContext, component: string, pins: Requirement[]): Promise<ClosureResult> {
  const channels = channelsOf(spec, ctx.indexes);
  const notes: ClosureNotes = { runtime: [], skipped: [] };
  const provider = condaProvider(ctx, channels, skipMap(spec.skip), notes, spec.sameMinor);
  // The packages the source chose, first at the very builds it chose.
  const roots = rootRequirements(r, ctx, component, (a) => `==${a.version} ${a.build ?? '*'}`);
  const { solved, left } = await resolveFromChoice(roots.chosen, roots.wider, provider, pins);
  const archives: PlannedArchive[] = [];
  for (const { candidate, requiredBy } of solved.values()) {
    const rec = candidate.record;
    if (candidate.hostStandIn) notes.runtime.push(`${requiredBy.map((q) => `${requirementText(q)} (needed by ${q.by})`).join('; ')}: the channel has none that fits`);
    if (!rec) continue;
    // The very file the source chose, not a twin of it: a .conda and its .tar.bz2 each carry their own depends.
    const root = r.archives.find((a) => a.filename === rec.filename && a.package === rec.name && a.version === rec.version);
    const why = archiveWhy(requiredBy);
    archives.push({
      ...(root ?? {
        package: rec.name,
        version: rec.version,
        build: rec.build,
        filename: rec.filename,
        url: rec.url,
        sha256: rec.sha256!,
        size: rec.size,
        format: formatOf(rec.filename)!,
        map: spec.map,
      }),
      ...(why.length && !root ? { requiredBy: why } : {}),
      ...(rec.depends?.length ? { depends: rec.depends } : {}),
      ...(rec.constrains?.length ? { constrains: rec.constrains } : {}),
      ...(!root && ctx.host.native && DECIDED_RUNTIME.has(rec.name) && layoutFor(ctx.host.platform).decidesRuntimeLibraries ? { runtime: {} } : {}),
    });
  }
  const back = older(r, solved.get(r.archives[0]?.package ?? '')?.candidate.version, left);
  const glibc = back.olderRoot ? await glibcLeft(r, provider, ctx) : undefined;
  return { archives, notes: dedupe(notes), ...back, ...(glibc && { turnedAway: [`${r.version} needs glibc ${glibc}`, `this host has glibc ${ctx.host.glibc ?? 'unknown'}`] }) };
}

/** The glibc the source's own choice declares (`__glibc >=2.38`) when this host's does not meet it: why an older one was taken. */
async function glibcLeft(r: Resolution, provider: Provider<CondaPick>, ctx: SourceContext): Promise<string | undefined> {
  const root = r.archives[0];
  if (!root) return undefined;
  const record = (await provider.candidates(root.package)).find((c) => c.version === root.version && c.build === root.build)?.record;
  const spec = record?.depends?.map(parseMatchSpec).find((d) => d.name === '__glibc');
  if (!spec || checkVirtual(spec, ctx.host).ok) return undefined;
  return /^>=\s*([\d.]+)/.exec(spec.version ?? '')?.[1];
}

export const conda: Kind<CondaSourceSpec> = {
  name: 'conda',
  ordering: 'conda',
  validate(s, bad) {
    if (!isStrArr(s.packages)) throw bad('"packages" must be a non-empty list of names');
    if (!isStrArr(s.channels)) throw bad('conda sources need "channels"');
    checkSkip(s.skip, bad);
    if (s.sameMinor !== undefined && !isStrArr(s.sameMinor)) throw bad('"sameMinor" must be a non-empty list of package names');
  },
  resolve: resolveConda,
  closure: condaClosure,
  describe: (spec, named) => `conda ${channelsOf(spec, named).join(', ')}`,
  indexes: (spec, named) => channelsOf(spec, named).map(indexRoot),
  recordedIndexes: (origin) => origin.split(/,\s*/).filter(Boolean).map(indexRoot),
  runNames: (spec) => spec.packages,
  // A conda source may record several channels, comma-separated.
  optionValues: (origin) => origin.split(/,\s*/),
};
