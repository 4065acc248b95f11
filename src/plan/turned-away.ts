// What an install refusal says about the candidates the plan chose: the components whose own package lacks a file
// their roles require, or whose libraries do not load here, become verdicts the next plan turns away.
import { XpuError } from '../base/errors.js';
import { verdictHost, type Verdict } from '../cache/verdicts.js';
import type { InstallPlan } from '../records/plan.js';

/** The verdicts a PREFIX_CHECK refusal of `plan` gives; empty when it names no component or is another error. */
export function verdictsFrom(e: unknown, plan: InstallPlan): Verdict[] {
  if (!(e instanceof XpuError) || e.code !== 'PREFIX_CHECK') return [];
  const d = e.details as { component?: string; components?: string[]; host?: boolean; problems?: string[] };
  const names = d.components ?? (d.component ? [d.component] : []);
  const host = d.host ? verdictHost({ platform: plan.platform, glibc: plan.host.glibc }) : undefined;
  return names.flatMap((name) => {
    const c = plan.components.find((x) => x.name === name && x.status === 'planned');
    // Its own packages, not what they depend on: a resolution with all of them is this candidate again.
    const own = c?.archives.filter((a) => !a.requiredBy?.length) ?? [];
    if (!c || !own.length) return [];
    const why = d.host ? loadProblem(d.problems ?? [], c.provides.map((x) => x.path)) ?? e.message : e.message.replace(`${c.name} ${c.version} from ${c.origin} `, '');
    return [{ component: name, candidate: `${c.source} ${own.map((a) => `${a.package} ${a.version}`).join(', ')}`, archives: own.map((a) => a.sha256).sort(), why, ...(host ? { host } : {}) }];
  });
}

/** The one line that says why the component's libraries do not load: a glibc too old for them first, as no package can fix it. */
function loadProblem(problems: readonly string[], paths: readonly string[]): string | undefined {
  const own = problems.filter((p) => paths.some((x) => p.startsWith(x)));
  return own.find((p) => / needs GLIBC_/.test(p)) ?? own[0];
}
