// `xpu-setup probe`: what the devices are, through koffi (and the built addon when there is one).
import { XpuError } from '../../errors.js';
import { formatLines, formatPytorch, formatTritonEnv, formatVerbose, tritonEnv } from '../../caps/format.js';
import { probeInstalled } from '../../pipeline.js';
import { str, type Command } from '../command.js';
import { runtimeTarget } from '../runtime-prefix.js';

const FORMATS = ['triton-env', 'pytorch'] as const;

export const probeCommand: Command = {
  name: 'probe',
  summary: 'List Level Zero devices: architecture, feature flags and where each answer came from',
  usage: 'xpu-setup probe [--prefix DIR | --system] [--device ID] [--json | --verbose | --format triton-env | --format pytorch]',
  options: {
    prefix: { type: 'string' },
    system: { type: 'boolean' },
    device: { type: 'string' },
    format: { type: 'string' },
  },
  async run(ctx) {
    const format = str(ctx.values, 'format');
    if (format && !(FORMATS as readonly string[]).includes(format)) {
      throw new XpuError('USAGE', `unknown format "${format}"`, { hints: [`use one of: ${FORMATS.join(', ')}`] });
    }
    const target = await runtimeTarget(ctx);
    const report = await probeInstalled(target.kind === 'prefix' ? target.prefix : undefined, ctx.deps, str(ctx.values, 'device'));
    if (ctx.out.opts.json) ctx.out.json({ ok: true, ...report, tritonEnv: tritonEnv(report) });
    else if (format === 'triton-env') ctx.out.result(formatTritonEnv(report));
    else if (format === 'pytorch') ctx.out.result(formatPytorch(report, ctx.deps.env));
    else if (ctx.out.opts.verbose) ctx.out.result(formatVerbose(report));
    else ctx.out.result(formatLines(report));
    for (const n of report.notes) ctx.out.debug(n);
    return 0;
  },
};
