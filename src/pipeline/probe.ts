// The probe flow: build the addon, probe through it and koffi, run the smoke kernel; after setup, or on an installed
// prefix on its own (`xpu-setup probe`).
import type { Deps } from '../base/deps.js';
import { isXpuError, XpuError } from '../base/errors.js';
import { addonSpec } from '../build/addon.js';
import { lastBuilt, type CompileResult } from '../build/compile.js';
import type { ProbeReport } from '../caps/model.js';
import type { PrefixState } from '../prefix/prefix-state.js';
import type { Receipt } from '../records/receipt.js';
import type { Reporter } from '../base/reporter.js';
import { selfCommand } from '../hints/index.js';
import type { SmokeResult } from '../smoke/index.js';
import type { OclocCheck } from '../smoke/ocloc.js';
import type { OclocFound } from '../machine/ocloc.js';
import type { Finding } from '../base/finding.js';
import { decodeIp } from '../caps/arch.js';

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
  /** ocloc's zebin of the smoke kernel, when the prefix has an ocloc (the GPU driver component brings one). */
  ocloc?: OclocCheck | { skipped: string };
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
    if (e.details.noLoader) {
      // No loader on this machine at all (a Windows machine without the GPU driver): the ways on are the whole answer.
      reporter.warn(`nothing could be probed: ${e.message}`);
      for (const h of e.hints) reporter.info(`  hint: ${h}`);
      return { build, probe: failed(e), smoke: { ok: false, skipped: 'no Level Zero loader' } };
    }
    // Short: `doctor` is the place for why; the hints are the long form.
    reporter.warn(`nothing could be run: ${e.message}${loader ? `; the loader was ${loader}` : ''} (\`${await selfCommand(deps)} doctor\` says why; --verbose shows the hints)`, e.hints.map((h) => `hint: ${h}`).join('\n  '));
    return { build, probe: failed(e), smoke: { ok: false, skipped: 'no device' } };
  }

  let smoke: Step<SmokeResult> = { ok: false, skipped: '--no-smoke' };
  let ocloc: VerifyResult['ocloc'];
  if (opts.smoke) {
    smoke = { ok: true, value: await runSmoke(prefix, { deps, reporter }) };
    const inPrefix = await (await import('../machine/ocloc.js')).findOcloc(deps, { prefix, searchPath: false });
    if (inPrefix.found) ocloc = await oclocHalf(deps, reporter, inPrefix, oclocDeviceOf(smoke.value));
  }

  const t = tritonEnv(report);
  const first = report.devices.find((d) => d.type === 'gpu') ?? report.devices[0]!;
  return {
    build,
    probe: { ok: true, value: report },
    smoke,
    ...(ocloc ? { ocloc } : {}),
    tritonEnv: t ? { ...t, device: first.name, driver: String(first.driver.version) } : undefined,
  };
}

export interface SmokeAsk {
  device?: string;
  /** `--ocloc`: this ocloc, not the prefix's or one on PATH. */
  ocloc?: string;
  /** `--ocloc-device`: the GPU ocloc compiles for; with it, no device to run on leaves the compile as the test. */
  oclocDevice?: string;
}

/** What `xpu-setup smoke` proved: the kernel run (when there was a device) and ocloc's zebin (when there is an ocloc). */
export type SmokeOutcome =
  | (SmokeResult & { ran: true; ocloc: OclocCheck | { skipped: string } })
  | { ok: true; ran: false; notRun: ReturnType<XpuError['toJSON']>; ocloc: OclocCheck };

/** The ocloc device for a run's device: its IP version as ocloc spells it (12.55.8). */
function oclocDeviceOf(run: SmokeResult | undefined): string | undefined {
  if (!run?.ipVersion) return undefined;
  const v = decodeIp(run.ipVersion);
  return `${v.major}.${v.minor}.${v.revision}`;
}

/**
 * ocloc's half of the smoke test: compile the kernel for `device` and check the zebin. Skipped, saying why, when no
 * ocloc is found or there is no device to compile for; an ocloc that fails is an error.
 */
async function oclocHalf(deps: Deps, reporter: Reporter, found: Finding<OclocFound | undefined>, device: string | undefined): Promise<OclocCheck | { skipped: string }> {
  if (!found.found) return { skipped: `no ocloc (${found.tried.join('; ')})` };
  if (!device) return { skipped: 'the device reports no IP version to compile for; name one with --ocloc-device' };
  const { compileWithOcloc } = await import('../smoke/ocloc.js');
  const { smokeSpvPath, SMOKE_KERNEL } = await import('../smoke/index.js');
  return compileWithOcloc(deps, { ocloc: found.found, device, spv: smokeSpvPath(deps.env), kernel: SMOKE_KERNEL, reporter });
}

/** The kernel on its own (`xpu-setup smoke`): through the prefix's loader, or the system's own when `prefix` is undefined. */
export async function smokeInstalled(prefix: string | undefined, deps: Deps, reporter: Reporter, ask: SmokeAsk = {}): Promise<SmokeOutcome> {
  const [{ findSystemLoader }, { runSmoke }, { findOcloc }] = await Promise.all([import('../probe/probe.js'), import('../smoke/index.js'), import('../machine/ocloc.js')]);
  let loaderPath: string | undefined;
  if (prefix === undefined) {
    const found = await findSystemLoader(deps);
    if (!found.zeLoader) throw new XpuError('NOT_FOUND', 'no Level Zero loader on this system', { details: { tried: found.tried } });
    loaderPath = found.zeLoader;
  }
  const ocloc = await findOcloc(deps, { given: ask.ocloc, prefix });
  if ((ask.ocloc || ask.oclocDevice) && !ocloc.found) {
    throw new XpuError('NOT_FOUND', `no ocloc to compile the kernel with: ${ocloc.tried.join('; ')}`, {
      hints: ['install the GPU driver component (it brings bin/ocloc), or pass --ocloc PATH'],
    });
  }
  let run: SmokeResult;
  try {
    run = await runSmoke(prefix ?? '', { deps, reporter, loaderPath, device: ask.device });
  } catch (e) {
    // With a device named for ocloc, a machine without a GPU (CI), or a prefix holding the GPU driver without a
    // loader, still proves the compiler half.
    if (!ask.oclocDevice || !(isXpuError(e, 'NO_DEVICE') || isXpuError(e, 'NOT_FOUND'))) throw e;
    reporter.warn(`the kernel was not run: ${e.message}`);
    const check = await oclocHalf(deps, reporter, ocloc, ask.oclocDevice);
    if ('skipped' in check) throw e;
    return { ok: true, ran: false, notRun: e.toJSON(), ocloc: check };
  }
  return { ...run, ran: true, ocloc: await oclocHalf(deps, reporter, ocloc, ask.oclocDevice ?? oclocDeviceOf(run)) };
}

/**
 * The probe of an installed prefix on its own (`xpu-setup probe`): asks the addon too when a build of it is current.
 * `prefix` is the prefix as the run read it where it started (undefined: the system's own loader). On "no device"
 * the error carries the report, so `--json` can still show what was seen.
 */
export async function probeInstalled(prefix: PrefixState | undefined, deps: Deps, device?: string): Promise<ProbeReport> {
  const [{ probeStack, probeSystem, requireDevices }, { pickDevice }] = await Promise.all([import('../probe/probe.js'), import('../bindings/select.js')]);
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
