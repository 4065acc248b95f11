// `xpu-setup smoke`: run the vector-add kernel on one device (the first, or --device) and check every value.
import { smokeInstalled } from '../../pipeline/probe.js';
import { str, type Command } from '../command.js';
import { runtimeTarget } from '../runtime-prefix.js';

export const smokeCommand: Command = {
  name: 'smoke',
  async run(ctx) {
    const target = await runtimeTarget(ctx, 'smoke');
    if (target.kind === 'prefix' && target.rerun !== undefined) return target.rerun;
    const r = await smokeInstalled(target.kind === 'prefix' ? target.prefix : undefined, target.deps, ctx.out, {
      device: str(ctx.values, 'device'),
      ocloc: str(ctx.values, 'ocloc'),
      oclocDevice: str(ctx.values, 'ocloc-device'),
    });
    if (ctx.out.opts.json) {
      ctx.out.json(r);
      return 0;
    }
    const o = r.ocloc;
    const compiled = 'skipped' in o
      ? `ocloc: not run: ${o.skipped}`
      : `ocloc: ${o.ocloc} (${o.via}) compiled it for ${o.device}: a zebin of ${o.bytes} bytes (EM_INTEL_GEN, ${o.sections.filter((s) => s.startsWith('.text.')).join(', ')}) in ${o.ms.toFixed(0)} ms`;
    if (!r.ran) {
      ctx.out.result([`compiled only: the kernel was not run (${String(r.notRun.message ?? 'no device')})`, compiled].join('\n'));
      return 0;
    }
    const t = r.timings;
    ctx.out.result([
      `ok: ${r.kernel} on ${r.device} (${r.deviceType}, device ${r.deviceId}), ${r.checked} values checked, ${r.submission}`,
      `init ${t.initMs.toFixed(2)} ms, module build ${t.moduleBuildMs.toFixed(2)} ms, first launch ${t.firstLaunchMs.toFixed(3)} ms, steady launch ${t.steadyMedianMs.toFixed(3)} ms (median of ${t.steadyRuns})`,
      compiled,
    ].join('\n'));
    return 0;
  },
};

export const run = smokeCommand.run;
