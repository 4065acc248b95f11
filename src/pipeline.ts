// The whole job, stage after stage: detect -> plan -> fetch -> install -> build -> probe -> smoke.
import type { Deps } from './deps.js';
import { XpuError } from './errors.js';
import { buildRefDriver } from './build/refdriver.js';
import { checkStagedTree } from './build/staged-check.js';
import type { CompileResult } from './build/compile.js';
import { fetchPlan } from './fetch/fetch.js';
import { detectHost } from './host/index.js';
import type { TargetPlatform } from './host/types.js';
import { checkPrefixOwnership, installPlan, isUpToDate, type InstallResult } from './install/install.js';
import { withPrefixLock } from './install/lock.js';
import { recordBuilds, updateReceipt } from './install/prefix-writer.js';
import type { UnpackLimits } from './install/staging.js';
import { readReceipt } from './install/receipt.js';
import { loadManifests } from './manifest/load.js';
import { makePlan, noSourceError, type ExistingInstalls, type InstallPlan, type PlanOptions } from './plan/plan.js';
import { detectInstalls } from './detect/installs.js';
import type { Reporter } from './reporter.js';
import { verifyStack, type VerifyResult } from './smoke/verify.js';

export interface SetupOptions {
  plan: PlanOptions;
  platform?: TargetPlatform;
  manifestsDir?: string;
  /** Build the CPU reference driver into the prefix and make the env files select it. */
  refdriver: boolean;
  /** Run the kernel after the probe. */
  smoke: boolean;
  /** "No device" fails the run instead of being reported. */
  requireDevice: boolean;
  /** How much one archive may unpack to (default DEFAULT_LIMITS). */
  limits?: UnpackLimits;
}

export interface SetupResult {
  plan: InstallPlan;
  install: InstallResult;
  refdriver?: CompileResult;
  /** Absent when nothing could be verified here (another platform, or no Level Zero installed). */
  verify?: VerifyResult;
  verifySkipped?: string;
}

/**
 * `withExisting` also reports what is installed outside the prefix; it asks dpkg about files (a few hundred ms), so
 * only `plan` asks for it, not every setup run.
 */
export async function planSetup(
  opts: Pick<SetupOptions, 'plan' | 'platform' | 'manifestsDir'>,
  deps: Deps,
  reporter: Reporter,
  withExisting = false,
): Promise<InstallPlan> {
  const host = await detectHost(deps, opts.platform);
  const [plan, existing] = await Promise.all([
    makePlan(host, await loadManifests(opts.manifestsDir), opts.plan, deps, reporter),
    host.native && withExisting ? existingInstalls(deps, opts.plan.prefix, reporter) : undefined,
  ]);
  return existing ? { ...plan, existing } : plan;
}

/** What is installed outside the prefix; a detection failure only costs this summary, never the run. */
async function existingInstalls(deps: Deps, prefix: string, reporter: Reporter): Promise<ExistingInstalls | undefined> {
  try {
    const s = await detectInstalls(deps, {});
    const outside = (p: string) => !p.startsWith(prefix + '/') && !p.startsWith(prefix + '\\');
    const loader = s.zeLoader.chosen;
    return {
      zeLoader: loader && outside(loader.path) ? { path: loader.realPath ?? loader.path, version: loader.version?.version } : undefined,
      zeHeaders: s.zeHeaders
        .filter((h) => outside(h.includeDir))
        .map((h) => ({ includeDir: h.includeDir, apiVersion: h.info.apiVersion, version: h.version?.version, hasIpVersionExt: h.info.hasIpVersionExt })),
      urLoader: s.ur.loader && outside(s.ur.loader.path) ? { path: s.ur.loader.path } : undefined,
    };
  } catch (e) {
    reporter.debug(`detecting existing installs failed: ${(e as Error).message}`);
    return undefined;
  }
}

export async function runSetup(plan: InstallPlan, opts: SetupOptions, deps: Deps, reporter: Reporter): Promise<SetupResult> {
  if (!plan.components.some((c) => c.status === 'planned')) throw noSourceError(plan.components, plan.platform);
  if (opts.refdriver && !plan.host.native) {
    throw new XpuError('USAGE', '--refdriver builds and runs code, so it cannot be combined with --platform for another machine');
  }
  const onWait = (pid: number) => reporter.info(`waiting for another xpu-setup (pid ${pid}) that is installing into ${plan.prefix}`);
  return withPrefixLock(plan.prefix, async () => {
    await checkPrefixOwnership(plan.prefix);
    const current = await isUpToDate(plan);
    const install: InstallResult = current
      ? { prefix: plan.prefix, changed: false, receipt: current, notes: [] }
      : await installPlan(plan, await fetchPlan(plan, deps, reporter), reporter, {
          limits: opts.limits,
          check: (dir, p) => checkStagedTree(dir, p, deps),
        });
    const result: SetupResult = { plan, install };

    const l0 = plan.components.find((c) => c.name === 'level-zero' && c.status === 'planned');
    if (!plan.host.native || !l0) {
      result.verifySkipped = !plan.host.native ? `installed for ${plan.platform}: nothing is run on this machine` : 'Level Zero was not installed';
      return result;
    }

    if (opts.refdriver) result.refdriver = await buildRefDriver(plan.prefix, { deps, reporter });
    // The driver library is part of the prefix now (or, when this run did not ask for it, no longer).
    await recordBuilds(plan.prefix, { refdriver: result.refdriver }, result.refdriver ? [] : ['refdriver']);
    const altDrivers = result.refdriver?.output;
    // The loader reads ZE_ENABLE_ALT_DRIVERS at zeInit; this process has not initialised it yet.
    if (altDrivers) deps.env.ZE_ENABLE_ALT_DRIVERS = altDrivers;

    // The env files follow this run's choice of driver now, and lose any earlier probe's answers until this one's.
    await updateReceipt(plan.prefix, (r) => {
      const extra = { ...(r.extraEnv ?? {}) };
      for (const k of ['ZE_ENABLE_ALT_DRIVERS', 'TRITON_INTEL_DEVICE_ARCH', 'TRITON_INTEL_DEVICE_EXTENSIONS']) delete extra[k];
      if (altDrivers) extra.ZE_ENABLE_ALT_DRIVERS = altDrivers;
      r.extraEnv = extra;
      delete r.probe;
    });

    result.verify = await verifyStack(plan.prefix, { deps, reporter, smoke: opts.smoke, requireDevice: opts.requireDevice });
    const t = result.verify.tritonEnv;
    if (t) {
      result.install.receipt =
        (await updateReceipt(plan.prefix, (r) => {
          const extra = { ...(r.extraEnv ?? {}) };
          if (t.arch) extra.TRITON_INTEL_DEVICE_ARCH = t.arch;
          if (t.extensions.length) extra.TRITON_INTEL_DEVICE_EXTENSIONS = t.extensions.join(' ');
          r.extraEnv = extra;
          r.probe = { arch: t.arch, extensions: t.extensions, device: t.device, driver: t.driver };
        })) ?? result.install.receipt;
    }
    // The addon joins the receipt, so the no-op check and doctor verify it like any installed file.
    const addon = result.verify.build.ok ? result.verify.build.value : undefined;
    result.install.receipt =
      (await recordBuilds(plan.prefix, { addon })) ??
      (await readReceipt(plan.prefix)) ??
      result.install.receipt;
    return result;
  }, { onWait, onStale: (why) => reporter.debug(`took over the lock of ${plan.prefix}: ${why}`) });
}
