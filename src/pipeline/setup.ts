// The setup flow: under the prefix lock, settle the plan (pipeline/settle.ts), install it (or find it installed),
// then build, probe and smoke, or replay the answer recorded for the same inputs.
import { whenSaid } from '../base/when.js';
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import { addonSpec } from '../build/addon.js';
import { lastBuilt, type CompileResult } from '../build/compile.js';
import { EnvVars, RUN_ENV_VARS } from '../base/env-names.js';
import type { InstallResult } from '../install/install.js';
import { withPrefixLock } from '../prefix/lock.js';
import { checkPrefixOwnership, recordedPlan, type PrefixState } from '../prefix/prefix-state.js';
import { draftBuilds, draftReceipt, writePrefixFiles, type Draft } from '../prefix/prefix-writer.js';
import type { Receipt } from '../records/receipt.js';
import { nodeLayout } from '../platform/index.js';
import { chosenDrivers, driverChoiceEnv } from '../roles/index.js';
import { lockedOf } from '../plan/lockfile.js';
import { sameRequest } from '../plan/request.js';
import { verdictsFrom } from '../plan/turned-away.js';
import { rememberVerdicts } from '../cache/verdicts.js';
import type { InstallPlan } from '../records/plan.js';
import { proofInputs } from '../probe/inputs.js';
import type { Look } from '../cache/quick-answers.js';
import type { Reporter } from '../base/reporter.js';
import { VERSION } from '../base/version.js';
import type { SetupOptions } from './options.js';
import type { VerifyResult } from './probe.js';
import { proveInChild } from './prove.js';
import type { RunIndex } from './run-index.js';
import { assertInstallable, refuseForeignRefdriver, settle, type Replan, type SettleScope, type Settled } from './settle.js';
import { receiptEnvVars } from '../shells/env.js';

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
  /** With verifyReplayedFrom: what that answer's fingerprint was read from (probe/inputs.ts), for a quick answer. */
  replayLooked?: Look[];
}

export async function runSetup(planned: InstallPlan, opts: SetupOptions, deps: Deps, reporter: Reporter, index: RunIndex, again?: Replan): Promise<SetupResult> {
  await assertInstallable(planned);
  refuseForeignRefdriver(planned, opts);
  const onWait = (pid: number, lock: string) => reporter.info(`waiting for another xpu-setup (pid ${pid}) that is installing into ${planned.prefix} (lock file ${lock})`);
  const onStale = (why: string) => reporter.debug(`took over the lock of ${planned.prefix}: ${why}`);
  return withPrefixLock(planned.prefix, () => setupLocked(planned, opts, { opts, deps, reporter, index, again }), { onWait, onStale });
}

/**
 * Under the prefix lock: settle everything the plan leaves open, install (or find it installed), then build, probe
 * and smoke. The receipt is drafted as the run goes and written twice at most: at the swap and at the end; the files
 * a draft stops listing leave the prefix only once the receipt that no longer lists them is written.
 */
async function setupLocked(planned: InstallPlan, opts: SetupOptions, s: SettleScope): Promise<SetupResult> {
  // The prefix as this run replaces it, read once the lock is held: every step below is handed this, or the receipt
  // this run drafted after it.
  const now = await checkPrefixOwnership(planned.prefix);
  const { settled, install, written } = await installSettled(planned, now, s);
  const { plan, before, after } = settled;
  if (after.skipped) return writeEnd({ plan, install, verifySkipped: after.skipped }, written);
  const { deps, reporter } = s;
  const driven = await chooseRefDriver(plan, install, after.refdriver, opts, deps, reporter);
  const altDrivers = driven.refdriver?.output;
  // The driver role's variables, for this run's probe and smoke: the loader reads its choice when it is loaded.
  const installed = plan.components.filter((c) => c.status === 'planned');
  const driverEnv = altDrivers ? driverChoiceEnv([altDrivers], { prefix: plan.prefix, layout: nodeLayout(deps.platform) }, installed) : {};
  const runDeps: Deps = altDrivers ? { ...deps, env: { ...deps.env, ...driverEnv } } : deps;
  const base = { plan, ...(driven.refdriver ? { refdriver: driven.refdriver } : {}) };

  const replayed = install.changed ? undefined : await replayProof(plan.prefix, driven.draft.receipt, chosenDrivers(driverEnv), opts, runDeps);
  if (replayed) {
    reporter.info(`build, probe and smoke: nothing they depend on changed since ${whenSaid(replayed.at)}; this is that run's answer (--probe, --smoke run them again)`);
    if (!replayed.verify.probe.ok) reporter.warn(`nothing could be run: ${String(replayed.verify.probe.error?.message ?? replayed.verify.probe.skipped ?? 'no device')}`);
    const result = { ...base, install: { ...install, receipt: driven.draft.receipt }, verify: replayed.verify, verifyReplayedFrom: replayed.at, replayLooked: replayed.looked };
    return writeEnd(result, written, driven.draft.obsolete);
  }
  const proved = await verifyAndRecord(plan, driven.draft, driverEnv, opts, runDeps, reporter);
  // The env files changed when the variables they export did: then this run changed the prefix.
  const envChanged = !!before && JSON.stringify(proved.draft.receipt.extraEnv ?? {}) !== JSON.stringify(before.extraEnv ?? {});
  const done: InstallResult = { ...install, receipt: proved.draft.receipt, ...(envChanged ? { changed: true, envChanged: true } : {}) };
  return writeEnd({ ...base, install: done, verify: proved.verify }, written, proved.draft.obsolete);
}

/** How many candidates one run turns away after their download before it stops with the last refusal. */
const MAX_REPLANS = 3;

/**
 * Settles the plan and installs it; when the install refuses a component's package for what its download showed (it
 * lacks a file the component's roles require, or its libraries do not load here), that is remembered
 * (cache/verdicts.ts) and the run plans again without it, so the next candidate is tried in the same run.
 */
async function installSettled(planned: InstallPlan, now: PrefixState, s: SettleScope): Promise<{ settled: Settled; install: InstallResult; written: Receipt }> {
  let next = planned;
  for (let tries = 0; ; tries++) {
    const settled = await settle(next, now, s);
    try {
      const done = await installOrKeep(settled, now, s);
      // The install decided the runtime libraries the settled plan left open.
      return { settled: { ...settled, plan: done.install.plan }, ...done };
    } catch (e) {
      const verdicts = verdictsFrom(e, settled.plan);
      if (!verdicts.length || !s.again || tries >= MAX_REPLANS) throw e;
      await rememberVerdicts(settled.plan.cacheDir, verdicts);
      for (const v of verdicts) s.reporter.warn(`${v.component}: ${v.candidate}: ${v.why}: planning again without it`);
      // With nothing else to try, the refusal itself is the answer, with what the search found besides.
      next = await s.again.replan(now).catch((other: unknown) => {
        if (e instanceof XpuError) e.hints.push(`nothing else to try: ${(other as Error).message}`);
        throw e;
      });
      await assertInstallable(next);
    }
  }
}

/**
 * The prefix installed from the settled plan, or found up to date. `written`: the receipt as the prefix holds it now
 * (the swap's, or the one found); `install.receipt` is the run's draft, which records the request as asked now.
 */
async function installOrKeep(settled: Settled, now: PrefixState, s: SettleScope): Promise<{ install: InstallResult; written: Receipt }> {
  const { plan, upToDate: current } = settled;
  const { opts, deps, reporter, index } = s;
  if (current) {
    const install: InstallResult = { plan, prefix: plan.prefix, changed: false, receipt: current, notes: [] };
    // Same files, new words for them (a constraint added, say): the receipt records the request as asked now.
    if (plan.request && !sameRequest(current.request, plan.request)) {
      install.receipt = await draftReceipt(current, (r) => {
        r.request = plan.request;
        r.plan = recordedPlan(lockedOf(plan));
      });
      install.requestUpdated = true;
    }
    return { install, written: current };
  }
  const start = performance.now();
  // The fetch, the unpacking, the archive readers and the pre-swap check load only when something is installed.
  const [{ startFetch }, { checkStagedComponent, checkStagedTree }, { installPlan }] = await Promise.all([import('../fetch/fetch.js'), import('../build/staged-check.js'), import('../install/install.js')]);
  // The fetch the runtime decision started goes on; otherwise the run's one fetch starts here.
  const fetching = settled.fetch ? settled.fetch.as(plan) : startFetch(plan, deps, reporter, await index.gateway());
  try {
    const install = await installPlan(plan, fetching, reporter, {
      limits: opts.limits,
      check: (dir, c, p) => checkStagedComponent(dir, c, p, deps),
      checkTree: (dir, p) => checkStagedTree(dir, p, deps),
      prefixState: now,
      lockedOf,
      ...(settled.decideRuntime ? { decideRuntime: settled.decideRuntime } : {}),
    });
    reporter.debug(`fetch and install: ${Math.round(performance.now() - start)} ms`);
    return { install, written: install.receipt };
  } catch (e) {
    // The index may have been re-published since the plan this run reused was made: the server is not to blame.
    if (plan.reusedFrom && e instanceof XpuError && (e.code === 'HASH_MISMATCH' || e.code === 'SIZE_MISMATCH')) {
      e.hints.unshift(`this run reused the plan made at ${whenSaid(plan.reusedFrom)} for the same request; the index may have been re-published since: run again with --refresh to ask it again`);
    }
    throw e;
  }
}

/**
 * The reference driver this run selects, built now or kept from an earlier run of this version, and the draft that
 * records it; without --refdriver, the draft without the driver an earlier run built (its files leave the prefix
 * when that draft is written).
 */
async function chooseRefDriver(
  plan: InstallPlan,
  install: InstallResult,
  refdriver: boolean,
  opts: SetupOptions,
  deps: Deps,
  reporter: Reporter,
): Promise<{ refdriver?: SetupResult['refdriver']; draft: Draft }> {
  const draft: Draft = { receipt: install.receipt, obsolete: [] };
  if (!refdriver) {
    // Not asked for now: the driver an earlier run built leaves the prefix.
    return { draft: install.receipt.builds?.refdriver ? await draftBuilds(plan.prefix, draft, {}, ['refdriver']) : draft };
  }
  const { buildRefDriver, keptRefDriver } = await import('../build/refdriver.js');
  // A run that installed nothing keeps the driver an earlier run of this version built and selected: it is in the
  // receipt and verified with the other files, so no compiler is asked (--probe builds again).
  const kept = install.changed || opts.reprobe ? undefined : await keptRefDriver(plan.prefix, install.receipt, VERSION, deps);
  if (kept) {
    reporter.info(`CPU reference driver up to date: ${kept} (built by an earlier run; --probe builds it again)`);
    return { refdriver: { output: kept }, draft };
  }
  const build = await buildRefDriver(plan.prefix, { deps, reporter });
  return { refdriver: { output: build.output, build }, draft: await draftBuilds(plan.prefix, draft, { refdriver: build }) };
}

/**
 * Builds, probes and smoke-tests the prefix with this run's driver choice, and drafts the receipt that records the
 * answers: the env files follow the choice, lose any earlier probe's answers and gain this one's.
 */
async function verifyAndRecord(
  plan: InstallPlan,
  draft: Draft,
  driverEnv: Record<string, string>,
  opts: SetupOptions,
  deps: Deps,
  reporter: Reporter,
): Promise<{ verify: VerifyResult; draft: Draft }> {
  const cleared = await draftReceipt(draft.receipt, (r) => {
    const extra = { ...(r.extraEnv ?? {}) };
    for (const k of RUN_ENV_VARS) delete extra[k];
    Object.assign(extra, driverEnv);
    r.extraEnv = extra;
    delete r.probe;
    delete r.proof;
  });
  // In a child with the environment the env files written from this draft give: what a user's program gets.
  const verify = await proveInChild(plan.prefix, receiptEnvVars(cleared), { deps, reporter, smoke: opts.smoke, requireDevice: opts.requireDevice, receipt: cleared });
  const t = verify.tritonEnv;
  const extra: Record<string, string> = { ...(cleared.extraEnv ?? {}) };
  if (t?.arch) extra[EnvVars.TRITON_INTEL_DEVICE_ARCH] = t.arch;
  if (t?.extensions.length) extra[EnvVars.TRITON_INTEL_DEVICE_EXTENSIONS] = t.extensions.join(' ');
  // A failed build is not an answer to keep: the next run tries again (a compiler may have been installed since).
  const inputs = verify.build.ok
    ? await proofInputs(plan.prefix, { planKey: plan.planKey, extraEnv: Object.keys(extra).length ? extra : undefined }, deps, { addon: verify.build.value.output })
    : undefined;
  const proved = await draftReceipt(cleared, (r) => {
    r.extraEnv = extra;
    if (t) r.probe = { arch: t.arch, extensions: t.extensions, device: t.device, driver: t.driver };
    if (inputs) r.proof = { inputs: inputs.key, at: new Date().toISOString(), smoke: verify.smoke.ok, verify };
  });
  // The addon joins the receipt, so the no-op check and doctor verify it like any installed file.
  return { verify, draft: await draftBuilds(plan.prefix, { ...draft, receipt: proved }, { addon: verify.build.ok ? verify.build.value : undefined }) };
}

/**
 * The run's end: its draft of the receipt (and the env files) written, unless the prefix holds it already; then the
 * files the draft stopped listing leave the prefix.
 */
async function writeEnd(result: SetupResult, written: Receipt, obsolete: readonly string[] = []): Promise<SetupResult> {
  if (result.install.receipt !== written || obsolete.length) await writePrefixFiles(result.install.prefix, result.install.receipt, obsolete);
  return result;
}

/**
 * The receipt's last verify answer, when nothing it depends on changed (see probe/inputs.ts) and nothing asks for a
 * new one: the same prefix, driver choice, driver libraries, environment and addon build. Runs no process.
 */
async function replayProof(
  prefix: string,
  receipt: Receipt,
  choice: string | undefined,
  opts: SetupOptions,
  deps: Deps,
): Promise<{ verify: VerifyResult; at: string; looked: Look[] } | undefined> {
  const p = receipt.proof;
  if (!p || opts.reprobe || opts.resmoke) return undefined;
  if (chosenDrivers(receipt.extraEnv) !== choice) return undefined;
  // The receipt's proof is written by this file only, from a VerifyResult.
  const verify = p.verify as VerifyResult;
  // A kernel that could have run (a device was there) but was not asked to then must run now.
  if (opts.smoke && verify.probe.ok && !p.smoke) return undefined;
  const addon = await lastBuilt(addonSpec(prefix, deps.platform), deps);
  const inputs = await proofInputs(prefix, receipt, deps, { addon });
  if (inputs.key !== p.inputs) return undefined;
  // The same inputs gave no device last time; --require-device makes that answer the error it would be again.
  const noDevice = !verify.probe.ok ? verify.probe.error : undefined;
  if (opts.requireDevice && noDevice?.code === 'NO_DEVICE') {
    const hints = Array.isArray(noDevice.hints) ? noDevice.hints.map(String) : [];
    const details = typeof noDevice.details === 'object' && noDevice.details !== null ? (noDevice.details as Record<string, unknown>) : {};
    throw new XpuError('NO_DEVICE', String(noDevice.message), { hints, details: { ...details, recordedAt: p.at } });
  }
  if (opts.requireDevice && !verify.probe.ok) return undefined;
  return { verify: opts.smoke ? verify : { ...verify, smoke: { ok: false, skipped: '--no-smoke' } }, at: p.at, looked: inputs.looked };
}
