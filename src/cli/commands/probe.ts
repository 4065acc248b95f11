// `xpu-setup probe`: what the devices are, through koffi (and the built addon when there is one).
import { XpuError } from '../../errors.js';
import { EnvVars } from '../../env-names.js';
import { formatLines, formatPytorch, formatTritonEnv, formatVerbose, tritonEnvVars } from '../../caps/format.js';
import { appendTo, githubLines, renderDotenv, renderShExports } from '../../install/ci-env.js';
import { probeInstalled } from '../../pipeline.js';
import { str, type Command } from '../command.js';
import { runtimePrefix } from '../runtime-prefix.js';

const FORMATS = ['triton-env', 'pytorch'] as const;
const TRITON_SHELLS = ['sh', 'dotenv', 'github'] as const;

export const probeCommand: Command = {
  name: 'probe',
  summary: 'List Level Zero devices: architecture, feature flags and where each answer came from',
  usage: `xpu-setup probe [--prefix DIR] [--json | --verbose | --format triton-env [--shell sh|dotenv|github] | --format pytorch]
  --shell sh: export lines to eval; dotenv: NAME=value lines for a file; github: appended to GITHUB_ENV`,
  options: {
    prefix: { type: 'string' },
    format: { type: 'string' },
    shell: { type: 'string' },
  },
  async run(ctx) {
    const format = str(ctx.values, 'format');
    if (format && !(FORMATS as readonly string[]).includes(format)) {
      throw new XpuError('USAGE', `unknown format "${format}"`, { hints: [`use one of: ${FORMATS.join(', ')}`] });
    }
    const shell = str(ctx.values, 'shell');
    if (shell && (format !== 'triton-env' || !(TRITON_SHELLS as readonly string[]).includes(shell))) {
      throw new XpuError('USAGE', `--shell ${shell} goes with --format triton-env and is one of ${TRITON_SHELLS.join(', ')}`);
    }
    const prefix = await runtimePrefix(ctx);
    const report = await probeInstalled(prefix, ctx.deps);
    if (ctx.out.opts.json) ctx.out.json({ ok: true, ...report });
    else if (format === 'triton-env' && shell === 'sh') process.stdout.write(renderShExports(tritonEnvVars(report)));
    else if (format === 'triton-env' && shell === 'dotenv') process.stdout.write(renderDotenv(tritonEnvVars(report)));
    else if (format === 'triton-env' && shell === 'github') {
      const file = ctx.deps.env[EnvVars.GITHUB_ENV];
      if (file) await appendTo(file, githubLines(tritonEnvVars(report)));
      else process.stdout.write(githubLines(tritonEnvVars(report)));
    } else if (format === 'triton-env') ctx.out.result(formatTritonEnv(report));
    else if (format === 'pytorch') ctx.out.result(formatPytorch(report));
    else if (ctx.out.opts.verbose) ctx.out.result(formatVerbose(report));
    else ctx.out.result(formatLines(report));
    for (const n of report.notes) ctx.out.debug(n);
    return 0;
  },
};
