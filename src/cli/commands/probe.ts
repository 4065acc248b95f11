// `xpu-setup probe`: what the devices are, through koffi (and the built addon when there is one).
import { XpuError } from '../../errors.js';
import { formatLines, formatPytorch, formatTritonEnv, formatVerbose, tritonEnv } from '../../caps/format.js';
import { probeInstalled } from '../../pipeline.js';
import { str, type Command } from '../command.js';
import { nearest } from '../options.js';
import { PROBE_FORMATS } from '../registry.js';
import { runtimeTarget } from '../runtime-prefix.js';

export const probeCommand: Command = {
  name: 'probe',
  async run(ctx) {
    const format = str(ctx.values, 'format') ?? 'text';
    if (!(PROBE_FORMATS as readonly string[]).includes(format)) {
      const guess = nearest(format, PROBE_FORMATS);
      throw new XpuError('USAGE', `unknown --format "${format}"`, { hints: [guess ? `did you mean --format ${guess}?` : `use one of: ${PROBE_FORMATS.join(', ')}`] });
    }
    const json = ctx.out.opts.json || format === 'json';
    const target = await runtimeTarget(ctx);
    const report = await probeInstalled(target.kind === 'prefix' ? target.prefix : undefined, ctx.deps, str(ctx.values, 'device'));
    if (json) ctx.out.json({ ok: true, ...report, tritonEnv: tritonEnv(report) });
    else if (format === 'triton-env') ctx.out.result(formatTritonEnv(report));
    else if (format === 'pytorch') ctx.out.result(formatPytorch(report, ctx.deps.env));
    else if (ctx.out.opts.verbose) ctx.out.result(formatVerbose(report));
    else ctx.out.result(formatLines(report));
    for (const n of new Set(report.notes)) ctx.out.debug(n);
    return 0;
  },
};

export const run = probeCommand.run;
