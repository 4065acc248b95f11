// Manifest types and their validation: components, per-platform ordered sources, and path maps as data.
import { XpuError } from '../errors.js';
import { TARGET_PLATFORMS, type TargetPlatform } from '../host/types.js';
import { loadPep440 } from '../sources/pep440.js';
import { isRange, rangeSyntax } from '../sources/version.js';
import { SOURCE_KINDS, type SourceKind } from './source-kinds.js';

export { SOURCE_KINDS, type SourceKind } from './source-kinds.js';

/** Members under `from` (a path prefix; `*` matches one segment) land under `to` in the prefix. */
export interface MapRule {
  from: string;
  to: string;
  /** Taken only when the request opts in with the flag of that name (`"include-loader-dll"`); otherwise left out. */
  optIn?: 'include-loader-dll';
}

/** A dependency not to follow (its files are not installed), with the reason people read in the plan. */
export interface SkippedPackage {
  package: string;
  reason: string;
}

interface SourceBase {
  kind: SourceKind;
  map: MapRule[];
  /**
   * A range the version must be in, read in the source's own ordering: a conda version spec (`>=1.9,<2`), a PEP 440
   * specifier set for PyPI, Debian relations for apt (`>= 1.9, << 2`).
   */
  versions?: string;
}

export interface CondaSourceSpec extends SourceBase {
  kind: 'conda';
  channels: string[];
  packages: string[];
  /** Dependencies of the packages not to install. */
  skip?: SkippedPackage[];
}

export interface PypiSourceSpec extends SourceBase {
  kind: 'pypi';
  packages: string[];
  skip?: SkippedPackage[];
}

export interface UrlSourceSpec extends SourceBase {
  kind: 'url';
  package: string;
  version: string;
  url: string;
  sha256: string;
  size?: number;
}

export interface AptSourceSpec extends SourceBase {
  kind: 'apt';
  packages: string[];
}

export type SourceSpec = CondaSourceSpec | PypiSourceSpec | UrlSourceSpec | AptSourceSpec;

export interface Provided {
  path: string;
  required: boolean;
  /** Said when the file is absent (required: error; optional: a note). */
  missing?: string;
}

export interface PlatformSpec {
  provides: Provided[];
  sources: SourceSpec[];
}

export interface ComponentManifest {
  schema: 1;
  name: string;
  summary: string;
  /** What versions older than `since` lack; the planner notes it when it falls back to one. */
  features: { since: string; what: string }[];
  /**
   * This component provides the Level Zero loader: setup builds, probes and smoke-tests through it only when it is
   * installed, and install writes its pkg-config and CMake files. At most one manifest says so.
   */
  zeLoader?: boolean;
  /**
   * Version constraints a consumer needs by default, written without the name (`">=1.9"`); a `--require` for this
   * component replaces them.
   */
  requires?: string[];
  /** What versions of this component need of another: the planner picks a version of that one that meets it, or stops. */
  needs?: ComponentNeed[];
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

function bad(file: string, what: string): XpuError {
  return new XpuError('BAD_MANIFEST', `manifest ${file}: ${what}`, {
    details: { file },
    hints: ['fix the manifest file, or remove --manifests to use the built-in ones'],
  });
}

const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isStrArr = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every(isStr);

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
  if (m.zeLoader !== undefined && typeof m.zeLoader !== 'boolean') throw bad(file, '"zeLoader" must be true or false');
  if (m.requires !== undefined && !(Array.isArray(m.requires) && m.requires.every((r) => typeof r === 'string' && /^\s*(>=|<=|==|!=|>|<)\s*\S+\s*$/.test(r)))) {
    throw bad(file, '"requires" must be a list of constraints such as ">=1.9"');
  }
  const constraint = (v: unknown) => typeof v === 'string' && /^\s*(>=|<=|==|!=|>|<)\s*\S+\s*$/.test(v);
  if (m.needs !== undefined && !(Array.isArray(m.needs) && m.needs.every((n) => constraint(n?.versions) && isStr(n?.component) && constraint(n?.version) && isStr(n?.why)))) {
    throw bad(file, '"needs" must be a list of { "versions": ">=2026", "component": NAME, "version": ">=1.25", "why": TEXT }');
  }
  for (const [plat, spec] of Object.entries(m.platforms)) {
    if (!(TARGET_PLATFORMS as readonly string[]).includes(plat)) throw bad(file, `unknown platform "${plat}"`);
    if (!spec || !Array.isArray(spec.sources)) throw bad(file, `${plat}: "sources" must be a list`);
    spec.provides ??= [];
    spec.sources.forEach((s, i) => {
      const where = `${plat}.sources[${i}]`;
      if (!(SOURCE_KINDS as readonly string[]).includes(s?.kind)) throw bad(file, `${where}: unknown kind "${String(s?.kind)}"`);
      checkMap(file, where, s.map);
      if (s.kind === 'url') {
        if (!isStr(s.url) || !isStr(s.version) || !isStr(s.package)) throw bad(file, `${where}: url sources need "package", "version" and "url"`);
        if (!/^[0-9a-f]{64}$/.test(s.sha256 ?? '')) throw bad(file, `${where}: url sources need a pinned lowercase hex "sha256"`);
      } else {
        if (!isStrArr(s.packages)) throw bad(file, `${where}: "packages" must be a non-empty list of names`);
        if (s.kind === 'conda' && !isStrArr(s.channels)) throw bad(file, `${where}: conda sources need "channels"`);
        const skip = (s as { skip?: SkippedPackage[] }).skip;
        if (skip !== undefined && !(Array.isArray(skip) && skip.every((k) => isStr(k?.package) && isStr(k?.reason)))) {
          throw bad(file, `${where}: "skip" must be a list of { "package": NAME, "reason": WHY }`);
        }
        if (s.kind === 'pypi' && s.packages.some((p) => p.toLowerCase().replace(/[-_.]+/g, '-') === 'level-zero')) {
          throw bad(file, `${where}: the PyPI name "level-zero" belongs to an unrelated project; never resolve Level Zero from PyPI by that name`);
        }
      }
    });
  }
  return m;
}

/**
 * Every source's `versions` range reads in that source's ordering (validateManifest checks the rest). The PEP 440
 * engine is loaded only when a PyPI source has a range to read.
 */
export async function checkVersionRanges(file: string, m: ComponentManifest): Promise<void> {
  const ranged = Object.entries(m.platforms).flatMap(([plat, spec]) =>
    (spec?.sources ?? []).flatMap((s, i) => (s.versions === undefined ? [] : [{ where: `${plat}.sources[${i}]`, s }])),
  );
  if (ranged.some(({ s }) => s.kind === 'pypi')) await loadPep440();
  for (const { where, s } of ranged) {
    if (typeof s.versions !== 'string' || !isRange(s.kind, s.versions)) {
      throw bad(file, `${where}: cannot read "versions": ${JSON.stringify(s.versions)} as ${rangeSyntax(s.kind)}`);
    }
  }
}
