// `xpu-setup plan`: print the InstallPlan without fetching or installing anything.
import { planSetup } from '../../pipeline.js';
import type { Command } from '../command.js';
import { renderPlan } from '../render-plan.js';
import { parsePlanOptions } from '../setup-options.js';

export const planCommand: Command = {
  name: 'plan',
  async run({ deps, out, values }) {
    const opts = parsePlanOptions(values, deps);
    const plan = await planSetup(opts, deps, out, true);
    if (out.opts.json) out.json(plan);
    else out.result(renderPlan(plan));
    return 0;
  },
};

export const run = planCommand.run;
