// What setup runs after install: build the addon, probe through it and koffi, run the smoke kernel.
import type { Deps } from '../deps.js';
import { isXpuError, type XpuError } from '../errors.js';
import type { Reporter } from '../reporter.js';
import { buildAddon } from '../build/addon.js';
import type { CompileResult } from '../build/compile.js';
import { tritonEnv } from '../caps/format.js';
import type { ProbeReport } from '../caps/model.js';
import { probeStack, requireDevices } from '../caps/probe.js';
import { runSmoke, type SmokeResult } from './index.js';

export interface VerifyOptions {
  deps: Deps;
  reporter: Reporter;
  smoke: boolean;
  /** Make "no device" an error; otherwise it is reported and setup still succeeds. */
  requireDevice: boolean;
}

export type Step<T> = { ok: true; value: T } | { ok: false; skipped?: string; error?: ReturnType<XpuError['toJSON']> };

export interface VerifyResult {
  build: Step<CompileResult>;
  probe: Step<ProbeReport>;
  smoke: Step<SmokeResult>;
  /** Values setup writes into the env files and the receipt's `probe` field. */
  tritonEnv?: { arch?: string; extensions: string[]; device: string; driver: string };
}

function failed<T>(e: unknown): Step<T> {
  if (!isXpuError(e)) throw e;
  return { ok: false, error: e.toJSON() };
}

export async function verifyStack(prefix: string, opts: VerifyOptions): Promise<VerifyResult> {
  const { deps, reporter } = opts;
  let build: Step<CompileResult>;
  try {
    build = { ok: true, value: await buildAddon(prefix, { deps, reporter }) };
  } catch (e) {
    // The koffi probe works without a compiler, so a failed build is reported and the probe still runs.
    build = failed(e);
    // A compile failure keeps the command and the tail of the compiler's output; other failures are one line.
    const msg = (e as Error).message;
    reporter.warn(`runtime addon not built: ${isXpuError(e) && e.code === 'BUILD' ? msg : msg.split('\n')[0]}`);
  }

  let report: ProbeReport;
  try {
    report = await probeStack(prefix, { deps, addonPath: build.ok ? build.value.output : undefined });
    requireDevices(report, deps);
  } catch (e) {
    if (opts.requireDevice || !isXpuError(e, 'NO_DEVICE')) throw e;
    reporter.warn(`nothing could be run: ${e.message}`);
    for (const h of e.hints) reporter.info(`  hint: ${h}`);
    return { build, probe: failed(e), smoke: { ok: false, skipped: 'no device' } };
  }

  let smoke: Step<SmokeResult> = { ok: false, skipped: '--no-smoke' };
  if (opts.smoke) smoke = { ok: true, value: await runSmoke(prefix, { deps, reporter }) };

  const t = tritonEnv(report);
  const first = report.devices.find((d) => d.type === 'gpu') ?? report.devices[0]!;
  return {
    build,
    probe: { ok: true, value: report },
    smoke,
    tritonEnv: t ? { ...t, device: first.name, driver: String(first.driver.version) } : undefined,
  };
}
