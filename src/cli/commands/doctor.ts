// `xpu-setup doctor`: what is wrong with this machine's Intel GPU stack and how to fix it; --json for machines.
import type { Deps } from '../../deps.js';
import type { DoctorServices } from '../../doctor/index.js';
import { isXpuError } from '../../errors.js';
import { runningPlatform } from '../../host/index.js';
import { packagePath } from '../../package-dir.js';
import { list, str, type Command } from '../command.js';

/** Exit code when the doctor itself could not run (as opposed to finding problems: 1). */
export const EXIT_DOCTOR_BROKEN = 3;

const BIN = packagePath('bin', 'xpu-setup.js');

/** The index roots setup would contact for this platform: conda channels and pinned URL hosts from the manifests. */
async function manifestIndexes(deps: Deps): Promise<string[]> {
  const platform = runningPlatform(deps);
  const urls = new Set<string>();
  const { loadManifests } = await import('../../manifest/load.js');
  for (const m of await loadManifests()) {
    const spec = platform ? m.platforms[platform] : undefined;
    for (const s of spec?.sources ?? []) {
      if (s.kind === 'conda') for (const c of s.channels) urls.add(c.replace(/\/?$/, '/'));
      else if (s.kind === 'pypi') urls.add('https://pypi.org/simple/');
      else if (s.kind === 'url') urls.add(new URL(s.url).origin + '/');
    }
  }
  return [...urls];
}

/** Each service loads its code when a check first uses it, so other commands never load the doctor's. */
export function defaultDoctorServices(): DoctorServices {
  const runtime = async () => (await import('../../doctor/services.js')).childProcessRuntime(BIN);
  return {
    findCompiler: async (deps) => (await import('../../build/compilers.js')).findCompilers(deps, 'c'),
    reach: async (url, timeoutMs) => {
      const r = await (await import('../../net/http.js')).reach(url, timeoutMs);
      const out: Awaited<ReturnType<NonNullable<DoctorServices['reach']>>> = { ok: r.ok };
      if (r.status !== undefined) out.status = r.status;
      if (r.error) out.error = { message: r.error.message, code: r.error.code, details: r.error.details };
      return out;
    },
    indexes: manifestIndexes,
    probe: async (req) => (await runtime()).probe(req),
    smoke: async (req) => (await runtime()).smoke(req),
  };
}

export function createDoctorCommand(services: DoctorServices = defaultDoctorServices()): Command {
  return {
    name: 'doctor',
    summary: 'Say what is wrong with this machine\'s Intel GPU stack and how to fix it',
    usage: 'xpu-setup doctor [--prefix DIR] [--json] [--verbose] [--strict] [--smoke] [--check ID ...]',
    options: {
      prefix: { type: 'string' },
      strict: { type: 'boolean' },
      smoke: { type: 'boolean' },
      check: { type: 'string', multiple: true },
    },
    async run({ deps, out, values }) {
      const opts = {
        prefix: str(values, 'prefix'),
        strict: !!values.strict,
        smoke: !!values.smoke,
        verbose: !!values.verbose,
        only: list(values, 'check'),
        services,
      };
      const { renderHuman, runDoctor, shouldColor } = await import('../../doctor/index.js');
      let report;
      try {
        report = await runDoctor(deps, opts);
      } catch (e) {
        if (isXpuError(e, 'USAGE')) throw e;
        out.error(e);
        return EXIT_DOCTOR_BROKEN;
      }
      if (out.opts.json) out.json(report);
      else out.result(renderHuman(report, { color: shouldColor(process.stdout.isTTY, deps.env), verbose: opts.verbose }));
      return report.summary.exit_code;
    },
  };
}

export const doctorCommand: Command = createDoctorCommand();
