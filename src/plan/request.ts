// What the user asked for, as plain data: recorded in the receipt, repeated by a bare re-run, merged with new flags.
import { XpuError } from '../base/errors.js';
import type { ComponentManifest, SourceKind } from '../manifest/schema.js';
import { orderingOf } from '../kinds/index.js';
import { compareTo, meetsAll, parseConstraint, type Constraint } from '../versions/order.js';
import type { BelowFloor, KindIndexes, MatchTorchRequest, SetupRequest } from '../records/plan.js';

/** What this run's command line (or environment) said; undefined means "not said: repeat the recorded request". */
export interface RequestFlags {
  components?: string[];
  sources?: SourceKind[];
  /** The kinds whose index this run named, each with its values (a kind not here: as recorded). */
  indexes?: KindIndexes;
  requires?: string[];
  refdriver?: boolean;
  /** `--match-torch[=PYTHON]`; null: `--no-match-torch` (forget a recorded one). */
  matchTorch?: MatchTorchRequest | null;
  /** `--include-loader-dll`; false: `--no-include-loader-dll`. */
  includeLoaderDll?: boolean;
  /** Installed components to remove: the only way a run takes a component out of a prefix. */
  remove?: string[];
  /** `--gpu`: the GPUs to plan for; empty: `--gpu host` (this machine's, forgetting a recorded list). */
  gpus?: string[];
}

export const EMPTY_REQUEST: SetupRequest = { components: [], sources: [], indexes: {}, requires: [], refdriver: false };

/** The recorded indexes with each kind this run named replaced by what it named (a kind's values are never added up). */
function mergeIndexes(recorded: KindIndexes, said: KindIndexes = {}): KindIndexes {
  const merged: KindIndexes = {};
  for (const [kind, values] of Object.entries({ ...recorded, ...said })) if (values?.length) merged[kind] = values;
  return merged;
}

export interface MergedRequest {
  request: SetupRequest;
  /** Components that must be planned: named ones, and installed ones not removed. */
  required: string[];
  remove: string[];
  /** Said to the user: what was taken from the recorded request. */
  notes: string[];
}

const componentOf = (text: string): string => parseConstraint(text).component;

/**
 * The recorded request, changed only where this run said something. Components add up (an installed component stays
 * unless `--remove` names it); constraints replace the recorded ones of the components they name. `byDefault` is what
 * a request naming no component means (every manifest's component but those planned only when asked for).
 */
export function mergeRequest(recorded: SetupRequest | undefined, flags: RequestFlags, installed: string[], byDefault: string[]): MergedRequest {
  const base = recorded ?? EMPTY_REQUEST;
  const remove = flags.remove ?? [];
  const notInstalled = remove.filter((r) => !installed.includes(r));
  if (notInstalled.length) {
    throw new XpuError('USAGE', `--remove ${notInstalled.join(', ')}: not installed in this prefix`, {
      hints: [installed.length ? `installed: ${installed.join(', ')}` : 'nothing is installed in this prefix yet'],
    });
  }
  let components: string[];
  if (!recorded) components = flags.components ?? [];
  else if (base.components.length === 0) components = [];
  else components = [...new Set([...base.components, ...(flags.components ?? [])])];
  if (remove.length) {
    components = (components.length ? components : byDefault).filter((c) => !remove.includes(c));
    if (!components.length) {
      throw new XpuError('USAGE', 'that would remove every component', { hints: ['to delete the prefix and all it holds: xpu-setup uninstall (with the same --prefix)'] });
    }
  }
  const said = new Set((flags.requires ?? []).map(componentOf));
  const requires = [...base.requires.filter((r) => !said.has(componentOf(r))), ...(flags.requires ?? [])];
  const request: SetupRequest = {
    components,
    sources: flags.sources ?? base.sources,
    indexes: mergeIndexes(base.indexes, flags.indexes),
    requires,
    refdriver: flags.refdriver ?? base.refdriver,
  };
  const matchTorch = flags.matchTorch === undefined ? base.matchTorch : flags.matchTorch ?? undefined;
  if (matchTorch) request.matchTorch = matchTorch;
  if (flags.includeLoaderDll ?? base.includeLoaderDll) request.includeLoaderDll = true;
  const gpus = flags.gpus ?? base.gpus;
  if (gpus?.length) request.gpus = gpus;
  const kept = installed.filter((c) => !remove.includes(c) && !(flags.components ?? []).includes(c));
  const notes: string[] = [];
  if (recorded && flags.components && kept.length) {
    notes.push(`keeping ${kept.join(', ')} (installed); to take ${kept.length === 1 ? 'it' : 'them'} out: --remove ${kept.join(',')}`);
  }
  // A constraint makes its component required only where that component is asked for at all.
  const constrained = requires.map(componentOf).filter((c) => components.length === 0 || components.includes(c));
  const required = [...new Set([...components, ...installed.filter((c) => !remove.includes(c)), ...constrained])];
  return { request, required, remove, notes };
}

/**
 * Constraints for one component. The request's (`--require`, XPU_SETUP_REQUIRE, the action's `require`, a lockfile's
 * request) are hard: no version outside them is planned. Without any, the manifest's default floor is a preference:
 * the planner takes the best reachable version that meets it, else the best reachable one, and says what it lacks.
 */
export function floorsFor(m: ComponentManifest, request: Pick<SetupRequest, 'requires'>): { hard: Constraint[]; preferred: Constraint[] } {
  const own = request.requires.map(parseConstraint).filter((c) => c.component === m.name);
  if (own.length) return { hard: own, preferred: [] };
  return { hard: [], preferred: (m.requires ?? []).map((r) => parseConstraint(`${m.name}${r}`)) };
}

/** The manifest's features newer than `version`, judged in the ordering of the source that version came from. */
export function featuresLacking(m: ComponentManifest, version: string, kind: SourceKind): ComponentManifest['features'] {
  return m.features.filter((f) => compareTo(orderingOf(kind), version, f.since) < 0);
}

/**
 * How a planned version falls short of the manifest's recommended floor, or undefined when it meets it or the request
 * replaced that floor with the user's own. Derived, so a plan from a lockfile or a receipt says it too.
 */
export function belowFloorOf(m: ComponentManifest, version: string, kind: SourceKind, request: Pick<SetupRequest, 'requires'>, unreached: string[] = []): BelowFloor | undefined {
  const { preferred } = floorsFor(m, request);
  if (!preferred.length || meetsAll(version, preferred, orderingOf(kind))) return undefined;
  return {
    floor: preferred.map((c) => c.text),
    lacks: featuresLacking(m, version, kind).map((f) => `${f.what}, new in ${f.since}`),
    unreached,
  };
}

/** Whether two requests ask the same, whatever order their fields were written in (a receipt an older xpu-setup wrote). */
export function sameRequest(a: SetupRequest | undefined, b: SetupRequest): boolean {
  return !!a && canonical(a) === canonical(b);
}

/** JSON with every object's keys in order, so a request read from an older receipt compares by content alone. */
const canonical = (v: unknown): string => JSON.stringify(v, (_k, x: unknown) => (x && typeof x === 'object' && !Array.isArray(x) ? Object.fromEntries(Object.entries(x).sort(([p], [q]) => (p < q ? -1 : 1))) : x));
