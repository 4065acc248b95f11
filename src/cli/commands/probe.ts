// `xpu-setup probe`: what the devices are, through koffi (and the built addon when there is one).
import { XpuError } from '../../errors.js';
import { formatLines, formatPytorch, formatTritonEnv, formatVerbose } from '../../caps/format.js';
import { str, type Command } from '../command.js';
import { runtimePrefix } from '../runtime-prefix.js';

const FORMATS = ['triton-env', 'pytorch'] as const;

export const probeCommand: Command = {
  name: 'probe',
  summary: 'List Level Zero devices: architecture, feature flags and where each answer came from',
  usage: 'xpu-setup probe [--prefix DIR] [--json | --verbose | --format triton-env | --format pytorch]',
  options: {
    prefix: { type: 'string' },
    format: { type: 'string' },
  },
  async run(ctx) {
    const format = str(ctx.values, 'format');
    if (format && !(FORMATS as readonly string[]).includes(format)) {
      throw new XpuError('USAGE', `unknown format "${format}"`, { hints: [`use one of: ${FORMATS.join(', ')}`] });
    }
    const prefix = await runtimePrefix(ctx);
    const { probeInstalled } = await import('../../pipeline.js');
    const report = await probeInstalled(prefix, ctx.deps);
    if (ctx.out.opts.json) ctx.out.json({ ok: true, ...report });
    else if (format === 'triton-env') ctx.out.result(formatTritonEnv(report));
    else if (format === 'pytorch') ctx.out.result(formatPytorch(report));
    else if (ctx.out.opts.verbose) ctx.out.result(formatVerbose(report));
    else ctx.out.result(formatLines(report));
    for (const n of report.notes) ctx.out.debug(n);
    return 0;
  },
};
