// `xpu-setup probe`: what the devices are, through koffi (and the built addon when there is one).
import { XpuError } from '../../errors.js';
import { addonSpec } from '../../build/addon.js';
import { lastBuilt } from '../../build/compile.js';
import { formatLines, formatPytorch, formatTritonEnv, formatVerbose } from '../../caps/format.js';
import { probeStack, requireDevices } from '../../caps/probe.js';
import { str, type Command } from '../command.js';
import { nearest } from '../options.js';
import { PROBE_FORMATS } from '../registry.js';
import { runtimePrefix } from '../runtime-prefix.js';

export const probeCommand: Command = {
  name: 'probe',
  async run(ctx) {
    const format = str(ctx.values, 'format') ?? 'text';
    if (!(PROBE_FORMATS as readonly string[]).includes(format)) {
      const guess = nearest(format, PROBE_FORMATS);
      throw new XpuError('USAGE', `unknown --format "${format}"`, { hints: [guess ? `did you mean --format ${guess}?` : `use one of: ${PROBE_FORMATS.join(', ')}`] });
    }
    const json = ctx.out.opts.json || format === 'json';
    const prefix = await runtimePrefix(ctx);
    const addonPath = await lastBuilt(addonSpec(prefix, ctx.deps.platform), ctx.deps);
    const report = await probeStack(prefix, { deps: ctx.deps, addonPath });
    try {
      requireDevices(report, ctx.deps);
    } catch (e) {
      if (json && e instanceof XpuError) e.details.report = report;
      throw e;
    }
    if (json) ctx.out.json({ ok: true, ...report });
    else if (format === 'triton-env') ctx.out.result(formatTritonEnv(report));
    else if (format === 'pytorch') ctx.out.result(formatPytorch(report));
    else if (ctx.out.opts.verbose) ctx.out.result(formatVerbose(report));
    else ctx.out.result(formatLines(report));
    for (const n of new Set(report.notes)) ctx.out.debug(n);
    return 0;
  },
};

export const run = probeCommand.run;
