// The setup flow: under the prefix lock, diff the plan against the prefix, install (or find it installed), then build,
// probe and smoke, or replay the answer recorded for the same inputs.
import type { Deps } from '../deps.js';
import { XpuError } from '../errors.js';
import { addonSpec } from '../build/addon.js';
import { lastBuilt, type CompileResult } from '../build/compile.js';
import { EnvVars, RUN_ENV_VARS } from '../env-names.js';
import type { InstallResult } from '../install/install.js';
import { withPrefixLock } from '../install/lock.js';
import { checkPrefixOwnership, installedFor, isUpToDate, recordedPlan, type PrefixState } from '../install/prefix-state.js';
import { recordBuilds, updateReceipt } from '../install/prefix-writer.js';
import type { Receipt } from '../install/receipt.js';
import { nodeLayout } from '../host/index.js';
import { chosenDrivers, driverChoiceEnv } from '../roles/index.js';
import { diffPlan } from '../plan/diff.js';
import { lockedOf } from '../plan/lockfile.js';
import type { InstallPlan } from '../records/plan.js';
import { fileMark, proofInputs } from '../probe/inputs.js';
import type { Reporter } from '../reporter.js';
import { VERSION } from '../version.js';
import type { SetupOptions } from './options.js';
import { assertInstallable, afterInstall, decideRuntimeLibraries, sameRequest, type RunIndex } from './plan.js';
import { verifyStack, type VerifyResult } from './probe.js';

export interface SetupResult {
  plan: InstallPlan;
  install: InstallResult;
  /** The reference driver this run selects: built now (`build`), or kept from an earlier run of this version. */
  refdriver?: { output: string; build?: CompileResult };
  /** Absent when nothing could be verified here (another platform, or no Level Zero installed). */
  verify?: VerifyResult;
  verifySkipped?: string;
  /** Set when `verify` is the receipt's answer from this time, given again because nothing it depends on changed. */
  verifyReplayedFrom?: string;
}

/**
 * What a plan was made against: the prefix's receipt as it was then (its plan, request and install time), or none.
 * A run that finds another basis once it holds the lock plans again (see runSetup).
 */
function prefixBasis({ receipt: r }: PrefixState): string {
  return r ? JSON.stringify([r.platform, r.planKey, r.installedAt, r.request ?? null]) : 'none';
}

/** How a run that waited for the lock plans again when the prefix changed meanwhile. */
export interface Replan {
  /** The prefix as the run read it where it started, before the plan was made. */
  prefix: PrefixState;
  /** Plans again from the prefix as it is once the lock is held. */
  replan(now: PrefixState): Promise<InstallPlan>;
}

function refdriverOf(plan: InstallPlan, opts: SetupOptions): boolean {
  const refdriver = plan.request?.refdriver ?? opts.refdriver;
  if (refdriver && !plan.host.native) {
    throw new XpuError('USAGE', '--refdriver builds and runs code, so it cannot be combined with --platform for another machine');
  }
  return refdriver;
}

export async function runSetup(planned: InstallPlan, opts: SetupOptions, deps: Deps, reporter: Reporter, index: RunIndex, again?: Replan): Promise<SetupResult> {
  await assertInstallable(planned);
  refdriverOf(planned, opts);
  const onWait = (pid: number, lock: string) => reporter.info(`waiting for another xpu-setup (pid ${pid}) that is installing into ${planned.prefix} (lock file ${lock})`);
  return withPrefixLock(planned.prefix, async () => {
    // The prefix as this run replaces it, read once the lock is held: every step below is handed this, or the receipt
    // this run wrote after it.
    const now = await checkPrefixOwnership(planned.prefix);
    let plan = planned;
    // The plan was made before the lock was taken: another run may have changed the prefix (removed a component,
    // say) while this one waited. Planned over again from what the prefix holds now, never undone.
    if (again && prefixBasis(now) !== prefixBasis(again.prefix)) {
      reporter.info(`${plan.prefix} changed while this run waited for another xpu-setup: planning again from what it holds now`);
      plan = await again.replan(now);
      await assertInstallable(plan);
    }
    plan = await decideRuntimeLibraries(plan, deps, reporter, index);
    const refdriver = refdriverOf(plan, opts);
    const before = installedFor(now, plan.platform);
    const diff = diffPlan(before, plan);
    const unasked = diff.changes.filter((c) => c.kind === 'remove' && !(plan.remove ?? []).includes(c.component)).map((c) => c.component);
    if (diff.lines.length) {
      reporter.info(`changes to ${plan.prefix}:`);
      for (const l of diff.lines) reporter.info(`  ${l}`);
    }
    if (unasked.length) {
      throw new XpuError('REMOVAL', `this run would remove ${unasked.join(', ')} from ${plan.prefix}, which was not asked`, {
        details: { prefix: plan.prefix, components: unasked },
        hints: [`to remove ${unasked.length === 1 ? 'it' : 'them'}, say so: --remove ${unasked.join(',')}`, 'nothing was changed'],
      });
    }
    const current = await isUpToDate(plan, now, { rehash: opts.rehash });
    let install: InstallResult;
    if (current) {
      install = { prefix: plan.prefix, changed: false, receipt: current, notes: [] };
      // Same files, new words for them (a constraint added, say): the receipt records the request as asked now.
      if (plan.request && !sameRequest(current.request, plan.request)) {
        install.receipt = await updateReceipt(plan.prefix, current, (r) => {
          r.request = plan.request;
          r.plan = recordedPlan(lockedOf(plan));
        });
        install.requestUpdated = true;
      }
    } else {
      const start = performance.now();
      // The fetch, the unpacking, the archive readers and the pre-swap check load only when something is installed.
      const [{ startFetch }, { checkStagedComponent, checkStagedTree }, { installPlan }] = await Promise.all([import('../fetch/fetch.js'), import('../build/staged-check.js'), import('../install/install.js')]);
      const reused = plan.reusedFrom;
      try {
        install = await installPlan(plan, startFetch(plan, deps, reporter, await index.gateway()), reporter, {
          limits: opts.limits,
          check: (dir, c, p) => checkStagedComponent(dir, c, p, deps),
          checkTree: (dir, p) => checkStagedTree(dir, p, deps),
          prefixState: now,
          locked: lockedOf(plan),
        });
      } catch (e) {
        // The index may have been re-published since the plan this run reused was made: the server is not to blame.
        if (reused && e instanceof XpuError && (e.code === 'HASH_MISMATCH' || e.code === 'SIZE_MISMATCH')) {
          e.hints.unshift(`this run reused the plan made at ${reused} for the same request; the index may have been re-published since: run again with --refresh to ask it again`);
        }
        throw e;
      }
      reporter.debug(`fetch and install: ${Math.round(performance.now() - start)} ms`);
    }
    const envBefore = JSON.stringify(before?.extraEnv ?? {});
    const result: SetupResult = { plan, install };

    const skipped = afterInstall(plan, opts).skipped;
    if (skipped) {
      result.verifySkipped = skipped;
      return result;
    }

    // The receipt as this run last wrote it; result.install.receipt stays the install's until the end.
    let receipt = install.receipt;
    if (refdriver) {
      const { buildRefDriver, keptRefDriver } = await import('../build/refdriver.js');
      // A run that installed nothing keeps the driver an earlier run of this version built and selected: it is in the
      // receipt and verified with the other files, so no compiler is asked (--probe builds again).
      const kept = install.changed || opts.reprobe ? undefined : await keptRefDriver(plan.prefix, install.receipt, VERSION, deps);
      if (kept) reporter.info(`CPU reference driver up to date: ${kept} (built by an earlier run; --probe builds it again)`);
      result.refdriver = kept ? { output: kept } : { output: '', build: await buildRefDriver(plan.prefix, { deps, reporter }) };
      if (result.refdriver.build) {
        result.refdriver.output = result.refdriver.build.output;
        receipt = await recordBuilds(plan.prefix, receipt, { refdriver: result.refdriver.build });
      }
    } else if (receipt.builds?.refdriver) {
      // Not asked for now: the driver an earlier run built leaves the prefix.
      receipt = await recordBuilds(plan.prefix, receipt, {}, ['refdriver']);
    }
    const altDrivers = result.refdriver?.output;
    // The driver role's variables: the loader reads its choice at zeInit, and this process has not initialised it yet.
    const driverEnv = altDrivers ? driverChoiceEnv([altDrivers], { prefix: plan.prefix, layout: nodeLayout(deps.platform) }) : {};
    Object.assign(deps.env, driverEnv);

    const replayed = install.changed ? undefined : await replayProof(plan.prefix, install.receipt, altDrivers, opts, deps);
    if (replayed) {
      result.verify = replayed.verify;
      result.verifyReplayedFrom = replayed.at;
      reporter.info(`build, probe and smoke: nothing they depend on changed since ${replayed.at}; this is that run's answer (--probe, --smoke run them again)`);
      if (!replayed.verify.probe.ok) reporter.warn(`nothing could be run: ${String(replayed.verify.probe.error?.message ?? replayed.verify.probe.skipped ?? 'no device')}`);
      return result;
    }

    // The env files follow this run's choice of driver now, and lose any earlier probe's answers until this one's.
    const cleared = await updateReceipt(plan.prefix, receipt, (r) => {
      const extra = { ...(r.extraEnv ?? {}) };
      for (const k of RUN_ENV_VARS) delete extra[k];
      Object.assign(extra, driverEnv);
      r.extraEnv = extra;
      delete r.probe;
      delete r.proof;
    });

    const verify = await verifyStack(plan.prefix, { deps, reporter, smoke: opts.smoke, requireDevice: opts.requireDevice, receipt: cleared });
    result.verify = verify;
    const t = verify.tritonEnv;
    const extra: Record<string, string> = { ...(cleared.extraEnv ?? {}) };
    if (t?.arch) extra[EnvVars.TRITON_INTEL_DEVICE_ARCH] = t.arch;
    if (t?.extensions.length) extra[EnvVars.TRITON_INTEL_DEVICE_EXTENSIONS] = t.extensions.join(' ');
    // A failed build is not an answer to keep: the next run tries again (a compiler may have been installed since).
    const inputs = verify.build.ok
      ? await proofInputs(plan.prefix, { planKey: plan.planKey, extraEnv: Object.keys(extra).length ? extra : undefined }, deps, {
          addon: await fileMark(verify.build.value.output),
        })
      : undefined;
    const proved = await updateReceipt(plan.prefix, cleared, (r) => {
      r.extraEnv = extra;
      if (t) r.probe = { arch: t.arch, extensions: t.extensions, device: t.device, driver: t.driver };
      if (inputs) r.proof = { inputs: inputs.key, at: new Date().toISOString(), smoke: verify.smoke.ok, verify };
    });
    // The addon joins the receipt, so the no-op check and doctor verify it like any installed file.
    const addon = result.verify.build.ok ? result.verify.build.value : undefined;
    result.install.receipt = await recordBuilds(plan.prefix, proved, { addon });
    // The env files changed when the variables they export did: then this run changed the prefix.
    if (before && JSON.stringify(result.install.receipt.extraEnv ?? {}) !== envBefore) {
      result.install.changed = true;
      result.install.envChanged = true;
    }
    return result;
  }, { onWait, onStale: (why) => reporter.debug(`took over the lock of ${planned.prefix}: ${why}`) });
}

/**
 * The receipt's last verify answer, when nothing it depends on changed (see probe/inputs.ts) and nothing asks for a
 * new one: the same prefix, driver choice, driver libraries, environment and addon build. Runs no process.
 */
async function replayProof(
  prefix: string,
  receipt: Receipt,
  altDrivers: string | undefined,
  opts: SetupOptions,
  deps: Deps,
): Promise<{ verify: VerifyResult; at: string } | undefined> {
  const p = receipt.proof;
  if (!p || opts.reprobe || opts.resmoke) return undefined;
  if (chosenDrivers(receipt.extraEnv) !== altDrivers) return undefined;
  // The receipt's proof is written by this file only, from a VerifyResult.
  const verify = p.verify as VerifyResult;
  // A kernel that could have run (a device was there) but was not asked to then must run now.
  if (opts.smoke && verify.probe.ok && !p.smoke) return undefined;
  const addon = await lastBuilt(addonSpec(prefix, deps.platform), deps);
  const inputs = await proofInputs(prefix, receipt, deps, { addon: await fileMark(addon) });
  if (inputs.key !== p.inputs) return undefined;
  // The same inputs gave no device last time; --require-device makes that answer the error it would be again.
  const noDevice = !verify.probe.ok ? verify.probe.error : undefined;
  if (opts.requireDevice && noDevice?.code === 'NO_DEVICE') {
    const hints = Array.isArray(noDevice.hints) ? noDevice.hints.map(String) : [];
    const details = typeof noDevice.details === 'object' && noDevice.details !== null ? (noDevice.details as Record<string, unknown>) : {};
    throw new XpuError('NO_DEVICE', String(noDevice.message), { hints, details: { ...details, recordedAt: p.at } });
  }
  if (opts.requireDevice && !verify.probe.ok) return undefined;
  return { verify: opts.smoke ? verify : { ...verify, smoke: { ok: false, skipped: '--no-smoke' } }, at: p.at };
}
