// What makes two plans the same prefix (the plan key), the plan's schema and its one constructor: small, so a run that
// reuses a plan (lockfile, receipt, a recent plan) never loads the planner and its index clients.
import { createHash } from 'node:crypto';
import type { Host, TargetPlatform } from '../platform/types.js';
import { VERSION } from '../base/version.js';
import { PLAN_SCHEMA, type InstallPlan, type PlannedComponent } from '../records/plan.js';

/** Bumped when the prefix layout written from the same archives changes, so old prefixes are rebuilt. */
const LAYOUT_VERSION = 1;

export function planKeyOf(platform: TargetPlatform, components: PlannedComponent[], extra: unknown = null): string {
  const essence = components
    .filter((c) => c.status === 'planned')
    .map((c) => ({ name: c.name, archives: c.archives.map((a) => ({ sha256: a.sha256, map: a.map })) }));
  return createHash('sha256').update(JSON.stringify({ LAYOUT_VERSION, platform, essence, extra })).digest('hex');
}

/** An InstallPlan of these components for this host and prefix, planned from the indexes or read from a lockfile. */
export function newInstallPlan(host: Host, where: { prefix: string; cacheDir: string }, components: PlannedComponent[]): InstallPlan {
  return {
    schema: PLAN_SCHEMA,
    tool: { name: 'xpu-setup', version: VERSION },
    platform: host.platform,
    host: { native: host.native, distro: host.distro?.prettyName, glibc: host.glibc },
    prefix: where.prefix,
    cacheDir: where.cacheDir,
    components,
    planKey: planKeyOf(host.platform, components),
  };
}
