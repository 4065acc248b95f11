// What makes two plans the same prefix (the plan key) and the plan's schema: small, so a run that reuses a plan
// (lockfile, receipt, a recent plan) never loads the planner and its index clients.
import { createHash } from 'node:crypto';
import type { TargetPlatform } from '../host/types.js';
import type { PlannedComponent } from './plan.js';

export const PLAN_SCHEMA = 1;
/** Bumped when the prefix layout written from the same archives changes, so old prefixes are rebuilt. */
const LAYOUT_VERSION = 1;

export function planKeyOf(platform: TargetPlatform, components: PlannedComponent[], extra: unknown = null): string {
  const essence = components
    .filter((c) => c.status === 'planned')
    .map((c) => ({ name: c.name, archives: c.archives.map((a) => ({ sha256: a.sha256, map: a.map })) }));
  return createHash('sha256').update(JSON.stringify({ LAYOUT_VERSION, platform, essence, extra })).digest('hex');
}
