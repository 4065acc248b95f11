// `xpu-setup` / `xpu-setup setup`: the whole job, then a short account of what was done and how to use it.
import type { SetupOptions, SetupResult } from '../../pipeline.js';
import type { Command, Values } from '../command.js';
import type { Output } from '../output.js';
import { renderPlan } from '../render-plan.js';
import { parsePlanOptions, planOptionSpec, PLAN_USAGE } from '../setup-options.js';

function summary(r: SetupResult, out: Output, seconds: string): void {
  for (const n of r.install.notes) out.warn(n);
  if (!r.install.changed) out.line(`${r.plan.prefix} is up to date (${r.install.receipt.files.length} files match the receipt)`);
  if (r.verifySkipped) out.line(`not verified: ${r.verifySkipped}`);
  const v = r.verify;
  if (v?.probe.ok) {
    for (const d of v.probe.value.devices) out.line(`device: ${d.name} (${d.arch.name})`);
  }
  if (v?.smoke.ok) {
    const s = v.smoke.value;
    out.line(`smoke: ${s.kernel} computed and checked ${s.checked} values on ${s.device} (first launch ${s.timings.firstLaunchMs.toFixed(2)} ms, steady ${s.timings.steadyMedianMs.toFixed(3)} ms)`);
  }
  if (r.refdriver) out.line(`the active Level Zero device is the CPU reference driver ${r.refdriver.output}, not an Intel GPU`);
  out.line(`done in ${seconds} s. To use it: . ${r.plan.prefix}/env.sh   (or: eval "$(xpu-setup env --prefix ${r.plan.prefix})")`);
}

function setupOptions(values: Values, deps: Parameters<Command['run']>[0]['deps']): SetupOptions {
  return {
    ...parsePlanOptions(values, deps),
    refdriver: !!values.refdriver,
    smoke: !values['no-smoke'],
    requireDevice: !!values['require-device'],
    verify: !values['no-probe'],
    rehash: !!values.verify,
    reprobe: !!values.probe,
    resmoke: !!values.smoke,
  };
}

export const setupCommand: Command = {
  name: 'setup',
  summary: 'Install Level Zero and Unified Runtime into a prefix, verified, then build, probe and smoke-test (the default command).',
  usage: `xpu-setup [setup] ${PLAN_USAGE} [--dry-run] [--refdriver] [--no-smoke] [--no-probe] [--require-device]
    [--refresh] [--verify] [--probe] [--smoke]`,
  options: {
    ...planOptionSpec,
    'dry-run': { type: 'boolean' },
    refdriver: { type: 'boolean' },
    'no-smoke': { type: 'boolean' },
    'no-probe': { type: 'boolean' },
    'require-device': { type: 'boolean' },
    // A re-run reuses a plan made for the same request in the last 10 minutes, trusts files whose size and mtime match
    // the receipt, and the receipt's probe when nothing it depends on changed; these ask again.
    verify: { type: 'boolean' },
    probe: { type: 'boolean' },
    refresh: { type: 'boolean' },
    smoke: { type: 'boolean' },
  },
  async run({ deps, out, values }) {
    const started = deps.now();
    const opts = setupOptions(values, deps);
    const { planSetup, runSetup } = await import('../../pipeline.js');
    const plan = await planSetup(opts, deps, out, false, { recent: !values.refresh });
    if (values['dry-run']) {
      if (out.opts.json) out.json({ ok: true, dryRun: true, plan });
      else out.result(renderPlan(plan));
      return 0;
    }
    if (!out.opts.json) out.line(renderPlan(plan));
    const r = await runSetup(plan, opts, deps, out);
    const seconds = ((deps.now() - started) / 1000).toFixed(1);
    summary(r, out, seconds);
    if (out.opts.json) {
      out.json({
        ok: true,
        prefix: r.install.prefix,
        changed: r.install.changed,
        seconds: Number(seconds),
        components: r.install.receipt.components,
        notes: r.install.notes,
        refdriver: r.refdriver?.output,
        verify: r.verify,
        verifySkipped: r.verifySkipped,
        env: r.install.receipt.extraEnv ?? {},
        plan,
      });
    }
    return 0;
  },
};
