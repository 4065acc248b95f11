// `xpu-setup probe`: what the devices are, through koffi (and the built addon when there is one).
import { XpuError } from '../../base/errors.js';
import { EnvVars } from '../../base/env-names.js';
import { formatLines, formatPytorch, pytorchSeesNothing, formatTritonEnv, formatVerbose, pytorchDevices, tritonEnv, tritonEnvVars } from '../../caps/format.js';
import { appendTo, githubLines, renderDotenv } from '../../shells/ci-env.js';
import { detectShell, isUserShell, userShell } from '../../shells/index.js';
import { probeInstalled } from '../../pipeline/probe.js';
import { str, type Command } from '../command.js';
import { nearest } from '../options.js';
import { PROBE_FORMATS, TRITON_ENV_SHELLS } from '../choices.js';
import { runtimeTarget } from '../runtime-prefix.js';

export const probeCommand: Command = {
  name: 'probe',
  async run(ctx) {
    const format = str(ctx.values, 'format') ?? 'text';
    if (!(PROBE_FORMATS as readonly string[]).includes(format)) {
      const guess = nearest(format, PROBE_FORMATS);
      throw new XpuError('USAGE', `unknown --format "${format}"`, { hints: [guess ? `did you mean --format ${guess}?` : `use one of: ${PROBE_FORMATS.join(', ')}`] });
    }
    const shell = str(ctx.values, 'shell');
    if (shell && (format !== 'triton-env' || !(TRITON_ENV_SHELLS as readonly string[]).includes(shell))) {
      throw new XpuError('USAGE', `--shell ${shell} goes with --format triton-env and is one of ${TRITON_ENV_SHELLS.join(', ')}`);
    }
    const json = ctx.out.opts.json || format === 'json';
    const target = await runtimeTarget(ctx, 'probe');
    if (target.kind === 'prefix' && target.rerun !== undefined) return target.rerun;
    const deps = target.deps;
    const report = await probeInstalled(target.kind === 'prefix' ? target.state : undefined, deps, str(ctx.values, 'device'));
    const vars = () => tritonEnvVars(report);
    if (json) {
      // The fields --format pytorch leaves out, each with why.
      const pytorch = pytorchDevices(report, deps.env).map(({ device, omitted }) => ({ device, omitted }));
      ctx.out.json({ ok: true, ...report, tritonEnv: tritonEnv(report), pytorch });
    }
    else if (format === 'triton-env' && shell === 'dotenv') process.stdout.write(renderDotenv(vars()));
    else if (format === 'triton-env' && shell === 'github') {
      const file = deps.env[EnvVars.GITHUB_ENV];
      const lines = githubLines(vars());
      // Nothing silent: an empty answer and a missing GITHUB_ENV are both said.
      if (!lines) ctx.out.line('nothing to write: the probe gave Triton neither an architecture nor the extension list (`probe --verbose` says why)');
      if (file) await appendTo(file, lines);
      else {
        ctx.out.line('GITHUB_ENV is not set (this is not a GitHub Actions step): printing what would be appended to it');
        process.stdout.write(lines);
      }
    } else if (format === 'triton-env') {
      // What a shell evaluates (the default is the user's own shell): the variables, then the notes as comments; and
      // any Triton variable that must stay unset cleared, so an earlier value does not linger.
      const form = shell !== undefined && isUserShell(shell) ? shell : detectShell(deps);
      const set = vars();
      const unset = [EnvVars.TRITON_INTEL_DEVICE_ARCH, EnvVars.TRITON_INTEL_DEVICE_EXTENSIONS].filter((n) => !set.some((v) => v.name === n));
      const notes = formatTritonEnv(report).split('\n').filter((l) => l.startsWith('#'));
      // Which of them the active Python's Triton reads (3.4 has no TRITON_INTEL_DEVICE_ARCH, 3.3 reads neither).
      const { MIN_TRITON, installedTriton, tritonReads } = await import('../../caps/triton.js');
      const triton = (await installedTriton(deps)).found;
      notes.push(triton
        ? `# ${tritonReads(triton.version, tritonEnv(report)?.sycl ?? 'unknown').note} (${triton.dist} in ${triton.python})`
        : `# no Triton in the active Python; Triton ${MIN_TRITON} or newer reads both variables`);
      process.stdout.write(userShell(form).exports(set, unset) + notes.map((n) => `${n}\n`).join(''));
    }
    else if (format === 'pytorch') {
      const none = pytorchSeesNothing(report);
      if (none) ctx.out.warn(none);
      ctx.out.result(formatPytorch(report, deps.env));
    } else if (ctx.out.opts.verbose) ctx.out.result(formatVerbose(report));
    else ctx.out.result(formatLines(report));
    for (const n of report.loader.windows?.notes ?? []) ctx.out.line(n);
    // formatVerbose lists the notes itself.
    if (format !== 'text' || !ctx.out.opts.verbose) for (const n of new Set(report.notes)) ctx.out.debug(n);
    return 0;
  },
};

export const run = probeCommand.run;
