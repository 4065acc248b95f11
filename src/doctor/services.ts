// Probe and smoke for the doctor, run as child processes of the CLI (`probe --json`, `smoke --json`) with the stack's
// environment: a loader that crashes (on a driver choice with an empty entry, say) cannot take the doctor down with it.
import type { Deps } from '../base/deps.js';
import { cliEntry } from '../package-dir.js';
import { zeResultName } from '../bindings/ze-abi.js';
import type { ProbeSummary, RuntimeRequest, SmokeSummary } from './types.js';

interface CliJson {
  ok?: boolean;
  error?: { code?: string; message?: string; hints?: string[]; details?: Record<string, unknown> };
  [k: string]: unknown;
}

/** An error carrying the CLI's hints, so the check can show the first as the fix. */
export class ChildCommandError extends Error {
  constructor(message: string, readonly hints: string[] = []) {
    super(message);
  }
}

function lastJson(stdout: string): CliJson | undefined {
  const t = stdout.trim();
  if (!t) return undefined;
  try {
    return JSON.parse(t) as CliJson;
  } catch {
    return undefined;
  }
}

function toNumber(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^(0x)?[0-9a-f]+$/i.test(v)) return parseInt(v, v.startsWith('0x') ? 16 : 10);
  return undefined;
}

/** Pure: a probe report (the `probe --json` document, or the one inside its error) as the doctor's summary. */
export function probeSummaryFrom(report: Record<string, unknown>): ProbeSummary {
  const loader = report.loader as { path?: string } | undefined;
  const init = typeof report.zeInit === 'number' ? zeResultName(report.zeInit) : undefined;
  const devices = Array.isArray(report.devices) ? (report.devices as Record<string, unknown>[]) : [];
  const s: ProbeSummary = {
    devices: devices.map((d) => {
      const out: ProbeSummary['devices'][number] = { name: String(d.name ?? 'unnamed device'), type: String(d.type ?? 'unknown') };
      const v = toNumber(d.vendorId);
      const id = toNumber(d.deviceId);
      if (v !== undefined) out.vendorId = v;
      if (id !== undefined) out.deviceId = id;
      return out;
    }),
  };
  if (loader?.path) s.loaderPath = loader.path;
  if (init) s.init = init;
  if (Array.isArray(report.notes)) s.notes = report.notes.map(String);
  const t = report.tritonEnv as { arch?: unknown; extensions?: unknown; sycl?: unknown } | undefined;
  if (t && typeof t === 'object') {
    s.tritonEnv = { extensions: Array.isArray(t.extensions) ? t.extensions.map(String) : [] };
    if (typeof t.arch === 'string') s.tritonEnv.arch = t.arch;
    if (typeof t.sycl === 'string') s.tritonEnv.sycl = t.sycl;
  }
  return s;
}

/** Pure: reads `xpu-setup probe --json` output. A "no device" error still yields a summary (with no devices). */
export function parseProbeOutput(stdout: string, exitCode: number, stderr: string): ProbeSummary {
  const doc = lastJson(stdout);
  if (doc?.ok) return probeSummaryFrom(doc);
  const report = doc?.error?.details?.report;
  if (report && typeof report === 'object') {
    const s = probeSummaryFrom(report as Record<string, unknown>);
    s.notes = [...new Set([...(s.notes ?? []), doc?.error?.message ?? ''].filter(Boolean))];
    return s;
  }
  if (doc?.error) throw new ChildCommandError(doc.error.message ?? 'probe failed', doc.error.hints);
  throw new ChildCommandError(`probe exited ${exitCode} without a JSON answer: ${stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
}

/** Pure: reads `xpu-setup smoke --json` output. */
export function parseSmokeOutput(stdout: string, exitCode: number, stderr: string): SmokeSummary {
  const doc = lastJson(stdout);
  if (doc?.ok) {
    const { ok: _ok, ...rest } = doc;
    return {
      ok: true,
      message: `${String(doc.kernel ?? 'kernel')} on ${String(doc.device ?? 'the device')} (${String(doc.deviceType ?? '?')}): ${String(doc.checked ?? '?')} values correct`,
      details: rest,
    };
  }
  if (doc?.error) {
    return { ok: false, message: doc.error.message ?? 'the smoke test failed', details: { code: doc.error.code, hints: doc.error.hints } };
  }
  throw new ChildCommandError(`smoke exited ${exitCode} without a JSON answer: ${stderr.trim().split('\n').slice(-1)[0] ?? ''}`);
}

/** The CLI the doctor starts for the probe and the smoke test: this package's own. */
export const CLI_BIN = cliEntry();

async function runCli(deps: Deps, args: string[], req: RuntimeRequest, timeoutMs: number) {
  const r = await deps.exec(process.execPath, [CLI_BIN, ...args, '--json', '--prefix', req.prefix], { env: req.env, timeoutMs });
  const lastLine = (t: string): string => t.trim().split('\n').slice(-1)[0] ?? '';
  if (r.failedToStart && /killed|SIG[A-Z]+/.test(r.failedToStart)) {
    throw new ChildCommandError(`the ${args[0]} process crashed (${r.failedToStart}): the loader or a driver it loaded crashed`, [
      'run `xpu-setup ' + args[0] + '` alone with ZE_ENABLE_LOADER_DEBUG_TRACE=1 to see which driver it was loading',
    ]);
  }
  if (r.failedToStart) throw new ChildCommandError(`could not run ${CLI_BIN}: ${r.failedToStart}`);
  if (r.exitCode === 2) throw new ChildCommandError(`\`xpu-setup ${args[0]}\` refused to run: ${lastLine(r.stderr) || lastLine(r.stdout)}`);
  return r;
}

/** `xpu-setup probe --json` as a child process started through `req.deps.exec`, read as the doctor's summary. */
export async function probeByCli(req: RuntimeRequest): Promise<ProbeSummary> {
  const r = await runCli(req.deps, ['probe'], req, 55_000);
  return parseProbeOutput(r.stdout, r.exitCode, r.stderr);
}

/** `xpu-setup smoke --json` the same way. */
export async function smokeByCli(req: RuntimeRequest): Promise<SmokeSummary> {
  const r = await runCli(req.deps, ['smoke'], req, 170_000);
  return parseSmokeOutput(r.stdout, r.exitCode, r.stderr);
}
