// What every kind's dependency closure shares: the root requirements the resolver starts from, and the notes' shape.
import type { PlannedArchive } from '../records/archive.js';
import { requirementText, type Requirement } from '../versions/resolve.js';
import type { ClosureNotes, ClosureResult, Resolution, SkippedPackage, SourceContext } from './kind.js';

export const archiveWhy = (reqs: Requirement[]): string[] => reqs.filter((r) => r.byName).map((r) => `${r.by}: ${requirementText(r)}`);

/**
 * The root requirements of a component: the packages the source chose, exactly (`chosen`); and, unless a constraint
 * pins the component's version (--require x==v, --match-torch), the same packages within the component's constraints
 * and no newer than chosen (`wider`), for the resolver to go back to when the chosen ones' closure cannot hold.
 */
export function rootRequirements(r: Resolution, ctx: SourceContext, component: string, exact: (a: PlannedArchive) => string, name = (n: string) => n) {
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
export function older(r: Resolution, version: string | undefined, left: string | undefined): Pick<ClosureResult, 'olderRoot'> {
  return left && version && version !== r.version ? { olderRoot: { version, why: left } } : {};
}

export function skipMap(skip: SkippedPackage[] | undefined): Map<string, string> {
  return new Map((skip ?? []).map((s) => [s.package, s.reason]));
}

export function dedupe(n: ClosureNotes): ClosureNotes {
  return { runtime: [...new Set(n.runtime)], skipped: [...new Set(n.skipped)] };
}

export const isStr = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
export const isStrArr = (v: unknown): v is string[] => Array.isArray(v) && v.length > 0 && v.every(isStr);

/** A manifest entry's `skip` list, as validate() checks it. */
export function checkSkip(skip: unknown, bad: (what: string) => Error): void {
  if (skip !== undefined && !(Array.isArray(skip) && skip.every((k: SkippedPackage) => isStr(k?.package) && isStr(k?.reason)))) {
    throw bad('"skip" must be a list of { "package": NAME, "reason": WHY }');
  }
}
