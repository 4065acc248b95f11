// The components of a request settled together (versions/settle.ts): each component's candidates come from planning it
// again under what the others need of it and without the versions already turned away; the plan says why a choice was
// not the first candidate.
import { XpuError } from '../base/errors.js';
import { orderingOf } from '../kinds/index.js';
import type { ComponentManifest } from '../manifest/schema.js';
import { meets, meetsAll, parseConstraint } from '../versions/order.js';
import { settle, type Need, type SettleProvider } from '../versions/settle.js';
import { unmetNeedError } from './needs.js';
import type { PlannedComponent, TorchMatch } from '../records/plan.js';

/** Plans one component with extra constraints (`level-zero>=1.25`, `unified-runtime!=2026.2.0`) besides the request's. */
export type PlanOne = (m: ComponentManifest, extra: string[]) => Promise<PlannedComponent>;

/** A need as the search carries it, with the manifest's need it came from and who asked. */
interface SourcedNeed extends Need {
  by: PlannedComponent;
  manifest: NonNullable<ComponentManifest['needs']>[number];
}

const label = (c: PlannedComponent): string => `${c.version} (${c.source})`;

/** Decided first: a component that others need comes after them, so a newer needer moves what it needs rather than the reverse. */
function searchOrder(manifests: readonly ComponentManifest[]): string[] {
  const needed = new Set(manifests.flatMap((m) => (m.needs ?? []).map((n) => n.component)));
  return [...manifests.filter((m) => !needed.has(m.name)), ...manifests.filter((m) => needed.has(m.name))].map((m) => m.name);
}

interface PlannerProvider extends SettleProvider<PlannedComponent> {
  /** The component as planned under `needs` when that planned nothing: its attempts say what each source offered. */
  unplanned(component: string, needs: readonly Need[]): PlannedComponent | undefined;
}

/**
 * The provider over the planner: candidate `i` of a component under some needs is the plan of it under those needs
 * and without candidates 0..i-1, memoized per component and needs. `first` is each component as planned alone.
 */
function plannerProvider(manifests: readonly ComponentManifest[], first: Map<string, PlannedComponent>, planOne: PlanOne): PlannerProvider {
  const lists = new Map<string, { list: PlannedComponent[]; done: boolean; none?: PlannedComponent }>();
  const keyOf = (component: string, needs: readonly Need[]): string => [component, ...needs.map((n) => n.constraint).sort()].join('\n');
  const satisfies = (n: Need, c: PlannedComponent): boolean => !!c.version && !!c.source && meets(c.version, parseConstraint(n.constraint), orderingOf(c.source));
  return {
    satisfies,
    label,
    unplanned: (component, needs) => lists.get(keyOf(component, needs))?.none,
    needs(c) {
      const m = manifests.find((x) => x.name === c.name);
      if (!c.version || !c.source) return [];
      return (m?.needs ?? [])
        .filter((n) => meetsAll(c.version!, [parseConstraint(`${c.name}${n.versions}`)], orderingOf(c.source!)))
        .map((n): SourcedNeed => ({ component: n.component, constraint: `${n.component}${n.version}`, why: n.why, by: c, manifest: n }));
    },
    async candidate(component, needs, i) {
      const key = keyOf(component, needs);
      const at = lists.get(key) ?? { list: [], done: false };
      lists.set(key, at);
      const m = manifests.find((x) => x.name === component)!;
      while (at.list.length <= i && !at.done) {
        const extra = [...new Set(needs.map((n) => n.constraint))];
        const except = at.list.map((c) => `${component}!=${c.version}`);
        // The component as planned alone is the first candidate under any needs it already meets: no index is asked again.
        const alone = first.get(component)!;
        const reuse = !at.list.length && (!needs.length || (alone.status === 'planned' && needs.every((n) => satisfies(n, alone))));
        const pc = reuse ? alone : await planOne(m, [...extra, ...except]).catch((e: unknown) => {
          // Another candidate that cannot be had ends the list; the component's own first answer was planned alone.
          if (e instanceof XpuError) return undefined;
          throw e;
        });
        if (pc?.status !== 'planned' && !at.list.length) at.none = pc;
        if (pc?.status !== 'planned' || at.list.some((c) => c.version === pc.version && c.source === pc.source)) {
          at.done = true;
          break;
        }
        // The versions turned away steer the search; the component's constraints are the request's and the needs'.
        const kept = pc.constraints?.filter((t) => !except.includes(t)) ?? [];
        if (kept.length) pc.constraints = kept;
        else delete pc.constraints;
        at.list.push(pc);
      }
      return at.list[i];
    },
  };
}

/**
 * Settles the components planned alone (`first`, in manifest order) against one another's needs. A component none of
 * whose candidates can be had stays as planned alone. Each choice that was not its component's first candidate says
 * why in one line (`choice`, and a note).
 */
export async function chooseTogether(
  manifests: readonly ComponentManifest[],
  first: PlannedComponent[],
  planOne: PlanOne,
  torch?: TorchMatch,
): Promise<PlannedComponent[]> {
  if (!manifests.some((m) => m.needs?.length)) return first;
  const byName = new Map(first.map((c) => [c.name, c]));
  const provider = plannerProvider(manifests, byName, planOne);
  const order = searchOrder(manifests);
  let settled;
  try {
    settled = await settle(order, provider);
  } catch (e) {
    if (e instanceof XpuError && e.code === 'RESOLUTION_CONFLICT' && e.details.rejected) throw await conflictError(e, manifests, byName, provider, torch);
    throw e;
  }
  return first.map((alone) => {
    const c = settled.chosen.get(alone.name);
    if (!c || c === alone) return alone;
    const rejected = settled.rejected.get(alone.name) ?? [];
    const movedBy = [...settled.chosen.values()].flatMap((x) => provider.needs(x) as SourcedNeed[]).filter((n) => n.component === alone.name && !provider.satisfies(n, alone));
    const why = rejected.length
      ? [...new Set(rejected.map((r) => r.why))].map((w) => `${rejected.filter((r) => r.why === w).map((r) => r.candidate).join(', ')}: ${w}`).join('; ')
      : movedBy.map((n) => `${n.by.name} ${n.by.version} needs ${n.constraint}`).join('; ');
    const line = `${c.name} ${c.version} from ${c.source} (${why})`;
    c.choice = { line, rejected, ...(movedBy.length ? { neededBy: movedBy.map((n) => `${n.by.name} ${n.by.version} needs ${n.constraint} (${n.why})`) } : {}) };
    for (const n of movedBy) c.notes.push(`${c.name} ${c.version}: ${n.by.name} ${n.by.version} needs ${n.constraint} (${n.why})`);
    if (rejected.length) c.notes.push(line);
    return c;
  });
}

/**
 * Nothing works: said as the need that could not be met (what needs what and why, what was reachable, the ways out),
 * followed by every candidate turned away.
 */
async function conflictError(
  e: XpuError,
  manifests: readonly ComponentManifest[],
  first: Map<string, PlannedComponent>,
  provider: PlannerProvider,
  torch?: TorchMatch,
): Promise<XpuError> {
  const tried = e.hints;
  for (const by of first.values()) {
    const need = (provider.needs(by) as SourcedNeed[]).find((n) => first.get(n.component)?.status === 'planned' && !provider.satisfies(n, first.get(n.component)!));
    if (!need) continue;
    const target = first.get(need.component)!;
    const m = manifests.find((x) => x.name === need.component)!;
    await provider.candidate(need.component, [need], 0);
    const attempts = (provider.unplanned(need.component, [need])?.attempts ?? []).map((a) => `${m.name}: ${a.reason}`);
    const err = unmetNeedError({ by, need: need.manifest, target, constraint: need.constraint }, attempts, torch);
    return new XpuError(err.code, err.message, { details: { ...err.details, rejected: e.details.rejected }, hints: [...err.hints.slice(0, -1), ...tried, ...err.hints.slice(-1)] });
  }
  return e;
}
