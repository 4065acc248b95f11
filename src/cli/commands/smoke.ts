// `xpu-setup smoke`: run the vector-add kernel on one device (the first, or --device) and check every value.
import { findSystemLoader } from '../../probe/probe.js';
import { XpuError } from '../../errors.js';
import { runSmoke } from '../../smoke/index.js';
import { str, type Command } from '../command.js';
import { runtimeTarget } from '../runtime-prefix.js';

export const smokeCommand: Command = {
  name: 'smoke',
  async run(ctx) {
    const target = await runtimeTarget(ctx);
    let loaderPath: string | undefined;
    if (target.kind === 'system') {
      const found = await findSystemLoader(ctx.deps);
      if (!found.zeLoader) throw new XpuError('NOT_FOUND', 'no Level Zero loader on this system', { details: { tried: found.tried } });
      loaderPath = found.zeLoader;
    }
    const r = await runSmoke(target.kind === 'prefix' ? target.prefix : '', { deps: ctx.deps, reporter: ctx.out, loaderPath, device: str(ctx.values, 'device') });
    if (ctx.out.opts.json) {
      ctx.out.json(r);
      return 0;
    }
    const t = r.timings;
    ctx.out.result([
      `ok: ${r.kernel} on ${r.device} (${r.deviceType}, device ${r.deviceId}), ${r.checked} values checked, ${r.submission}`,
      `init ${t.initMs.toFixed(2)} ms, module build ${t.moduleBuildMs.toFixed(2)} ms, first launch ${t.firstLaunchMs.toFixed(3)} ms, steady launch ${t.steadyMedianMs.toFixed(3)} ms (median of ${t.steadyRuns})`,
    ].join('\n'));
    return 0;
  },
};

export const run = smokeCommand.run;
