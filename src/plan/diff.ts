// What a plan changes in its prefix, compared with the prefix's receipt: one comparison per component, read two ways,
// the +/- lines setup shows before anything is replaced (diffPlan) and the add/keep/remove verdict `plan` prints
// (planChanges).
import type { PrefixProblem, Receipt, ReceiptComponent } from '../records/receipt.js';
import type { SourceKind } from '../manifest/schema.js';
import { orderingOf } from '../kinds/index.js';
import { compareAcross } from '../versions/order.js';
import type { InstallPlan, PlannedComponent } from '../records/plan.js';

export type ChangeKind = 'add' | 'remove' | 'upgrade' | 'downgrade' | 'switch' | 'rebuild';

export interface Change {
  component: string;
  kind: ChangeKind;
  from?: string;
  to?: string;
}

export interface PlanDiff {
  changes: Change[];
  /** +/- lines for people. */
  lines: string[];
}

export interface ComponentRef {
  name: string;
  version: string;
  source: string;
}

export interface PlanChanges {
  /** The prefix already holds exactly this plan, every file as recorded: setup would do nothing. */
  upToDate: boolean;
  add: ComponentRef[];
  remove: ComponentRef[];
  /** Components that stay as they are (same archives). */
  keep: ComponentRef[];
  /** Installed files that no longer match the receipt; setup reinstalls to restore them. */
  damaged: PrefixProblem[];
}

/** One component as the receipt records it (`was`) and as the plan would install it (`next`). */
interface Compared {
  name: string;
  was?: ComponentRef;
  next?: ComponentRef;
  /** How version and source differ when the prefix has it and the plan keeps it; undefined when neither does. */
  kind?: ChangeKind;
  /** The same archives (by sha256): the component's files would stay as they are. */
  sameArchives: boolean;
}

const kindIn = (source: string): SourceKind => source.split(' ')[0] ?? source;
const plannedRef = (c: PlannedComponent): ComponentRef => ({ name: c.name, version: c.version!, source: `${c.source} ${c.origin}` });
const recordedRef = (c: ReceiptComponent): ComponentRef => ({ name: c.name, version: c.version, source: c.source });

function archivesOf(receipt: Receipt, component: string): string[] {
  return receipt.archives.filter((a) => a.component === component).map((a) => a.sha256).sort();
}

/** The receipt's components in its order, each with what the plan makes of it; then those only the plan has, in its order. */
function compare(receipt: Receipt | undefined, plan: InstallPlan): Compared[] {
  const planned = plan.components.filter((c) => c.status === 'planned');
  const out: Compared[] = [];
  for (const old of receipt?.components ?? []) {
    const now = planned.find((c) => c.name === old.name);
    const was = recordedRef(old);
    if (!now) {
      out.push({ name: old.name, was, sameArchives: false });
      continue;
    }
    const next = plannedRef(now);
    const sourceChanged = was.source !== next.source;
    const order = compareAcross({ ordering: orderingOf(kindIn(old.source)), version: old.version }, { ordering: orderingOf(now.source!), version: now.version! });
    const kind: ChangeKind | undefined =
      !sourceChanged && order === 0 ? undefined : order > 0 ? 'downgrade' : sourceChanged ? 'switch' : order < 0 ? 'upgrade' : 'rebuild';
    const sameArchives = archivesOf(receipt!, old.name).join() === now.archives.map((a) => a.sha256).sort().join();
    out.push({ name: old.name, was, next, kind, sameArchives });
  }
  for (const c of planned) if (!out.some((x) => x.name === c.name)) out.push({ name: c.name, next: plannedRef(c), sameArchives: false });
  return out;
}

const said = (r: ComponentRef): string => `${r.version} from ${r.source}`;

/** Setup's reading: by component, gone, new, another version, another source (kind or origin). */
export function diffPlan(receipt: Receipt | undefined, plan: InstallPlan): PlanDiff {
  const changes: Change[] = [];
  const lines: string[] = [];
  for (const { name, was, next, kind } of compare(receipt, plan)) {
    if (was && !next) {
      changes.push({ component: name, kind: 'remove', from: said(was) });
      lines.push(`- ${name} ${said(was)}`);
    } else if (next && !was) {
      changes.push({ component: name, kind: 'add', to: said(next) });
      if (receipt) lines.push(`+ ${name} ${said(next)}`);
    } else if (was && next && kind) {
      changes.push({ component: name, kind, from: said(was), to: said(next) });
      lines.push(`- ${name} ${said(was)}`, `+ ${name} ${said(next)}${kind === 'downgrade' ? '   (downgrade)' : kind === 'switch' ? '   (another source)' : ''}`);
    }
  }
  return { changes, lines };
}

/** `plan`'s reading: by archives, what setup would keep, add and remove, and whether it would do nothing at all. */
export function planChanges(plan: InstallPlan, receipt: Receipt | undefined, damaged: PrefixProblem[]): PlanChanges {
  const compared = compare(receipt, plan);
  const changes: PlanChanges = { upToDate: false, add: [], remove: [], keep: [], damaged };
  for (const c of plan.components.filter((x) => x.status === 'planned')) {
    const { was, next, sameArchives } = compared.find((x) => x.name === c.name)!;
    if (sameArchives) changes.keep.push(next!);
    else {
      if (was) changes.remove.push(was);
      changes.add.push(next!);
    }
  }
  for (const { was, next } of compared) if (was && !next) changes.remove.push(was);
  changes.upToDate = !!receipt && receipt.planKey === plan.planKey && damaged.length === 0;
  return changes;
}
