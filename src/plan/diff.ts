// What a plan changes in a prefix compared with its receipt: the +/- lines shown before anything is replaced.
import type { Receipt } from '../install/receipt.js';
import type { SourceKind } from '../manifest/schema.js';
import { compareAcross } from '../sources/order.js';
import type { InstallPlan } from './plan.js';

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

const kindOf = (source: string): SourceKind => (source.split(' ')[0] ?? source) as SourceKind;

/** Compares by component: gone, new, another version, another source (kind or origin). */
export function diffPlan(receipt: Receipt | undefined, plan: InstallPlan): PlanDiff {
  const changes: Change[] = [];
  const lines: string[] = [];
  const planned = plan.components.filter((c) => c.status === 'planned');
  const before = receipt?.components ?? [];
  for (const old of before) {
    const now = planned.find((c) => c.name === old.name);
    const was = `${old.version} from ${old.source}`;
    if (!now) {
      changes.push({ component: old.name, kind: 'remove', from: was });
      lines.push(`- ${old.name} ${was}`);
      continue;
    }
    const next = `${now.version} from ${now.source} ${now.origin}`;
    const sourceChanged = old.source !== `${now.source} ${now.origin}`;
    const order = compareAcross({ kind: kindOf(old.source), version: old.version }, { kind: now.source!, version: now.version! });
    if (!sourceChanged && order === 0) continue;
    const kind: ChangeKind = order > 0 ? 'downgrade' : sourceChanged ? 'switch' : order < 0 ? 'upgrade' : 'rebuild';
    changes.push({ component: old.name, kind, from: was, to: next });
    lines.push(`- ${old.name} ${was}`, `+ ${old.name} ${next}${kind === 'downgrade' ? '   (downgrade)' : kind === 'switch' ? '   (another source)' : ''}`);
  }
  for (const c of planned) {
    if (before.some((b) => b.name === c.name)) continue;
    const to = `${c.version} from ${c.source} ${c.origin}`;
    changes.push({ component: c.name, kind: 'add', to });
    if (receipt) lines.push(`+ ${c.name} ${to}`);
  }
  return { changes, lines };
}
