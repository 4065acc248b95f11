// `xpu-setup plan`: print the InstallPlan without fetching or installing anything.
import type { Command } from '../command.js';
import { renderPlan } from '../render-plan.js';
import { parsePlanOptions, planOptionSpec, PLAN_USAGE } from '../setup-options.js';

export const planCommand: Command = {
  name: 'plan',
  summary: 'Resolve components to exact archives (URLs, sha256, sizes) and print the install plan.',
  usage: `xpu-setup plan ${PLAN_USAGE}`,
  options: planOptionSpec,
  async run({ deps, out, values }) {
    const opts = parsePlanOptions(values, deps);
    const { planSetup } = await import('../../pipeline.js');
    const plan = await planSetup(opts, deps, out, true);
    if (out.opts.json) out.json(plan);
    else out.result(renderPlan(plan));
    return 0;
  },
};
