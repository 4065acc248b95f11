// The compiler half of the smoke test: ocloc turns the smoke kernel's SPIR-V into a zebin for one GPU, with no GPU needed.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import { checkZebin } from '../formats/zebin.js';
import type { OclocFound } from '../machine/ocloc.js';
import type { Reporter } from '../base/reporter.js';

export interface OclocCheck {
  ocloc: string;
  via: OclocFound['via'];
  /** What `-device` said: a name (dg2, pvc) or an IP version (12.55.8). */
  device: string;
  spv: string;
  /** Internal options that were needed for a zebin (compute-runtime 22.x wrote patch-token binaries by default). */
  internalOptions: string[];
  bytes: number;
  machine: number;
  sections: string[];
  ms: number;
}

// Compute-runtime releases before zebin became the default (22.x) write the older patch-token binary unless asked.
const ALLOW_ZEBIN = '-cl-intel-allow-zebin';

function tail(text: string, lines = 12): string {
  return text.trim().split('\n').slice(-lines).join('\n');
}

/** Compiles `spv` for `device` with ocloc and checks the output is a zebin holding `kernel`. */
export async function compileWithOcloc(
  deps: Deps,
  opts: { ocloc: OclocFound; device: string; spv: string; kernel: string; reporter: Reporter },
): Promise<OclocCheck> {
  const task = opts.reporter.task(`ocloc: compiling ${path.basename(opts.spv)} for ${opts.device}`);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-ocloc-'));
  const t0 = process.hrtime.bigint();
  try {
    let internalOptions: string[] = [];
    for (;;) {
      const out = path.join(dir, internalOptions.length ? 'zebin' : 'default');
      const args = ['compile', '-file', opts.spv, '-spirv_input', '-device', opts.device, '-output', path.basename(out), '-output_no_suffix', '-out_dir', dir];
      if (internalOptions.length) args.push('-internal_options', internalOptions.join(' '));
      const r = await deps.exec(opts.ocloc.path, args, { env: deps.env, timeoutMs: 180_000 });
      if (r.failedToStart || r.exitCode !== 0) throw oclocFailed(opts, args, r);
      const bytes = await fs.readFile(out).catch(() => undefined);
      if (!bytes) throw new XpuError('SMOKE', `ocloc reported success but wrote no ${out}`, { details: { ocloc: opts.ocloc.path, args, stdout: tail(r.stdout) } });
      const verdict = checkZebin(bytes, opts.kernel);
      if (!verdict.ok && /patch-token/.test(verdict.why) && !internalOptions.length) {
        internalOptions = [ALLOW_ZEBIN];
        continue;
      }
      if (!verdict.ok) {
        throw new XpuError('SMOKE', `ocloc's output for ${opts.device} is not a zebin holding ${opts.kernel}: ${verdict.why}`, {
          details: { ocloc: opts.ocloc.path, args, binary: verdict.binary ?? null },
          hints: ['PyTorch Inductor loads zebin kernels: update the GPU driver component (its ocloc), or set TORCHINDUCTOR_XPU_KERNEL_FORMAT=spv'],
        });
      }
      const check: OclocCheck = {
        ocloc: opts.ocloc.path,
        via: opts.ocloc.via,
        device: opts.device,
        spv: opts.spv,
        internalOptions,
        bytes: bytes.length,
        machine: verdict.binary.machine,
        sections: verdict.binary.sections,
        ms: Number(process.hrtime.bigint() - t0) / 1e6,
      };
      task.succeed(`ocloc compiled ${opts.kernel} for ${opts.device}: a zebin of ${bytes.length} bytes with .text.${opts.kernel}`);
      return check;
    }
  } catch (e) {
    task.fail(`ocloc could not compile ${opts.kernel} for ${opts.device}`);
    throw e;
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

function oclocFailed(opts: { ocloc: OclocFound; device: string; spv: string }, args: string[], r: { exitCode: number; stdout: string; stderr: string; failedToStart?: string }): XpuError {
  const said = tail(`${r.stdout}\n${r.stderr}`);
  const hints: string[] = [];
  if (/Cannot get HW Info for device|Could not determine device target|Invalid device/i.test(said)) {
    hints.push(`this ocloc does not know the device "${opts.device}": the GPU is newer than the compiler; install a newer GPU driver (its ocloc), or name a device it knows with --ocloc-device`);
  } else if (/error while loading shared libraries|cannot open shared object/i.test(`${said}\n${r.failedToStart ?? ''}`)) {
    hints.push('ocloc\'s libraries (libocloc.so, IGC\'s libigc and libigdfcl) are not on the library path: load the prefix\'s env file first');
  }
  const why = r.failedToStart ? `could not start: ${r.failedToStart}` : `exit ${r.exitCode}`;
  return new XpuError('SMOKE', `ocloc (${opts.ocloc.path}) could not compile ${path.basename(opts.spv)} for ${opts.device}: ${why}${said ? `\n${said}` : ''}`, {
    details: { ocloc: opts.ocloc.path, via: opts.ocloc.via, args, exitCode: r.exitCode, output: said },
    hints,
  });
}
