// A component's packages and everything they depend on (Requires-Dist, conda depends/constrains), resolved from the index they came from.
import { XpuError } from '../errors.js';
import { formatOf } from '../formats/index.js';
import type { Host } from '../host/types.js';
import { layoutFor } from '../host/index.js';
import type { CondaSourceSpec, PypiSourceSpec, SkippedPackage, SourceSpec } from '../manifest/schema.js';
import { httpFor } from '../net/http.js';
import { overLimit } from '../net/config.js';
import { better, condaRecords } from '../sources/conda.js';
import { type CondaCandidate } from '../sources/repodata.js';
import { checkVirtual, isVirtual, matchesSpec, parseMatchSpec } from '../sources/match-spec.js';
import { compareConda } from '../sources/order.js';
import { comparePep440, isPep440PreRelease, loadPep440, pep440Holds, satisfiesPep440 } from '../sources/pep440.js';
import { evaluateMarker, markerEnvFor, parseRequirement, requiresDistOf, type MarkerEnv } from '../sources/pep508.js';
import { gatewayFor } from '../sources/gateway.js';
import { DEFAULT_INDEX_URL, parseWheelFilename, platformTagScore } from '../sources/pypi.js';
import { normalizeName, type IndexFile } from '../sources/simple-index.js';
import type { PlannedArchive, Resolution, SourceContext } from '../sources/types.js';
import { resolveFromChoice, requirementText, type Candidate, type Provider, type Requirement } from './resolve.js';
import { DECIDED_RUNTIME } from './runtime.js';

/**
 * Runtime libraries a conda package depends on that are left to this machine: Windows' C runtime (its decision from
 * PE imports is not made yet). The Linux ones (libstdcxx, libgcc, ...) are resolved with the closure and installed
 * only where the binaries need what the host lacks (DECIDED_RUNTIME, plan/runtime.ts).
 */
export const RUNTIME_LIBRARIES = new Set(['ucrt', 'vc', 'vc14_runtime', 'vs2015_runtime']);

/** What a closure adds to the plan besides its archives. */
export interface ClosureNotes {
  /** Runtime libraries the packages name that the source cannot give, left to the host (`libstdcxx >=13, needed by level-zero 1.20.6`). */
  runtime: string[];
  /** Packages the manifest says not to follow, with its reason. */
  skipped: string[];
}

const archiveWhy = (reqs: Requirement[]): string[] => reqs.filter((r) => r.byName).map((r) => `${r.by}: ${requirementText(r)}`);

/** What a closure says besides its archives and notes: the older version it went back to, and why. */
export interface ClosureResult {
  archives: PlannedArchive[];
  notes: ClosureNotes;
  /** Set when the source's choice could not be completed: the component's version now, and why the newer was left. */
  olderRoot?: { version: string; why: string };
}

/**
 * The root requirements of a component: the packages the source chose, exactly (`chosen`); and, unless a constraint
 * pins the component's version (--require x==v, --match-torch), the same packages within the component's constraints
 * and no newer than chosen (`wider`), for the resolver to go back to when the chosen ones' closure cannot hold.
 */
function rootRequirements(r: Resolution, ctx: SourceContext, component: string, exact: (a: PlannedArchive) => string, name = (n: string) => n) {
  const constraints = ctx.constraints ?? [];
  const chosen = r.archives.map((a): Requirement => ({ name: name(a.package), spec: exact(a), by: component }));
  const pinned = constraints.some((c) => c.op === '==');
  const within = constraints.map((c) => `${c.op}${c.version}`);
  const wider = pinned
    ? undefined
    : r.archives.map((a, i): Requirement => (a.version === r.version ? { ...chosen[i]!, spec: [`<=${a.version}`, ...within].join(',') } : chosen[i]!));
  return { chosen, wider };
}

/** The closure's result with the version the roots ended at, when the resolver went back from the source's choice. */
function older(r: Resolution, version: string | undefined, left: string | undefined): Pick<ClosureResult, 'olderRoot'> {
  return left && version && version !== r.version ? { olderRoot: { version, why: left } } : {};
}

// ---- conda ------------------------------------------------------------------------------------------------------

interface CondaPick extends Candidate {
  record?: CondaCandidate;
  /** A runtime library the channel has no fitting record of: this machine's own stands in (and is checked before the swap). */
  hostStandIn?: true;
}

/** A conda channel list as the resolver sees it: strict channel priority (the first channel with a name wins). */
function condaProvider(ctx: SourceContext, channels: string[], skip: Map<string, string>, notes: ClosureNotes): Provider<CondaPick> {
  const host = ctx.host;
  const cache = new Map<string, Promise<CondaPick[]>>();
  const decided = (name: string) => layoutFor(host.platform).decidesRuntimeLibraries && DECIDED_RUNTIME.has(name);
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

async function condaClosure(spec: CondaSourceSpec, r: Resolution, ctx: SourceContext, component: string, pins: Requirement[]): Promise<ClosureResult> {
  const channels = ctx.condaChannels?.length ? ctx.condaChannels : spec.channels;
  const notes: ClosureNotes = { runtime: [], skipped: [] };
  const provider = condaProvider(ctx, channels, skipMap(spec.skip), notes);
  // The packages the source chose, first at the very builds it chose.
  const roots = rootRequirements(r, ctx, component, (a) => `==${a.version} ${a.build ?? '*'}`);
  const { solved, left } = await resolveFromChoice(roots.chosen, roots.wider, provider, pins);
  const archives: PlannedArchive[] = [];
  for (const { candidate, requiredBy } of solved.values()) {
    const rec = candidate.record;
    if (candidate.hostStandIn) notes.runtime.push(`${requiredBy.map((q) => `${requirementText(q)} (needed by ${q.by})`).join('; ')}: the channel has none that fits`);
    if (!rec) continue;
    const root = r.archives.find((a) => a.package === rec.name && a.version === rec.version && (a.build ?? rec.build) === rec.build);
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
      ...(!root && DECIDED_RUNTIME.has(rec.name) && layoutFor(ctx.host.platform).decidesRuntimeLibraries ? { runtime: {} } : {}),
    });
  }
  return { archives, notes: dedupe(notes), ...older(r, solved.get(r.archives[0]?.package ?? '')?.candidate.version, left) };
}

// ---- PyPI -------------------------------------------------------------------------------------------------------

interface WheelPick extends Candidate {
  file: IndexFile;
}

/** The best installable wheel of each version of a project for the host, newest first. */
export function wheelsByVersion(files: IndexFile[], project: string, host: Host): WheelPick[] {
  const want = normalizeName(project);
  const best = new Map<string, { f: IndexFile; score: number }>();
  for (const f of files) {
    if (f.yanked || !f.sha256) continue;
    const w = parseWheelFilename(f.filename);
    if (!w || normalizeName(w.name) !== want || isPep440PreRelease(w.version)) continue;
    const scores = w.platformTags.map((t) => platformTagScore(t, host)).filter((s): s is number => s !== undefined);
    if (!scores.length) continue;
    const score = Math.max(...scores);
    const had = best.get(w.version);
    if (!had || score > had.score) best.set(w.version, { f, score });
  }
  return [...best].sort((a, b) => comparePep440(b[0], a[0])).map(([version, { f }]) => ({ name: want, version, file: f }));
}

/**
 * A wheel's Requires-Dist: from the index's metadata file (PEP 658) when it offers one, checked against its hash; from
 * a JSON API index (`…/pypi`), the release's `info.requires_dist`; else from the wheel's own METADATA.
 */
async function requiresDist(ctx: SourceContext, indexUrl: string, c: WheelPick): Promise<string[]> {
  const file = c.file;
  const base = indexUrl.replace(/\/+$/, '');
  if (!file.coreMetadata && /\/pypi$/.test(base)) {
    const url = `${base}/${c.name}/${c.version}/json`;
    const doc = await httpFor(ctx.deps.env).getJson<{ info?: { requires_dist?: string[] | null } }>(url);
    if (!doc?.info) throw new XpuError('BAD_INDEX', `${url} is not a PyPI JSON API release document (no "info")`, { details: { url } });
    return doc.info.requires_dist ?? [];
  }
  return requiresDistOf(await (ctx.gateway ?? gatewayFor(ctx.deps)).coreMetadata(file));
}

/** Project pages asked for ahead of the resolver, per wheel's requirements. */
const PREFETCH = 8;

function pypiProvider(
  ctx: SourceContext,
  indexUrl: string,
  skip: Map<string, string>,
  notes: ClosureNotes,
  env: MarkerEnv,
): Provider<WheelPick> {
  const gateway = ctx.gateway ?? gatewayFor(ctx.deps);
  const cache = new Map<string, Promise<WheelPick[]>>();
  const limit = httpFor(ctx.deps.env).config.limits.requirements;
  let followed = 0;
  return {
    candidates(name) {
      const key = normalizeName(name);
      let p = cache.get(key);
      if (!p) {
        p = gateway.pypiProjectFiles(indexUrl, key).then(
          (files) => wheelsByVersion(files, key, ctx.host),
          (e: unknown) => {
            if (e instanceof XpuError && e.code === 'NOT_FOUND') return [];
            throw e;
          },
        );
        cache.set(key, p);
      }
      return p;
    },
    satisfies(r, c) {
      return !r.spec || satisfiesPep440(c.version, r.spec);
    },
    async dependencies(c) {
      const by = `${c.name} ${c.version}`;
      const out: Requirement[] = [];
      for (const line of await requiresDist(ctx, indexUrl, c)) {
        const req = parseRequirement(line);
        if (!req) throw new XpuError('BAD_INDEX', `${c.file.filename}: cannot read its dependency "${line}"`, { details: { url: c.file.url } });
        if (req.marker !== undefined && evaluateMarker(req.marker, env, (a, b, op) => pep440Holds(a, op, b)) !== true) continue;
        const name = normalizeName(req.name);
        if (skip.has(name)) {
          notes.skipped.push(`${req.name}${req.specifier} (needed by ${by}): not installed: ${skip.get(name)}`);
          continue;
        }
        out.push({ name, spec: req.specifier, by, byName: c.name });
      }
      followed += out.length;
      if (followed > limit) throw overLimit(c.file.url, `(${by}) brings the requirements this closure follows to`, limit, 'requirements');
      // The first few pages are asked for ahead, not all: the resolver stops at the first name the index lacks, and a
      // METADATA of thousands of names would otherwise cost a request for each before that.
      for (const r of out.slice(0, PREFETCH)) void this.candidates(r.name).catch(() => undefined);
      return out;
    },
  };
}

async function pypiClosure(spec: PypiSourceSpec, r: Resolution, ctx: SourceContext, component: string, pins: Requirement[]): Promise<ClosureResult> {
  const indexUrl = ctx.indexUrl ?? DEFAULT_INDEX_URL;
  const notes: ClosureNotes = { runtime: [], skipped: [] };
  const skip = new Map([...skipMap(spec.skip)].map(([k, v]) => [normalizeName(k), v]));
  await loadPep440();
  const provider = pypiProvider(ctx, indexUrl, skip, notes, markerEnvFor(ctx.host.platform));
  const roots = rootRequirements(r, ctx, component, (a) => `==${a.version}`, normalizeName);
  const limits = pins.map((p) => ({ ...p, name: normalizeName(p.name) }));
  const { solved, left } = await resolveFromChoice(roots.chosen, roots.wider, provider, limits);
  const archives: PlannedArchive[] = [];
  for (const { candidate, requiredBy } of solved.values()) {
    const root = r.archives.find((a) => normalizeName(a.package) === candidate.name && a.version === candidate.version);
    const why = archiveWhy(requiredBy);
    const f = candidate.file;
    archives.push({
      ...(root ?? { package: candidate.name, version: candidate.version, filename: f.filename, url: f.url, sha256: f.sha256!, size: f.size, format: 'wheel' as const, map: spec.map }),
      ...(why.length && !root ? { requiredBy: why } : {}),
    });
  }
  return { archives, notes: dedupe(notes), ...older(r, solved.get(normalizeName(r.archives[0]?.package ?? ''))?.candidate.version, left) };
}

// ---- shared -----------------------------------------------------------------------------------------------------

function skipMap(skip: SkippedPackage[] | undefined): Map<string, string> {
  return new Map((skip ?? []).map((s) => [s.package, s.reason]));
}

function dedupe(n: ClosureNotes): ClosureNotes {
  return { runtime: [...new Set(n.runtime)], skipped: [...new Set(n.skipped)] };
}

/**
 * The dependency closure of what a conda or PyPI source chose: the chosen packages stay as chosen, and every package
 * they need (read from the index's own metadata) is added, the newest that fits every requirement on it and every pin
 * (exact versions that bind a package only where the closure has it). Other sources (apt, a pinned URL) are returned
 * as they are.
 */
export async function closeOver(
  spec: SourceSpec,
  r: Resolution,
  ctx: SourceContext,
  component: string,
  pins: Requirement[] = [],
): Promise<ClosureResult> {
  if (spec.kind === 'conda') return condaClosure(spec, r, ctx, component, pins);
  if (spec.kind === 'pypi') return pypiClosure(spec, r, ctx, component, pins);
  return { archives: r.archives, notes: { runtime: [], skipped: [] } };
}

/**
 * conda `constrains` of every planned package against the packages other components planned (UR's
 * `level-zero >=1.20.2,<2.0a0` against the Level Zero the plan chose): a conflict is an error before any download.
 */
export function checkConstrains(components: { name: string; version?: string; archives: PlannedArchive[] }[]): void {
  for (const c of components) {
    for (const a of c.archives) {
      for (const text of a.constrains ?? []) {
        const spec = parseMatchSpec(text);
        const floor = />=\s*([^,|\s]+)/.exec(spec.version)?.[1];
        for (const other of components) {
          const hit = other.archives.find((x) => x.package === spec.name);
          if (!hit || matchesSpec(spec, { name: hit.package, version: hit.version, build: hit.build })) continue;
          throw new XpuError('RESOLUTION_CONFLICT', `${c.name}: ${a.package} ${a.version} constrains ${text}, but ${other.name} planned ${hit.package} ${hit.version}`, {
            details: { component: c.name, package: `${a.package} ${a.version}`, constrains: text, other: other.name, planned: `${hit.package} ${hit.version}` },
            hints: [
              floor ? `to keep ${a.package} ${a.version}, ask for a ${spec.name} that meets it: --require '${other.name}>=${floor}'` : `choose a ${spec.name} that meets ${spec.version}`,
              `or pin an older ${c.name} with --require '${c.name}<${c.version}'`,
              'nothing was downloaded',
            ],
          });
        }
      }
    }
  }
}
