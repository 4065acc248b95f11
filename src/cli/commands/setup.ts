// `xpu-setup` / `xpu-setup setup`: detect -> plan -> fetch -> install (then build, probe and smoke when available).
import { XpuError } from '../../errors.js';
import { fetchPlan } from '../../fetch/fetch.js';
import { detectHost } from '../../host/index.js';
import { checkPrefixOwnership, installPlan, isUpToDate } from '../../install/install.js';
import { withPrefixLock } from '../../install/lock.js';
import { loadManifests } from '../../manifest/load.js';
import { makePlan } from '../../plan/plan.js';
import type { Command } from '../command.js';
import { renderPlan } from '../render-plan.js';
import { parsePlanOptions, planOptionSpec, PLAN_USAGE } from '../setup-options.js';

export const setupCommand: Command = {
  name: 'setup',
  summary: 'Install Level Zero and Unified Runtime into a prefix, verified, with env files (the default command).',
  usage: `xpu-setup [setup] ${PLAN_USAGE} [--dry-run]`,
  options: { ...planOptionSpec, 'dry-run': { type: 'boolean' } },
  async run({ deps, out, values }) {
    const started = deps.now();
    const opts = parsePlanOptions(values, deps);
    const host = await detectHost(deps, opts.platform);
    const plan = await makePlan(host, await loadManifests(opts.manifestsDir), opts.plan, deps, out);
    const planned = plan.components.filter((c) => c.status === 'planned');
    if (values['dry-run']) {
      if (out.opts.json) out.json({ ok: true, dryRun: true, plan });
      else out.result(renderPlan(plan));
      return 0;
    }
    if (!planned.length) {
      const tried = plan.components.flatMap((c) => c.attempts.map((a) => `${c.name}: ${a.reason}`));
      throw new XpuError('NO_SOURCE', `no component could be planned for ${plan.platform}`, {
        details: { attempts: tried },
        hints: [...tried.map((t) => `tried ${t}`), 'check the index URLs (--conda-channel, --index-url), your network and proxy'],
      });
    }
    if (!out.opts.json) out.line(renderPlan(plan));
    const result = await withPrefixLock(plan.prefix, async () => {
      await checkPrefixOwnership(plan.prefix);
      const current = await isUpToDate(plan);
      if (current) return { prefix: plan.prefix, changed: false, receipt: current, notes: [] as string[] };
      const fetched = await fetchPlan(plan, deps, out);
      return installPlan(plan, fetched, out);
    });
    const seconds = ((deps.now() - started) / 1000).toFixed(1);
    for (const n of result.notes) out.warn(n);
    if (!result.changed) out.line(`${plan.prefix} is up to date (verified ${result.receipt.files.length} files against the receipt)`);
    out.line(`done in ${seconds} s. To use it: . ${plan.prefix}/env.sh   (or: eval "$(xpu-setup env --prefix ${plan.prefix})")`);
    if (out.opts.json) {
      out.json({
        ok: true,
        prefix: result.prefix,
        changed: result.changed,
        seconds: Number(seconds),
        components: result.receipt.components,
        notes: result.notes,
        plan,
      });
    }
    return 0;
  },
};
