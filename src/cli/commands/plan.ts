// `xpu-setup plan`: what setup would do, without fetching or installing anything; the same verdict and exit code.
import { readPrefixState } from '../../prefix/prefix-state.js';
import { planSetup, prefixChanges } from '../../pipeline/plan.js';
import { openRunIndex } from '../../pipeline/run-index.js';
import { afterInstall, assertInstallable, type AfterInstall } from '../../pipeline/settle.js';
import type { Command } from '../command.js';
import { renderChanges, renderPlan } from '../render-plan.js';
import { parseSetupOptions } from '../setup-options.js';

/** The line that says what setup would do after installing, with the same flags. */
function renderAfter(a: AfterInstall, upToDate: boolean): string {
  if (a.skipped) return `then: nothing is built or run (${a.skipped.replace(/^--no-probe: .*/, '--no-probe')})`;
  const steps = [a.refdriver ? 'build the CPU reference driver' : '', 'build the runtime addon', 'probe the devices', a.smoke ? 'run the smoke kernel' : ''].filter(Boolean).join(', ');
  const device = a.requireDevice ? ' (no device is an error)' : '';
  // Nothing to install: what setup still does is give the recorded answers again, or look again when they are stale.
  if (upToDate) return `then: the recorded build, probe and smoke answers, if the drivers and environment they came from are unchanged; else ${steps}${device}`;
  return `then: ${steps}${device}; answers recorded for unchanged drivers and environment are reused`;
}

export const planCommand: Command = {
  name: 'plan',
  async run({ deps, out, values }) {
    // Every option of setup is taken, so a command line can be pasted into both: each says what setup would do.
    const opts = parseSetupOptions(values, deps);
    const prefix = await readPrefixState(opts.plan.prefix);
    const index = openRunIndex(opts, deps, out);
    const plan = await out.during('plan: reading the package indexes', () => planSetup(opts, deps, out, { withExisting: true, prefix, index }));
    await assertInstallable(plan);
    const changes = await prefixChanges(plan, prefix, { rehash: opts.rehash });
    const then = afterInstall(plan, opts);
    if (out.opts.json) out.json({ ...plan, changes, then: { ...then, limits: opts.limits } });
    else out.result(`${renderPlan(plan, { full: true })}\n${renderChanges(plan, changes)}\n${renderAfter(then, changes.upToDate)}`);
    return 0;
  },
};

export const run = planCommand.run;
