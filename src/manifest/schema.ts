// Manifest types and their validation: components, per-platform ordered sources, and path maps as data.
import { XpuError } from '../base/errors.js';
import { platformOf, TARGET_PLATFORMS, type TargetPlatform } from '../platform/targets.js';
import { findKind, SOURCE_KINDS, type SourceSpec } from '../kinds/index.js';
import { checkRoles } from '../roles/index.js';
import { loadPep440 } from '../versions/pep440.js';
import { isRange, rangeSyntax } from '../versions/range.js';

export { SOURCE_KINDS, type SourceKind, type SourceSpec, type SkippedPackage } from '../kinds/index.js';
import type { MapRule } from '../records/archive.js';
import type { Provided } from '../records/plan.js';

export type { MapRule } from '../records/archive.js';
export type { Provided } from '../records/plan.js';


export interface PlatformSpec {
  provides: Provided[];
  sources: SourceSpec[];
}

const ARCH_WORDS = /\{(multiarch|debArch)\}/g;

/** `v` with the arch's words of `platform` in every string. */
function withArchWords<T>(v: T, platform: TargetPlatform): T {
  const { arch } = platformOf(platform);
  const walk = (x: unknown): unknown =>
    typeof x === 'string'
      ? x.replace(ARCH_WORDS, (_, w: 'multiarch' | 'debArch') => arch[w])
      : Array.isArray(x)
        ? x.map(walk)
        : x && typeof x === 'object'
          ? Object.fromEntries(Object.entries(x).map(([k, y]) => [k, walk(y)]))
          : x;
  return walk(v) as T;
}

/**
 * Each platform's spec from what the manifest writes for it: its spec, or `{ "like": "linux-x64" }` for the same spec
 * as another platform of its OS. Either way its strings may hold the arch's words, filled in per platform:
 * `{multiarch}` (Debian's library directory, `x86_64-linux-gnu`) and `{debArch}` (`amd64`), so one entry serves every arch.
 */
function platformSpecs(file: string, platforms: Record<string, unknown>): Partial<Record<TargetPlatform, PlatformSpec>> {
  const out: Partial<Record<TargetPlatform, PlatformSpec>> = {};
  for (const [plat, entry] of Object.entries(platforms)) {
    if (!(TARGET_PLATFORMS as readonly string[]).includes(plat)) throw bad(file, `unknown platform "${plat}" (platforms: ${TARGET_PLATFORMS.join(', ')})`);
    let spec = entry;
    if (spec && typeof spec === 'object' && 'like' in spec) {
      const like = (spec as { like: unknown }).like;
      const base = typeof like === 'string' ? platforms[like] : undefined;
      if (!base || typeof base !== 'object' || 'like' in base || platformOf(like as TargetPlatform).os !== platformOf(plat as TargetPlatform).os) {
        throw bad(file, `${plat}: "like" must name another platform of the same OS that has its own sources (got ${JSON.stringify(like)})`);
      }
      spec = base;
    }
    out[plat as TargetPlatform] = withArchWords(spec, plat as TargetPlatform) as PlatformSpec;
  }
  return out;
}

export interface ComponentManifest {
  schema: 1;
  name: string;
  summary: string;
  /** What versions older than `since` lack; the planner notes it when it falls back to one. */
  features: { since: string; what: string }[];
  /**
   * What the component is to the stack (roles/: `"ze-loader"`, `"ze-headers"`, ...): the files, env variables and
   * checks each role contributes. A role only one component may have is claimed by at most one manifest.
   */
  roles?: string[];
  /**
   * false: planned only when asked for (`--component`, a constraint, an installed component), not by a bare run. The
   * GPU driver is one: a machine whose own driver works keeps it, and one without a GPU needs it only to compile.
   */
  byDefault?: boolean;
  /**
   * Version constraints a consumer needs by default, written without the name (`">=1.9"`); a `--require` for this
   * component replaces them.
   */
  requires?: string[];
  /** What versions of this component need of another: the planner picks a version of that one that meets it, or stops. */
  needs?: ComponentNeed[];
  /** Each platform's sources and files, `like` entries and the arch's words resolved (platformSpecs). */
  platforms: Partial<Record<TargetPlatform, PlatformSpec>>;
}

/** `unified-runtime` `>=2026` needs `level-zero` `>=1.25`, because its adapters call functions loader 1.25 added. */
export interface ComponentNeed {
  /** The versions of this component that need it, written without the name (`">=2026"`). */
  versions: string;
  /** The component needed and the versions of it that serve (`"level-zero"`, `">=1.25"`). */
  component: string;
  version: string;
  /** Why, in words a person can check (`its Level Zero adapters call zeDeviceSynchronize, new in loader 1.25.0`). */
  why: string;
}

/** The components a request naming none means: every manifest's, but those planned only when asked for. */
export function defaultComponents(ms: readonly Pick<ComponentManifest, 'name' | 'byDefault'>[]): string[] {
  return ms.filter((m) => m.byDefault !== false).map((m) => m.name);
}

function bad(file: string, what: string): XpuError {
  return new XpuError('BAD_MANIFEST', `manifest ${file}: ${what}`, {
    details: { file },
    hints: ['fix the manifest file, or remove --manifests to use the built-in ones'],
  });
}

const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;

function checkMap(file: string, where: string, map: unknown): void {
  if (!Array.isArray(map) || map.length === 0) throw bad(file, `${where}: "map" must be a non-empty list`);
  for (const r of map as MapRule[]) {
    if (!isStr(r?.from) || typeof r?.to !== 'string') throw bad(file, `${where}: map rules need "from" and "to"`);
    if (r.to.startsWith('/') || r.to.split('/').includes('..')) throw bad(file, `${where}: map target "${r.to}" must stay inside the prefix`);
    if (r.optIn !== undefined && r.optIn !== 'include-loader-dll') throw bad(file, `${where}: "optIn" must be "include-loader-dll"`);
  }
}

/** Validates parsed JSON; errors name the file and the field. */
export function validateManifest(file: string, doc: unknown): ComponentManifest {
  const m = doc as ComponentManifest;
  if (!m || typeof m !== 'object' || m.schema !== 1) throw bad(file, 'expected "schema": 1');
  if (!isStr(m.name)) throw bad(file, '"name" is missing');
  if (!m.platforms || typeof m.platforms !== 'object') throw bad(file, '"platforms" is missing');
  m.features ??= [];
  if ('zeLoader' in m) throw bad(file, '"zeLoader" is no longer read: name the role instead, "roles": ["ze-loader"]');
  checkRoles(m.roles, (what) => bad(file, what));
  if (m.byDefault !== undefined && typeof m.byDefault !== 'boolean') throw bad(file, '"byDefault" must be true or false');
  if (m.requires !== undefined && !(Array.isArray(m.requires) && m.requires.every((r) => typeof r === 'string' && /^\s*(>=|<=|==|!=|>|<)\s*\S+\s*$/.test(r)))) {
    throw bad(file, '"requires" must be a list of constraints such as ">=1.9"');
  }
  const constraint = (v: unknown) => typeof v === 'string' && /^\s*(>=|<=|==|!=|>|<)\s*\S+\s*$/.test(v);
  if (m.needs !== undefined && !(Array.isArray(m.needs) && m.needs.every((n) => constraint(n?.versions) && isStr(n?.component) && constraint(n?.version) && isStr(n?.why)))) {
    throw bad(file, '"needs" must be a list of { "versions": ">=2026", "component": NAME, "version": ">=1.25", "why": TEXT }');
  }
  m.platforms = platformSpecs(file, m.platforms);
  for (const [plat, spec] of Object.entries(m.platforms)) {
    if (!spec || !Array.isArray(spec.sources)) throw bad(file, `${plat}: "sources" must be a list`);
    spec.provides ??= [];
    spec.sources.forEach((s, i) => {
      const where = `${plat}.sources[${i}]`;
      const kind = findKind(s?.kind);
      if (!kind) throw bad(file, `${where}: unknown kind "${String(s?.kind)}" (kinds: ${SOURCE_KINDS.join(', ')})`);
      checkMap(file, where, s.map);
      kind.validate(s, (what) => bad(file, `${where}: ${what}`));
    });
  }
  return m;
}

/**
 * Every source's `versions` range reads in that source's ordering (validateManifest checks the rest). The PEP 440
 * engine is loaded only when a source ordered by it has a range to read.
 */
export async function checkVersionRanges(file: string, m: ComponentManifest): Promise<void> {
  const ranged = Object.entries(m.platforms).flatMap(([plat, spec]) =>
    (spec?.sources ?? []).flatMap((s, i) => (s.versions === undefined ? [] : [{ where: `${plat}.sources[${i}]`, s }])),
  );
  const ordering = (s: SourceSpec) => findKind(s.kind)!.ordering;
  if (ranged.some(({ s }) => ordering(s) === 'pep440')) await loadPep440();
  for (const { where, s } of ranged) {
    if (typeof s.versions !== 'string' || !isRange(ordering(s), s.versions)) {
      throw bad(file, `${where}: cannot read "versions": ${JSON.stringify(s.versions)} as ${rangeSyntax(ordering(s))}`);
    }
  }
}
