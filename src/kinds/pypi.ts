// The PyPI source kind: a project's files read through the gateway (simple-index.ts is the format), wheel tag choice,
// and the dependency closure over Requires-Dist with the target's PEP 508 markers.
import { XpuError } from '../base/errors.js';
import type { Host } from '../platform/types.js';
import { layoutFor } from '../platform/index.js';
import { overLimit } from '../net/config.js';
import type { IndexFile } from '../index/simple-index.js';
import { compareConda, meetsAll, unmetText, type Constraint } from '../versions/order.js';
import { comparePep440, isPep440PreRelease, loadPep440, pep440Holds, satisfiesPep440 } from '../versions/pep440.js';
import { evaluateMarker, markerEnvFor, normalizeName, parseRequirement, requiresDistOf, type MarkerEnv } from '../versions/pep508.js';
import { inRange } from '../versions/range.js';
import { resolveFromChoice, type Candidate, type Provider, type Requirement } from '../versions/resolve.js';
import type { PlannedArchive } from '../records/archive.js';
import { archiveWhy, checkSkip, dedupe, isStrArr, older, rootRequirements, skipMap } from './closure.js';
import type { KindIndexes } from '../records/plan.js';
import { indexRoot, NotAvailable, type ClosureNotes, type ClosureResult, type Kind, type Resolution, type SkippedPackage, type SourceBase, type SourceContext } from './kind.js';

export interface PypiSourceSpec extends SourceBase {
  kind: 'pypi';
  packages: string[];
  skip?: SkippedPackage[];
}

export const DEFAULT_INDEX_URL = 'https://pypi.org/simple';

export interface WheelName {
  name: string;
  version: string;
  pythonTags: string[];
  abiTags: string[];
  platformTags: string[];
}

export function parseWheelFilename(filename: string): WheelName | undefined {
  if (!filename.endsWith('.whl')) return undefined;
  const parts = filename.slice(0, -4).split('-');
  if (parts.length !== 5 && parts.length !== 6) return undefined;
  const [name, version] = parts;
  const [py, abi, plat] = parts.slice(-3);
  return { name: name!, version: version!, pythonTags: py!.split('.'), abiTags: abi!.split('.'), platformTags: plat!.split('.') };
}

/** How well a platform tag fits the host: higher is better, undefined means it cannot be installed. */
export function platformTagScore(tag: string, host: Host): number | undefined {
  return tag === 'any' ? 0 : layoutFor(host.platform).wheelTagScore(tag, host.glibc);
}

export function selectWheel(files: IndexFile[], project: string, host: Host, range?: string, constraints: readonly Constraint[] = []): IndexFile | undefined {
  const want = normalizeName(project);
  let best: { f: IndexFile; version: string; score: number } | undefined;
  for (const f of files) {
    if (f.yanked || !f.sha256) continue;
    const w = parseWheelFilename(f.filename);
    if (!w || normalizeName(w.name) !== want || isPep440PreRelease(w.version) || !inRange('pep440', w.version, range) || !meetsAll(w.version, constraints, 'pep440')) continue;
    const scores = w.platformTags.map((t) => platformTagScore(t, host)).filter((s): s is number => s !== undefined);
    if (!scores.length) continue;
    const score = Math.max(...scores);
    if (!best || comparePep440(w.version, best.version) > 0 || (w.version === best.version && score > best.score)) {
      best = { f, version: w.version, score };
    }
  }
  return best?.f;
}

/** The index a run reads: the named one (--index-url) or PyPI's. */
const indexOf = (named: KindIndexes): string => named.pypi?.[0] ?? DEFAULT_INDEX_URL;

/**
 * When the only wheel that fits is yanked (PEP 592), says so, with the index's reason, instead of "none for this
 * platform": a yanked release is never installed, even when pinned, so the way out is another version.
 */
function refuseYanked(files: IndexFile[], project: string, indexUrl: string, range: string | undefined, ctx: SourceContext): void {
  const unyanked = new Map(files.map((x) => [{ ...x, yanked: false }, x]));
  const pick = selectWheel([...unyanked.keys()], project, ctx.host, range, ctx.constraints);
  const yanked = pick && unyanked.get(pick);
  if (!yanked?.yanked) return;
  const v = parseWheelFilename(yanked.filename)!.version;
  const other = selectWheel(files, project, ctx.host, range);
  const component = ctx.constraints?.[0]?.component ?? project;
  const otherV = other && parseWheelFilename(other.filename)!.version;
  throw new NotAvailable(
    `${project} ${v} on ${indexUrl} is yanked (${yanked.yankedReason ? `"${yanked.yankedReason}"` : 'the index gives no reason'}), and a yanked release is never installed: ` +
      (otherV ? `pin another version, e.g. --require '${component}==${otherV}' (the newest not yanked)` : `no other ${project} version fits; name another index with --index-url or another source with --source`),
  );
}

export async function resolvePypi(spec: PypiSourceSpec, ctx: SourceContext): Promise<Resolution> {
  await loadPep440();
  const indexUrl = indexOf(ctx.indexes);
  const archives = [];
  // Newer versions of the component's package left because their wheels need a newer glibc: said with the choice.
  const away: string[] = [];
  for (const project of spec.packages) {
    let files: IndexFile[];
    try {
      files = await ctx.gateway.pypiProjectFiles(indexUrl, project);
    } catch (e) {
      if (e instanceof XpuError && e.code === 'NOT_FOUND') {
        // A 404 for the project's page is all a mistyped index URL gives too: say both readings.
        throw new NotAvailable(`${project} not found on ${indexUrl} (HTTP 404: it has no ${project}, or it is not a PyPI simple index: check the URL)`);
      }
      throw e;
    }
    const f = selectWheel(files, project, ctx.host, spec.versions, ctx.constraints);
    if (!f) refuseYanked(files, project, indexUrl, spec.versions, ctx);
    const unconstrained = !f && ctx.constraints?.length ? selectWheel(files, project, ctx.host, spec.versions) : undefined;
    if (unconstrained) {
      const v = parseWheelFilename(unconstrained.filename)!.version;
      throw new NotAvailable(`newest ${project} wheel on ${indexUrl} is ${v}, which does not meet ${unmetText(v, ctx.constraints!, 'pep440')}`);
    }
    if (!f) {
      const noHash = files.some((x) => !x.sha256 && !x.yanked);
      throw new NotAvailable(
        `no ${project} wheel for ${ctx.host.platform}${ctx.host.glibc ? ` (glibc ${ctx.host.glibc})` : ''} on ${indexUrl}` +
          (noHash ? ' (files without sha256 are never used)' : ''),
      );
    }
    const w = parseWheelFilename(f.filename)!;
    archives.push({ package: project, version: w.version, filename: f.filename, url: f.url, sha256: f.sha256!, size: f.size, format: 'wheel' as const, map: spec.map });
    if (!away.length) away.push(...newerNeedingGlibc(files, project, ctx.host, w.version, spec.versions, ctx.constraints));
  }
  return { source: 'pypi', origin: indexUrl, version: archives[0]!.version, archives, ...(away.length && { turnedAway: [...away, `this host has glibc ${ctx.host.glibc!}`] }) };
}

/**
 * The versions newer than `chosen` (within the range and constraints) whose wheels for this platform all need a newer
 * glibc than the host's, by their manylinux tags: `2026.2.0 needs glibc 2.38`. Empty when the host's glibc is not known.
 */
export function newerNeedingGlibc(files: IndexFile[], project: string, host: Host, chosen: string, range?: string, constraints: readonly Constraint[] = []): string[] {
  if (!host.glibc) return [];
  const want = normalizeName(project);
  const needs = new Map<string, string>();
  for (const f of files) {
    if (f.yanked || !f.sha256) continue;
    const w = parseWheelFilename(f.filename);
    if (!w || normalizeName(w.name) !== want || isPep440PreRelease(w.version) || comparePep440(w.version, chosen) <= 0) continue;
    if (!inRange('pep440', w.version, range) || !meetsAll(w.version, constraints, 'pep440')) continue;
    for (const tag of w.platformTags) {
      const m = /^manylinux_(\d+)_(\d+)_/.exec(tag);
      // A tag of this platform that only a newer glibc takes (one of another architecture says nothing of this host).
      if (!m || platformTagScore(tag, host) !== undefined || platformTagScore(tag, { ...host, glibc: '999.999' }) === undefined) continue;
      const glibc = `${m[1]}.${m[2]}`;
      const had = needs.get(w.version);
      if (!had || compareConda(glibc, had) < 0) needs.set(w.version, glibc);
    }
  }
  return [...needs].sort((a, b) => comparePep440(b[0], a[0])).map(([v, g]) => `${v} needs glibc ${g}`);
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
    const doc = await ctx.gateway.json<{ info?: { requires_dist?: string[] | null } }>(url);
    if (!doc?.info) throw new XpuError('BAD_INDEX', `${url} is not a PyPI JSON API release document (no "info")`, { details: { url } });
    return doc.info.requires_dist ?? [];
  }
  return requiresDistOf(await ctx.gateway.coreMetadata(file));
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
  const gateway = ctx.gateway;
  const cache = new Map<string, Promise<WheelPick[]>>();
  const limit = gateway.http.config.limits.requirements;
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

export async function pypiClosure(spec: PypiSourceSpec, r: Resolution, ctx: SourceContext, component: string, pins: Requirement[]): Promise<ClosureResult> {
  const indexUrl = indexOf(ctx.indexes);
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

export const pypi: Kind<PypiSourceSpec> = {
  name: 'pypi',
  ordering: 'pep440',
  validate(s, bad) {
    if (!isStrArr(s.packages)) throw bad('"packages" must be a non-empty list of names');
    checkSkip(s.skip, bad);
    if (s.packages.some((p) => p.toLowerCase().replace(/[-_.]+/g, '-') === 'level-zero')) {
      throw bad('the PyPI name "level-zero" belongs to an unrelated project; never resolve Level Zero from PyPI by that name');
    }
  },
  resolve: resolvePypi,
  closure: pypiClosure,
  describe: (_spec, named) => `pypi ${indexOf(named)}`,
  indexes: (_spec, named) => [indexRoot(indexOf(named))],
  recordedIndexes: (origin) => (origin ? [indexRoot(origin)] : []),
  optionValues: (origin) => [origin],
};
