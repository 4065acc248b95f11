// `xpu-setup smoke`: run the vector-add kernel on the first device and check every value.
import type { Command } from '../command.js';
import { runtimePrefix } from '../runtime-prefix.js';

export const smokeCommand: Command = {
  name: 'smoke',
  summary: 'Run a SPIR-V vector-add kernel through Level Zero, check the results and time it',
  usage: 'xpu-setup smoke [--prefix DIR] [--json]',
  options: {
    prefix: { type: 'string' },
  },
  async run(ctx) {
    const prefix = await runtimePrefix(ctx);
    const { runSmoke } = await import('../../smoke/index.js');
    const r = await runSmoke(prefix, { deps: ctx.deps, reporter: ctx.out });
    if (ctx.out.opts.json) {
      ctx.out.json(r);
      return 0;
    }
    const t = r.timings;
    ctx.out.result([
      `ok: ${r.kernel} on ${r.device} (${r.deviceType}), ${r.checked} values checked, ${r.submission}`,
      `init ${t.initMs.toFixed(2)} ms, module build ${t.moduleBuildMs.toFixed(2)} ms, first launch ${t.firstLaunchMs.toFixed(3)} ms, steady launch ${t.steadyMedianMs.toFixed(3)} ms (median of ${t.steadyRuns})`,
    ].join('\n'));
    return 0;
  },
};
