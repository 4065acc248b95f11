// Dependency resolution as a pure function over a provider: the newest candidate that fits, backtracking on conflict.
import { XpuError } from '../base/errors.js';

/** One package asking for another: `umf ==1.0.*`, asked by `intel-cmplr-lib-ur 2025.3.1`. */
export interface Requirement {
  name: string;
  /** The version part as the package wrote it (`==1.0.*`, `>=1.20.2,<2.0a0`); empty for any version. */
  spec: string;
  /** Who asks, for people: `intel-cmplr-lib-ur 2025.3.1`, or the component for a root requirement. */
  by: string;
  /** The package that asks (undefined for a root): the chain of a conflict is walked through it. */
  byName?: string;
}

export interface Candidate {
  name: string;
  version: string;
  /** A conda build string: a requirement may pin it (`level-zero ==1.29.0 h84d6215_0`). */
  build?: string;
}

/** A candidate as a conflict names it: its version, and its build where it has one. */
const shown = (c: Candidate): string => (c.build ? `${c.version} ${c.build}` : c.version);

/** What the resolver asks of an index; the network sits behind it, so the resolver is tested with tables. */
export interface Provider<C extends Candidate> {
  /** Every installable candidate for `name`, best first (newest, then the provider's preference among builds). */
  candidates(name: string): Promise<C[]>;
  /** Whether `c` (named r.name) satisfies `r`. */
  satisfies(r: Requirement, c: C): boolean;
  /** What `c` needs installed beside it. */
  dependencies(c: C): Promise<Requirement[]>;
  /** What `c` requires of a package only if that package is installed too (conda's `constrains`). */
  constraints?(c: C): Requirement[];
}

export interface Resolved<C> {
  candidate: C;
  /** Every requirement that named this package. */
  requiredBy: Requirement[];
}

export const requirementText = (r: Requirement): string => (r.spec ? `${r.name} ${r.spec}` : r.name);

interface State<C> {
  chosen: Map<string, C>;
  /** Requirements on each name so far. */
  wants: Map<string, Requirement[]>;
  /** Constraints on each name so far: they bind a name only once something requires it. */
  limits: Map<string, Requirement[]>;
  /** Names asked for and not yet decided, in the order they were first asked for. */
  open: string[];
}

interface Conflict {
  name: string;
  against: Requirement[];
  available: string[];
  /** How many names were decided when it happened: the deepest conflict is the one reported. */
  depth: number;
  chain: string[];
}

/** Tries a resolution this many times before giving up: a pathological index cannot make planning run forever. */
const MAX_ATTEMPTS = 5000;

/** Who asked for what, back to a root: `intel-cmplr-lib-ur 2026.1.0 requires umf ==1.1.*`, `umf 1.1.0 requires tcmlib >=1.5`. */
function chainOf<C extends Candidate>(state: State<C>, reqs: Requirement[]): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  let r = reqs.find((x) => x.byName) ?? reqs[0];
  while (r) {
    lines.unshift(`${r.by} requires ${requirementText(r)}`);
    const parent = r.byName;
    if (parent === undefined || seen.has(parent)) break;
    seen.add(parent);
    r = state.wants.get(parent)?.[0];
  }
  return lines;
}

/**
 * Chooses one candidate per name reachable from `roots` so that every requirement and constraint holds: names are
 * decided in the order they were first asked for, each taking the best candidate that fits everything asked of it so
 * far; a dead end goes back to the latest choice that has another candidate. Throws RESOLUTION_CONFLICT naming the
 * chain of requirements of the deepest conflict met. `limits` bind a name only where something requires it, as a
 * conda `constrains` does (the exact versions a user's PyTorch runs with, say).
 */
export async function resolve<C extends Candidate>(roots: Requirement[], provider: Provider<C>, limits: Requirement[] = []): Promise<Map<string, Resolved<C>>> {
  const start: State<C> = { chosen: new Map(), wants: new Map(), limits: new Map(), open: [] };
  for (const r of roots) addWant(start, r);
  for (const l of limits) start.limits.set(l.name, [...(start.limits.get(l.name) ?? []), l]);
  let best: Conflict | undefined;
  let attempts = 0;
  const conflict = (state: State<C>, name: string, against: Requirement[], available: string[]): void => {
    const depth = state.chosen.size;
    if (!best || depth >= best.depth) best = { name, against, available, depth, chain: chainOf(state, against) };
  };

  const step = async (state: State<C>): Promise<State<C> | undefined> => {
    const name = state.open[0];
    if (name === undefined) return state;
    if (++attempts > MAX_ATTEMPTS) {
      throw new XpuError('RESOLUTION_CONFLICT', `gave up resolving dependencies after ${MAX_ATTEMPTS} attempts (at ${name})`, {
        hints: ['pin the versions you want with --require, or name fewer packages'],
      });
    }
    const wants = [...(state.wants.get(name) ?? []), ...(state.limits.get(name) ?? [])];
    const all = await provider.candidates(name);
    const fitting = all.filter((c) => wants.every((r) => provider.satisfies(r, c)));
    if (!fitting.length) {
      conflict(state, name, wants, [...new Set(all.map(shown))]);
      return undefined;
    }
    for (const c of fitting) {
      const next: State<C> = {
        chosen: new Map(state.chosen).set(name, c),
        wants: new Map([...state.wants].map(([k, v]) => [k, [...v]])),
        limits: new Map([...state.limits].map(([k, v]) => [k, [...v]])),
        open: state.open.slice(1),
      };
      // A dependency is asked for; a constraint only binds a package that something else asks for.
      const asked: [Requirement, boolean][] = [
        ...(await provider.dependencies(c)).map((r): [Requirement, boolean] => [r, true]),
        ...(provider.constraints?.(c) ?? []).map((r): [Requirement, boolean] => [r, false]),
      ];
      let ok = true;
      for (const [r, needed] of asked) {
        const have = next.chosen.get(r.name);
        if (needed) addWant(next, r);
        else next.limits.set(r.name, [...(next.limits.get(r.name) ?? []), r]);
        if (have && !provider.satisfies(r, have)) {
          conflict(next, r.name, [...(next.wants.get(r.name) ?? []), ...(next.limits.get(r.name) ?? [])], [shown(have)]);
          ok = false;
          break;
        }
      }
      if (!ok) continue;
      const done = await step(next);
      if (done) return done;
    }
    return undefined;
  };

  const done = await step(start);
  if (!done) throw conflictError(best!);
  const out = new Map<string, Resolved<C>>();
  for (const [name, candidate] of done.chosen) {
    out.set(name, { candidate, requiredBy: done.wants.get(name) ?? [] });
  }
  return out;
}

/**
 * `resolve` from the root packages a source chose (pinned exactly), and when their closure cannot hold, from `wider`
 * (the same packages within the component's constraints and no newer), so that the resolver goes back to an older root
 * as pixi and uv do. `left` says why the chosen roots were left; when `wider` fails too (or there is none: a version the
 * user pinned), the conflict of the chosen roots is thrown, since it names the version the source offered.
 */
export async function resolveFromChoice<C extends Candidate>(
  chosen: Requirement[],
  wider: Requirement[] | undefined,
  provider: Provider<C>,
  limits: Requirement[] = [],
): Promise<{ solved: Map<string, Resolved<C>>; left?: string }> {
  try {
    return { solved: await resolve(chosen, provider, limits) };
  } catch (e) {
    if (!wider || !(e instanceof XpuError) || e.code !== 'RESOLUTION_CONFLICT' || !e.details.requirements) throw e;
    const solved = await resolve(wider, provider, limits).catch(() => {
      throw e;
    });
    return { solved, left: whyLeft(e.details as { package: string; requirements: { by: string; requires: string }[] }) };
  }
}

/** A conflict in a sentence: `intel-cmplr-lib-ur 2026.1.0 needs umf ==1.1.*, which this index lacks`. */
function whyLeft(d: { package: string; requirements: { by: string; requires: string }[] }): string {
  const needs = d.requirements.map((r) => `${r.by} needs ${r.requires}`).join(' and ');
  return d.requirements.length > 1 ? `${needs}, which no ${d.package} of this index meets together` : `${needs}, which this index lacks`;
}

function addWant<C>(state: State<C>, r: Requirement): void {
  const list = state.wants.get(r.name) ?? [];
  list.push(r);
  state.wants.set(r.name, list);
  if (!state.chosen.has(r.name) && !state.open.includes(r.name)) state.open.push(r.name);
}

function conflictError(c: Conflict): XpuError {
  const has = c.available.length ? `only ${c.available.map((v) => `${c.name} ${v}`).join(', ')} can be had` : `no ${c.name} can be had from this source`;
  return new XpuError('RESOLUTION_CONFLICT', `cannot satisfy ${c.against.map((r) => `${r.by}: ${requirementText(r)}`).join(' and ')}: ${has}`, {
    details: { package: c.name, requirements: c.against.map((r) => ({ by: r.by, requires: requirementText(r) })), available: c.available, chain: c.chain },
    hints: [...c.chain, 'pin versions that fit together with --require, or choose another source with --source'],
  });
}
