// `xpu-setup plan`: what setup would do, without fetching or installing anything; the same verdict and exit code.
import { readReceipt } from '../../install/receipt.js';
import { verifyPrefix } from '../../install/verify.js';
import { planChanges } from '../../plan/changes.js';
import { assertInstallable, planSetup } from '../../pipeline.js';
import type { Command } from '../command.js';
import { renderChanges, renderPlan } from '../render-plan.js';
import { parsePlanOptions } from '../setup-options.js';

export const planCommand: Command = {
  name: 'plan',
  async run({ deps, out, values }) {
    const opts = parsePlanOptions(values, deps);
    const plan = await planSetup(opts, deps, out, true);
    await assertInstallable(plan);
    const receipt = await readReceipt(plan.prefix).catch(() => undefined);
    const changes = planChanges(plan, receipt, receipt ? await verifyPrefix(plan.prefix, receipt) : []);
    if (out.opts.json) out.json({ ...plan, changes });
    else out.result(`${renderPlan(plan)}\n${renderChanges(plan, changes)}`);
    return 0;
  },
};

export const run = planCommand.run;
