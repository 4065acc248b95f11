// The probe flow: build the addon, probe through it and koffi, run the smoke kernel; after setup, or on an installed
// prefix on its own (`xpu-setup probe`).
import type { Deps } from '../deps.js';
import { isXpuError, XpuError } from '../errors.js';
import { addonSpec } from '../build/addon.js';
import { lastBuilt, type CompileResult } from '../build/compile.js';
import type { ProbeReport } from '../caps/model.js';
import type { PrefixState } from '../install/prefix-state.js';
import type { Receipt } from '../install/receipt.js';
import type { Reporter } from '../reporter.js';
import { selfCommand } from '../hints.js';
import type { SmokeResult } from '../smoke/index.js';

export interface VerifyOptions {
  deps: Deps;
  reporter: Reporter;
  smoke: boolean;
  /** Make "no device" an error; otherwise it is reported and setup still succeeds. */
  requireDevice: boolean;
  /** The prefix's receipt as setup wrote it: which Level Zero package the probe reports as installed. */
  receipt?: Receipt;
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

/** After install: build the addon, probe through it and koffi, run the smoke kernel. */
export async function verifyStack(prefix: string, opts: VerifyOptions): Promise<VerifyResult> {
  const { deps, reporter } = opts;
  // Loaded here, not with the pipeline: a re-run that replays the recorded proof needs none of them.
  const [{ probeStack, requireDevices }, { runSmoke }, { tritonEnv }] = await Promise.all([import('../probe/probe.js'), import('../smoke/index.js'), import('../caps/format.js')]);
  let build: Step<CompileResult>;
  try {
    build = { ok: true, value: await (await import('../build/addon.js')).buildAddon(prefix, { deps, reporter }) };
  } catch (e) {
    // The koffi probe works without a compiler, so a failed build is reported and the probe still runs.
    build = failed(e);
    // A compile failure keeps the command and the tail of the compiler's output; other failures are one line.
    const msg = (e as Error).message;
    reporter.warn(`runtime addon not built: ${isXpuError(e, 'BUILD') ? msg : msg.split('\n')[0]}`);
  }

  let report: ProbeReport;
  let loader: string | undefined;
  try {
    report = await probeStack(prefix, { deps, addonPath: build.ok ? build.value.output : undefined, receipt: opts.receipt });
    loader = report.loader.path;
    requireDevices(report, deps);
  } catch (e) {
    if (opts.requireDevice || !isXpuError(e, 'NO_DEVICE')) throw e;
    // Short: `doctor` is the place for why; the hints are the long form.
    reporter.warn(`nothing could be run: ${e.message}${loader ? `; the loader was ${loader}` : ''} (\`${await selfCommand(deps)} doctor\` says why; --verbose shows the hints)`, e.hints.map((h) => `hint: ${h}`).join('\n  '));
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

/** The kernel on its own (`xpu-setup smoke`): through the prefix's loader, or the system's own when `prefix` is undefined. */
export async function smokeInstalled(prefix: string | undefined, deps: Deps, reporter: Reporter, device?: string): Promise<SmokeResult> {
  const [{ findSystemLoader }, { runSmoke }] = await Promise.all([import('../probe/probe.js'), import('../smoke/index.js')]);
  let loaderPath: string | undefined;
  if (prefix === undefined) {
    const found = await findSystemLoader(deps);
    if (!found.zeLoader) throw new XpuError('NOT_FOUND', 'no Level Zero loader on this system', { details: { tried: found.tried } });
    loaderPath = found.zeLoader;
  }
  return runSmoke(prefix ?? '', { deps, reporter, loaderPath, device });
}

/**
 * The probe of an installed prefix on its own (`xpu-setup probe`): asks the addon too when a build of it is current.
 * `prefix` is the prefix as the run read it where it started (undefined: the system's own loader). On "no device"
 * the error carries the report, so `--json` can still show what was seen.
 */
export async function probeInstalled(prefix: PrefixState | undefined, deps: Deps, device?: string): Promise<ProbeReport> {
  const [{ probeStack, probeSystem, requireDevices }, { pickDevice }] = await Promise.all([import('../probe/probe.js'), import('../runtime/select.js')]);
  const report =
    prefix === undefined
      ? await probeSystem({ deps })
      : await probeStack(prefix.prefix, { deps, addonPath: await lastBuilt(addonSpec(prefix.prefix, deps.platform), deps), receipt: prefix.receipt });
  try {
    requireDevices(report, deps);
    if (device !== undefined) report.devices = [pickDevice(report.devices, device)];
  } catch (e) {
    if (e instanceof XpuError) e.details.report = report;
    throw e;
  }
  return report;
}
