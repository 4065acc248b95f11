// `xpu-setup doctor`: what is wrong with this machine's Intel GPU stack and how to fix it; --json for machines.
import type { Deps } from '../../base/deps.js';
import { renderHuman, runDoctor, shouldColor } from '../../doctor/index.js';
import { isXpuError } from '../../base/errors.js';
import { runningPlatform } from '../../platform/index.js';
import { kindOf } from '../../kinds/index.js';
import { loadManifests } from '../../manifest/load.js';
import { list, str, type Command, type CommandContext } from '../command.js';
import { parsePlanOptions } from '../setup-options.js';

/** Exit code when the doctor itself could not run (as opposed to finding problems: 1). */
export const EXIT_DOCTOR_BROKEN = 3;

/**
 * The index roots setup would contact for this platform when the prefix records none: the manifests' conda channels
 * and pinned URL hosts, with the kinds' index variables (XPU_SETUP_CONDA_CHANNELS, ...) and XPU_SETUP_MANIFESTS taking their place
 * as they do for setup.
 */
async function manifestIndexes(deps: Deps): Promise<string[]> {
  const platform = runningPlatform(deps);
  const { flags: chosen, manifestsDir } = parsePlanOptions({}, deps);
  const urls = new Set<string>();
  for (const m of await loadManifests(manifestsDir)) {
    const spec = platform ? m.platforms[platform] : undefined;
    for (const s of spec?.sources ?? []) for (const u of kindOf(s.kind).indexes(s, chosen.indexes ?? {})) urls.add(u);
  }
  return [...urls];
}

export const doctorCommand: Command = {
  name: 'doctor',
  async run({ deps, out, values }) {
    const opts = {
      prefix: str(values, 'prefix'),
      strict: !!values.strict,
      smoke: !!values.smoke,
      verbose: !!values.verbose,
      only: list(values, 'check'),
      indexes: manifestIndexes,
    };
    let report;
    try {
      report = await runDoctor(deps, opts);
    } catch (e) {
      if (isXpuError(e, 'USAGE')) throw e;
      out.error(e);
      return EXIT_DOCTOR_BROKEN;
    }
    if (out.opts.json) out.json(report);
    else out.result(renderHuman(report, { color: shouldColor(process.stdout.isTTY, deps.env), verbose: opts.verbose, quiet: out.opts.quiet, strict: opts.strict }));
    return report.summary.exit_code;
  },
};

export const run = (ctx: CommandContext): Promise<number> => doctorCommand.run(ctx);
