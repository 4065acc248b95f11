// Which compute-runtime releases drive which GPU family (data/compute-runtime-support.csv), and a driver's version
// judged against the GPU it must drive. Releases are compared by their build number (yy.ww.BUILD.hotfix), which is
// also the third part of the Level Zero driver's own version (1.3.24595) and of its library's file name.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { packagePath } from '../package-dir.js';
import { parseCsv } from './csv.js';

export interface FamilySupport {
  family: string;
  generation: string;
  discrete: boolean;
  /** False: compute-runtime drives it through OpenCL only. */
  levelZero: boolean;
  /** `legacy1`: frozen on the 24.35 branch's -legacy1 packages; `main`: every current release. */
  line: 'main' | 'legacy1';
  firstRelease: string;
  /** False when the first tag read already had it (older tags were not read): the family may be older still. */
  firstReleaseExact: boolean;
  /** The last release that drives it; undefined while current releases do. */
  lastRelease?: string;
  source: string;
}

/** The release from which the regular packages dropped Gen8, Gen9 and Gen11 (LEGACY_PLATFORMS.md). */
export const LEGACY_SPLIT = '24.35.30872.22';

export function parseSupport(text: string): Map<string, FamilySupport> {
  const out = new Map<string, FamilySupport>();
  for (const r of parseCsv(text, 'compute-runtime-support.csv')) {
    const line = r.line === 'legacy1' ? 'legacy1' : 'main';
    out.set(r.family!, {
      family: r.family!,
      generation: r.generation!,
      discrete: r.discrete === 'yes',
      levelZero: r.level_zero === 'yes',
      line,
      firstRelease: r.first_release!,
      firstReleaseExact: r.first_release_exact === 'yes',
      ...(r.last_release ? { lastRelease: r.last_release } : {}),
      source: r.source!,
    });
  }
  return out;
}

export const SUPPORT_URL = pathToFileURL(packagePath('data', 'compute-runtime-support.csv'));
let cached: Map<string, FamilySupport> | undefined;

export function familySupport(): Map<string, FamilySupport> {
  cached ??= parseSupport(readFileSync(SUPPORT_URL, 'utf8'));
  return cached;
}

/** The build number of a release (24.35.30872.22), a Level Zero driver version (1.3.24595, 1.6.33578+51) or a file name. */
export function driverBuild(version: string): number | undefined {
  const m = /^(\d+)\.(\d+)\.(\d+)(?:[.+-]\S*)?$/.exec(version.trim());
  if (!m) return undefined;
  // A release tag's first part is a two-digit year (18..); a Level Zero version's is the API major (1).
  return Number(m[3]);
}

export type SupportVerdict =
  | { kind: 'ok'; support: FamilySupport }
  | { kind: 'unknown-family' }
  | { kind: 'no-level-zero'; support: FamilySupport }
  | { kind: 'too-old'; support: FamilySupport; build: number; needs: string }
  | { kind: 'needs-legacy'; support: FamilySupport; build: number };

/** Pure: can a driver of this build drive a GPU of this family through Level Zero? */
export function judgeDriver(build: number, family: string | undefined, table: Map<string, FamilySupport> = familySupport()): SupportVerdict {
  const support = family ? table.get(family) : undefined;
  if (!support) return { kind: 'unknown-family' };
  if (!support.levelZero) return { kind: 'no-level-zero', support };
  const first = driverBuild(support.firstRelease)!;
  if (build < first) return { kind: 'too-old', support, build, needs: support.firstRelease };
  const last = support.lastRelease ? driverBuild(support.lastRelease)! : undefined;
  if (last !== undefined && build > last) return { kind: 'needs-legacy', support, build };
  return { kind: 'ok', support };
}
