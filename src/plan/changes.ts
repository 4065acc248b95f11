// What a plan would change in its prefix, compared with the prefix's receipt: the +/- list `plan` prints.
import type { Receipt } from '../install/receipt.js';
import type { PrefixProblem } from '../install/verify.js';
import type { InstallPlan } from './plan.js';

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

function archivesOf(receipt: Receipt, component: string): string[] {
  return receipt.archives.filter((a) => a.component === component).map((a) => a.sha256).sort();
}

export function planChanges(plan: InstallPlan, receipt: Receipt | undefined, damaged: PrefixProblem[]): PlanChanges {
  const planned = plan.components.filter((c) => c.status === 'planned');
  const changes: PlanChanges = { upToDate: false, add: [], remove: [], keep: [], damaged };
  for (const c of planned) {
    const ref = { name: c.name, version: c.version!, source: `${c.source} ${c.origin}` };
    const old = receipt?.components.find((r) => r.name === c.name);
    const same = old && receipt && archivesOf(receipt, c.name).join() === c.archives.map((a) => a.sha256).sort().join();
    if (same) changes.keep.push(ref);
    else {
      if (old) changes.remove.push({ name: old.name, version: old.version, source: old.source });
      changes.add.push(ref);
    }
  }
  for (const r of receipt?.components ?? []) {
    if (!planned.some((c) => c.name === r.name)) changes.remove.push({ name: r.name, version: r.version, source: r.source });
  }
  changes.upToDate = !!receipt && receipt.planKey === plan.planKey && damaged.length === 0;
  return changes;
}
