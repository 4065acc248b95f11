// One choice per component, over each component's candidates (its versions from its sources, best first), as a pure
// ordered backtracking search over a provider: every rule is a need one candidate has of another component.
import { XpuError } from '../base/errors.js';

/** What a candidate needs of another component: `level-zero>=1.25`, and why. */
export interface Need {
  component: string;
  /** The constraint as people and the provider read it (`level-zero>=1.25`). */
  constraint: string;
  why?: string;
}

/** A candidate turned away, and why: `2026.2.0 (pypi): needs level-zero>=1.25; the newest reachable is 1.8.12 (apt)`. */
export interface RejectedCandidate {
  candidate: string;
  why: string;
}

/** What the search asks; the indexes, the host and the cache sit behind it, so the search is tested with tables. */
export interface SettleProvider<C> {
  /**
   * The `i`-th candidate of `component` that meets every one of `needs`, in order of preference (the user's
   * constraints already applied, then what works here, then the manifest's source order, then newest); undefined past
   * the last. The provider may use the needs to narrow its query; the search checks them again with `satisfies`.
   */
  candidate(component: string, needs: readonly Need[], i: number): Promise<C | undefined>;
  satisfies(need: Need, c: C): boolean;
  /** What `c` needs of other components. */
  needs(c: C): readonly Need[];
  /** The candidate for people: `2026.2.0 (pypi)`. */
  label(c: C): string;
}

export interface Settled<C> {
  /** The choice per component; a component with no candidate at all is absent (a need on it is left to the host). */
  chosen: Map<string, C>;
  /** Per component, the candidates turned away before the chosen one, in the order they were tried. */
  rejected: Map<string, RejectedCandidate[]>;
}

/** Candidates tried per component and set of needs before the search gives up on it: a bound on work. */
export const MAX_CANDIDATES = 200;

/**
 * Chooses one candidate per component in `order` so that every need of every choice holds. Components are decided in
 * that order (a component that others need comes after them, so a newer needer moves the needed one rather than the
 * other way round); each takes its first candidate that meets what the choices so far need of it, whose own needs on
 * components already decided hold, and whose needs on components still open some candidate meets; a dead end goes
 * back to the latest choice that has another candidate. Throws RESOLUTION_CONFLICT listing, per component, each
 * candidate turned away and why.
 */
export async function settle<C>(order: readonly string[], provider: SettleProvider<C>): Promise<Settled<C>> {
  // Everything turned away anywhere in the search, for the error when nothing works.
  const everything = new Map<string, RejectedCandidate[]>(order.map((n) => [n, []]));
  const note = (list: RejectedCandidate[], r: RejectedCandidate): void => {
    if (!list.some((x) => x.candidate === r.candidate && x.why === r.why)) list.push(r);
  };
  // Whether a component has any candidate at all: one with none is left out, and needs on it bind nothing.
  const present = new Map<string, boolean>();
  for (const n of order) present.set(n, (await provider.candidate(n, [], 0)) !== undefined);
  const later = (k: number, name: string): boolean => order.indexOf(name) > k;

  /** Why `own` cannot hold beside the choices so far, or undefined when it can. */
  const unmet = async (k: number, own: readonly Need[], chosen: Map<string, C>, needsOn: Map<string, Need[]>): Promise<string | undefined> => {
    for (const n of own) {
      const have = chosen.get(n.component);
      if (have !== undefined) {
        if (!provider.satisfies(n, have)) return `needs ${n.constraint}; ${n.component} is ${provider.label(have)}`;
        continue;
      }
      if (!later(k, n.component)) continue;
      const already = needsOn.get(n.component) ?? [];
      if ((await provider.candidate(n.component, [...already, n], 0)) === undefined) {
        const best = await provider.candidate(n.component, already, 0);
        return `needs ${n.constraint}; ${best ? `the newest reachable is ${provider.label(best)}` : `no ${n.component} is reachable`}`;
      }
    }
    return undefined;
  };

  const step = async (k: number, chosen: Map<string, C>, needsOn: Map<string, Need[]>): Promise<Settled<C> | undefined> => {
    const name = order[k];
    if (name === undefined) return { chosen, rejected: new Map() };
    if (!present.get(name)) return step(k + 1, chosen, needsOn);
    const wanted = needsOn.get(name) ?? [];
    // Turned away on this branch: what the plan says of the choice when the branch holds.
    const here: RejectedCandidate[] = [];
    for (let i = 0; i < MAX_CANDIDATES; i++) {
      const c = await provider.candidate(name, wanted, i);
      if (c === undefined) break;
      if (!wanted.every((n) => provider.satisfies(n, c))) continue;
      const own = provider.needs(c).filter((n) => present.get(n.component) && order.includes(n.component));
      let why = await unmet(k, own, chosen, needsOn);
      if (!why) {
        const next = new Map(needsOn);
        for (const n of own.filter((x) => later(k, x.component))) next.set(n.component, [...(next.get(n.component) ?? []), n]);
        const done = await step(k + 1, new Map(chosen).set(name, c), next);
        if (done) return { chosen: done.chosen, rejected: new Map(done.rejected).set(name, here) };
        why = `no choice of ${order.slice(k + 1).filter((n) => present.get(n)).join(', ')} goes with it`;
      }
      const r = { candidate: provider.label(c), why };
      note(here, r);
      note(everything.get(name)!, r);
    }
    return undefined;
  };

  const settled = await step(0, new Map(), new Map());
  if (!settled) throw settleError(order, everything);
  return settled;
}

function settleError(order: readonly string[], rejected: Map<string, RejectedCandidate[]>): XpuError {
  const tried = order.flatMap((n) => (rejected.get(n) ?? []).map((r) => `${n} ${r.candidate}: ${r.why}`));
  const stuck = order.filter((n) => rejected.get(n)?.length);
  return new XpuError('RESOLUTION_CONFLICT', `no choice of ${stuck.join(', ') || order.join(', ')} works together here`, {
    details: { components: [...order], rejected: Object.fromEntries(order.map((n) => [n, rejected.get(n) ?? []])) },
    hints: tried.map((t) => `tried ${t}`),
  });
}
