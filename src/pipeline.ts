// The whole job, stage after stage: detect -> plan -> fetch -> install -> build -> probe -> smoke; the one place stages meet.
import type { Deps } from './deps.js';
import { isUnreachable, isXpuError, XpuError } from './errors.js';
import { addonSpec } from './build/addon.js';
import { lastBuilt, type CompileResult } from './build/compile.js';
import type { ProbeReport } from './caps/model.js';
import { detectHost } from './host/index.js';
import type { TargetPlatform } from './host/types.js';
import type { InstallResult } from './install/install.js';
import { checkPrefixOwnership, isUpToDate, recordedPlan, refuseForeignPrefix } from './install/prefix-state.js';
import { withPrefixLock } from './install/lock.js';
import { recordBuilds, updateReceipt } from './install/prefix-writer.js';
import type { UnpackLimits } from './install/limits.js';
import { readReceipt, RECEIPT_NAME, type Receipt } from './install/receipt.js';
import { verifyPrefix } from './install/verify.js';
import { loadManifests } from './manifest/load.js';
import { loadPep440 } from './sources/pep440.js';
import { DownloadCache } from './cache/store.js';
import { diffPlan } from './plan/diff.js';
import { loadLockSource, lockedOf, newLockfile, planFromLocked, type LockedPlatform, type Lockfile } from './plan/lockfile.js';
import type { ExistingInstalls, InstallPlan, NamedBy, PlanOptions } from './plan/plan.js';
import { planRequestKey, recentPlan, rememberPlan } from './plan/recent.js';
import { mergeRequest, type RequestFlags, type SetupRequest } from './plan/request.js';
import { readTorchMatch, torchMismatch, TORCH_RUNTIME_PACKAGES } from './plan/torch.js';
import { activeEnvDistributions } from './inspect/python-dists.js';
import type { ComponentManifest } from './manifest/schema.js';
import type { PlannedArchive } from './sources/types.js';
import type { Host } from './host/types.js';
import * as path from 'node:path';
import { fileMark, proofInputs } from './probe/inputs.js';
import type { Reporter } from './reporter.js';
import type { SmokeResult } from './smoke/index.js';
import { EnvVars, RUN_ENV_VARS } from './env-names.js';
import { VERSION } from './version.js';

export interface SetupOptions {
  plan: PlanOptions;
  /**
   * What this run's flags said. With a receipt in the prefix, everything not said is repeated from its recorded
   * request; without flags, `plan` is the whole request.
   */
  flags?: RequestFlags;
  /** Install exactly this lockfile's entry for the platform; no index is asked. */
  locked?: string;
  /** A bundle (directory or URL): its lockfile, with archives fetched from the bundle only. */
  from?: string;
  /** Use the download cache only; a missing archive is an error naming its URL and hash. */
  offline?: boolean;
  platform?: TargetPlatform;
  manifestsDir?: string;
  /** Build the CPU reference driver into the prefix and make the env files select it. */
  refdriver: boolean;
  /** Run the kernel after the probe. */
  smoke: boolean;
  /** "No device" fails the run instead of being reported. */
  requireDevice: boolean;
  /** false (`--no-probe`): install only; no addon build, probe or kernel (an image built without a GPU, say). */
  verify?: boolean;
  /** Hash every installed file (`--verify`) instead of trusting the ones whose size and mtime match the receipt. */
  rehash?: boolean;
  /** Build and probe again (`--probe`) even when the receipt holds the answer for the same inputs. */
  reprobe?: boolean;
  /** Run the kernel again (`--smoke`) even when the receipt says it passed under the same inputs. */
  resmoke?: boolean;
  /** How much one archive may unpack to (default DEFAULT_LIMITS). */
  limits?: UnpackLimits;
}

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

export type PlanSetupOptions = Pick<SetupOptions, 'plan' | 'platform' | 'manifestsDir'> &
  Partial<Pick<SetupOptions, 'flags' | 'locked' | 'from' | 'offline' | 'refdriver'>> & {
    /**
     * `lock` and `bundle` without `--prefix`: the request is the command line's alone. No prefix is read (its receipt,
     * its installed components) or refused.
     */
    standalone?: boolean;
  };

/**
 * `withExisting` also reports what is installed outside the prefix; it asks dpkg about files (a few hundred ms), so
 * only `plan` asks for it, not every setup run.
 */
export async function planSetup(
  opts: PlanSetupOptions,
  deps: Deps,
  reporter: Reporter,
  withExisting = false,
  reuse: { recent: boolean } = { recent: false },
): Promise<InstallPlan> {
  // Plans, lockfiles and receipts may hold PyPI versions, compared from here on in PEP 440's order.
  const [host] = await Promise.all([detectHost(deps, opts.platform), loadPep440()]);
  // A directory setup would refuse is refused before any index is read.
  if (!opts.standalone) {
    const damaged = await refuseForeignPrefix(opts.plan.prefix);
    if (damaged) reporter.warn(damaged);
  }
  const manifests = await loadManifests(opts.manifestsDir);
  const [plan, existing] = await Promise.all([
    planFor(host, manifests, opts, deps, reporter, reuse.recent && !withExisting),
    host.native && withExisting ? existingInstalls(deps, opts.plan.prefix, reporter) : undefined,
  ]);
  if (withExisting) await fillSizes(plan, deps);
  if (host.native && !plan.request?.matchTorch) await noteTorchMismatch(plan, deps, reporter);
  // `plan` decides the runtime libraries early where the cache already holds what the decision reads.
  const decided = withExisting && host.native ? await decideRuntimeLibraries(plan, deps, reporter, { cacheOnly: true }) : plan;
  return existing ? { ...decided, existing } : decided;
}

/** An active Python environment with torch whose runtime packages this plan would shadow: said, with how to match. */
async function noteTorchMismatch(plan: InstallPlan, deps: Deps, reporter: Reporter): Promise<void> {
  const env = await activeEnvDistributions(deps, ['torch', ...TORCH_RUNTIME_PACKAGES]);
  const note = env && torchMismatch(env, plan);
  if (!note) return;
  reporter.warn(note);
  plan.notes = [...(plan.notes ?? []), note];
}

function sameRequest(a: SetupRequest | undefined, b: SetupRequest): boolean {
  return !!a && JSON.stringify({ ...a, indexUrl: a.indexUrl ?? null }) === JSON.stringify({ ...b, indexUrl: b.indexUrl ?? null });
}

/** The archives of a recorded plan that are not in the cache (by name and size; fetch verifies the hash). */
export async function missingFromCache(locked: LockedPlatform, cacheDir: string): Promise<{ url: string; sha256: string }[]> {
  const cache = new DownloadCache(cacheDir);
  const missing: { url: string; sha256: string }[] = [];
  for (const a of locked.components.flatMap((c) => c.archives)) {
    const st = await import('node:fs/promises').then((fs) => fs.stat(cache.pathFor(a.sha256))).catch(() => undefined);
    if (!st?.isFile() || (a.size !== undefined && st.size !== a.size)) missing.push({ url: a.url, sha256: a.sha256 });
  }
  return missing;
}

/** The receipt's plan, when it is what was asked, is intact on disk, and every archive is cached: safe with no index. */
async function intactRecordedPlan(receipt: Receipt | undefined, request: SetupRequest, prefix: string, cacheDir: string): Promise<LockedPlatform | undefined> {
  if (!receipt?.plan || !sameRequest(receipt.request, request) || receipt.plan.planKey !== receipt.planKey) return undefined;
  if ((await verifyPrefix(prefix, receipt)).length) return undefined;
  if ((await missingFromCache(receipt.plan, cacheDir)).length) return undefined;
  return receipt.plan;
}

function noIndexAnswered(e: unknown): boolean {
  if (isUnreachable(e)) return true;
  if (!(e instanceof XpuError)) return false;
  return (e.code === 'NO_SOURCE' && e.details.unreachable === true) || (e.code === 'SOURCE_FAILED' && e.details.outcome === 'unreachable');
}

async function planFor(
  host: Host,
  manifests: ComponentManifest[],
  opts: PlanSetupOptions,
  deps: Deps,
  reporter: Reporter,
  recent = false,
): Promise<InstallPlan> {
  const { prefix, cacheDir } = opts.plan;
  const receiptFile = path.join(prefix, RECEIPT_NAME);
  const receipt = opts.standalone ? undefined : await readReceipt(prefix).catch(() => undefined);
  const mine = receipt?.platform === host.platform ? receipt : undefined;
  const installed = mine?.components.map((c) => c.name) ?? [];

  if (opts.locked || opts.from) {
    const src = await loadLockSource(opts.from ? { bundle: opts.from } : { file: opts.locked! }, deps.env);
    const entry = src.entry(host.platform);
    const plan = planFromLocked(host, manifests, entry, {
      prefix,
      cacheDir,
      request: { ...src.lock.request, refdriver: opts.flags?.refdriver ?? src.lock.request.refdriver },
      from: { kind: opts.from ? 'bundle' : 'lock', path: src.where },
      relocate: src.relocate,
    });
    const gone = installed.filter((c) => !plan.components.some((p) => p.name === c));
    plan.remove = gone.filter((c) => opts.flags?.remove?.includes(c));
    return plan;
  }

  const merged = opts.flags
    ? mergeRequest(mine?.request, opts.flags, installed, manifests.map((m) => m.name))
    : undefined;
  const request: SetupRequest = merged?.request ?? {
    components: opts.plan.components,
    sources: opts.plan.sources,
    condaChannels: opts.plan.condaChannels,
    ...(opts.plan.indexUrl ? { indexUrl: opts.plan.indexUrl } : {}),
    requires: opts.plan.requires ?? [],
    refdriver: !!opts.refdriver,
    ...(opts.plan.matchTorch ? { matchTorch: opts.plan.matchTorch } : {}),
  };
  for (const n of merged?.notes ?? []) reporter.info(n);
  const extended = merged && mine?.request ? receiptFile : undefined;

  if (opts.offline) {
    const recorded = mine?.plan && sameRequest(mine.request, request) ? mine.plan : undefined;
    if (!recorded) {
      throw new XpuError('OFFLINE', `--offline needs a plan that asks no index, and ${prefix} records none for this request`, {
        details: { prefix },
        hints: [
          'install from a lockfile: xpu-setup --locked --offline (write it online with: xpu-setup lock)',
          'or from a bundle: xpu-setup --from DIR (make it with: xpu-setup bundle --platform ... --out DIR)',
          'or run once online with the same flags; later --offline runs repeat that plan from the cache',
        ],
      });
    }
    return planFromLocked(host, manifests, recorded, { prefix, cacheDir, request, from: { kind: 'receipt', path: receiptFile, reason: '--offline' } });
  }

  // Channels and an index repeated from the receipt were named there: errors about them say so.
  const namedBy: NamedBy = { ...opts.plan.namedBy };
  if (merged && !opts.flags?.condaChannels && request.condaChannels.length) namedBy.conda = `the conda channels recorded in ${receiptFile}`;
  if (merged && !opts.flags?.indexUrl && request.indexUrl) namedBy.pypi = `the index URL recorded in ${receiptFile}`;
  // --match-torch reads the interpreter on every planning run: what it has installed is part of what is asked.
  const torch = request.matchTorch ? await readTorchMatch(deps, request.matchTorch.python) : undefined;
  const optionsFor = (req: SetupRequest, required: string[] | undefined): PlanOptions => ({
    ...opts.plan,
    torch,
    namedBy,
    components: req.components,
    sources: req.sources,
    condaChannels: req.condaChannels,
    indexUrl: req.indexUrl,
    requires: req.requires,
    required,
  });
  const planOpts = optionsFor(request, merged?.required ?? opts.plan.required);
  const reuse = async (why: string): Promise<InstallPlan | undefined> => {
    const recorded = await intactRecordedPlan(mine, request, prefix, cacheDir);
    if (!recorded) return undefined;
    reporter.warn(`${why}; ${prefix} holds the plan recorded for this request, intact and cached: keeping it`);
    return planFromLocked(host, manifests, recorded, { prefix, cacheDir, request, from: { kind: 'receipt', path: receiptFile, reason: why } });
  };
  // A plan made for the same request less than 10 minutes ago is reused (--refresh asks the indexes again). The key
  // covers everything the plan is computed from besides the indexes' answers, the request repeated from the receipt
  // included; lockfiles, bundles and --offline never get here.
  const keyOf = (req: SetupRequest, required: string[] | undefined, remove: string[]) =>
    planRequestKey({ tool: VERSION, host, manifests, options: { ...optionsFor(req, required), namedBy: undefined }, request: req, remove });
  const key = recent ? keyOf(request, planOpts.required, merged?.remove ?? []) : undefined;
  if (key) {
    const made = await recentPlan(cacheDir, key, deps.now());
    if (made) {
      reporter.debug('plan: reusing the plan made for the same request less than 10 minutes ago (--refresh asks the indexes again)');
      return made;
    }
  }
  let plan: InstallPlan;
  try {
    // The planner and every index client load only when a plan is made, not when a recent one is reused.
    const { makePlan } = await import('./plan/plan.js');
    plan = await makePlan(host, manifests, planOpts, deps, reporter);
  } catch (e) {
    if (noIndexAnswered(e)) {
      const kept = await reuse(`an index could not be reached (${(e as Error).message.split('\n')[0]})`);
      if (kept) return kept;
    }
    throw e;
  }
  const unreachable = plan.components.flatMap((c) => c.attempts.filter((a) => a.outcome === 'unreachable').map((a) => `${c.name}: ${a.reason}`));
  if (unreachable.length) {
    const kept = await reuse(`an index could not be reached (${unreachable[0]})`);
    if (kept) return kept;
  }
  plan.request = request;
  if (extended) plan.extends = extended;
  if (merged?.remove.length) plan.remove = merged.remove;
  if (merged?.notes.length) plan.notes = merged.notes;
  if (key && plan.components.some((c) => c.status === 'planned')) {
    await rememberPlan(cacheDir, key, plan, deps.now());
    // The next run with the same flags finds these components installed, and installed components are required:
    // its key differs, its plan would not (each of them is planned here), so that run finds this plan too.
    if (opts.flags && !opts.flags.remove?.length) {
      const installedNext = plan.components.filter((c) => c.status === 'planned').map((c) => c.name);
      const next = mergeRequest(request, opts.flags, installedNext, manifests.map((m) => m.name));
      const nextKey = keyOf(next.request, next.required, next.remove);
      if (nextKey !== key) await rememberPlan(cacheDir, nextKey, plan, deps.now());
    }
  }
  return plan;
}

/**
 * Sizes an index did not give (PEP 503 HTML has none) come from a HEAD request's Content-Length, so the printed plan
 * says `? B` only when neither knows. `plan` and `lock` ask; setup and bundle learn the size from the download itself.
 */
async function fillSizes(plan: InstallPlan, deps: Deps): Promise<void> {
  const unknown = plan.components.flatMap((c) => c.archives).filter((a) => a.size === undefined && /^https?:/.test(a.url));
  if (!unknown.length) return;
  const http = (await import('./net/http.js')).httpFor(deps.env);
  await Promise.all(unknown.map(async (a) => {
    const r = await http.reach(a.url, 5000);
    if (r.size !== undefined) a.size = r.size;
  }));
}

/** What is installed outside the prefix; a detection failure only costs this summary, never the run. */
async function existingInstalls(deps: Deps, prefix: string, reporter: Reporter): Promise<ExistingInstalls | undefined> {
  try {
    const s = await (await import('./inspect/installs.js')).detectInstalls(deps, {});
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

/** What setup refuses before doing anything: a plan with nothing to install. `plan` gives the same verdict. */
export async function assertInstallable(plan: InstallPlan): Promise<void> {
  if (!plan.components.some((c) => c.status === 'planned')) throw (await import('./plan/plan.js')).noSourceError(plan.components, plan.platform);
}

/** What setup does once the prefix is in place, decided from the plan and the options alone (`plan` shows it). */
export interface AfterInstall {
  /** Why nothing is built or run: another platform, no Level Zero, or --no-probe. */
  skipped?: string;
  refdriver: boolean;
  smoke: boolean;
  requireDevice: boolean;
}

export function afterInstall(plan: InstallPlan, opts: Pick<SetupOptions, 'refdriver' | 'verify' | 'smoke' | 'requireDevice'>): AfterInstall {
  const refdriver = plan.request?.refdriver ?? opts.refdriver;
  const l0 = plan.components.find((c) => c.zeLoader && c.status === 'planned');
  const skipped = !plan.host.native
    ? `installed for ${plan.platform}: nothing is run on this machine`
    : !l0
      ? 'Level Zero was not installed'
      : opts.verify === false
        ? '--no-probe: nothing was built, probed or run'
        : undefined;
  return { ...(skipped ? { skipped } : {}), refdriver: !skipped && refdriver, smoke: !skipped && opts.smoke, requireDevice: !skipped && opts.requireDevice };
}


/**
 * What a plan was made against: the prefix's receipt as it was then (its plan, request and install time), or none.
 * A run that finds another basis once it holds the lock plans again (see runSetup).
 */
export async function prefixBasis(prefix: string): Promise<string> {
  const r = await readReceipt(prefix).catch(() => undefined);
  return r ? JSON.stringify([r.platform, r.planKey, r.installedAt, r.request ?? null]) : 'none';
}

/** How a run that waited for the lock plans again when the prefix changed meanwhile. */
export interface Replan {
  /** prefixBasis() as read before the plan was made. */
  basis: string;
  replan(): Promise<InstallPlan>;
}

function refdriverOf(plan: InstallPlan, opts: SetupOptions): boolean {
  const refdriver = plan.request?.refdriver ?? opts.refdriver;
  if (refdriver && !plan.host.native) {
    throw new XpuError('USAGE', '--refdriver builds and runs code, so it cannot be combined with --platform for another machine');
  }
  return refdriver;
}

/**
 * The runtime library packages of a plan (libstdcxx, libgcc, ...), decided from the binaries of the other archives
 * against this machine's libraries (plan/runtime.ts): those archives are fetched and verified first, and the runtime
 * packages only when a need is unmet. With `cacheOnly` (`plan`), only what the cache holds is read, and what needs
 * more stays undecided.
 */
export async function decideRuntimeLibraries(plan: InstallPlan, deps: Deps, reporter: Reporter, opts: { offline?: boolean; cacheOnly?: boolean }): Promise<InstallPlan> {
  if (!plan.components.some((c) => c.archives.some((a) => a.runtime?.install === undefined && a.runtime))) return plan;
  const [rt, { readLdconfig }] = await Promise.all([import('./plan/runtime.js'), import('./inspect/ldconfig.js')]);
  const cache = new DownloadCache(plan.cacheDir);
  const files = new Map<string, string>();
  const bring = async (archives: PlannedArchive[]): Promise<void> => {
    if (opts.cacheOnly) {
      for (const a of archives) {
        const hit = await cache.lookup(a.sha256);
        if (hit) files.set(a.sha256, hit.path);
      }
      return;
    }
    const { fetchPlan } = await import('./fetch/fetch.js');
    const only = { ...plan, components: plan.components.map((c) => ({ ...c, archives: c.archives.filter((a) => archives.includes(a)) })) };
    for (const f of await fetchPlan(only, deps, reporter, { offline: opts.offline })) files.set(f.archive.sha256, f.file.path);
  };
  await bring(rt.componentArchives(plan));
  const ldcache = (await readLdconfig(deps)).found;
  const decided = await rt.settleRuntime(plan, deps, ldcache, async (a) => files.get(a.sha256), () => bring(rt.runtimeArchives(plan)));
  if (!opts.cacheOnly) {
    for (const c of decided.components) {
      for (const a of c.archives.filter((x) => x.runtime)) reporter.info(`runtime library ${a.package} ${a.version}: ${a.runtime!.why}: installed`);
      for (const a of c.leftToHost ?? []) reporter.info(`runtime library ${a.package} ${a.version}: ${a.runtime!.why}: not installed`);
    }
  }
  return decided;
}

export async function runSetup(planned: InstallPlan, opts: SetupOptions, deps: Deps, reporter: Reporter, again?: Replan): Promise<SetupResult> {
  await assertInstallable(planned);
  refdriverOf(planned, opts);
  const onWait = (pid: number, lock: string) => reporter.info(`waiting for another xpu-setup (pid ${pid}) that is installing into ${planned.prefix} (lock file ${lock})`);
  return withPrefixLock(planned.prefix, async () => {
    await checkPrefixOwnership(planned.prefix);
    let plan = planned;
    // The plan was made before the lock was taken: another run may have changed the prefix (removed a component,
    // say) while this one waited. Planned over again from what the prefix holds now, never undone.
    if (again && (await prefixBasis(plan.prefix)) !== again.basis) {
      reporter.info(`${plan.prefix} changed while this run waited for another xpu-setup: planning again from what it holds now`);
      plan = await again.replan();
      await assertInstallable(plan);
    }
    plan = await decideRuntimeLibraries(plan, deps, reporter, { offline: opts.offline });
    const refdriver = refdriverOf(plan, opts);
    const previous = await readReceipt(plan.prefix).catch(() => undefined);
    const before = previous?.platform === plan.platform ? previous : undefined;
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
    const current = await isUpToDate(plan, { rehash: opts.rehash });
    let install: InstallResult;
    if (current) {
      install = { prefix: plan.prefix, changed: false, receipt: current, notes: [] };
      // Same files, new words for them (a constraint added, say): the receipt records the request as asked now.
      if (plan.request && !sameRequest(current.request, plan.request)) {
        install.receipt = (await updateReceipt(plan.prefix, (r) => {
          r.request = plan.request;
          r.plan = recordedPlan(plan);
        })) ?? current;
        install.requestUpdated = true;
      }
    } else {
      const start = performance.now();
      // The fetch, the unpacking, the archive readers and the pre-swap check load only when something is installed.
      const [{ startFetch }, { checkStagedComponent, checkStagedTree }, { installPlan }] = await Promise.all([import('./fetch/fetch.js'), import('./build/staged-check.js'), import('./install/install.js')]);
      const reused = plan.reusedFrom;
      try {
        install = await installPlan(plan, startFetch(plan, deps, reporter, { offline: opts.offline }), reporter, {
          limits: opts.limits,
          check: (dir, c, p) => checkStagedComponent(dir, c, p, deps),
          checkTree: (dir, p) => checkStagedTree(dir, p, deps),
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

    if (refdriver) {
      const { buildRefDriver, keptRefDriver } = await import('./build/refdriver.js');
      // A run that installed nothing keeps the driver an earlier run of this version built and selected: it is in the
      // receipt and verified with the other files, so no compiler is asked (--probe builds again).
      const kept = install.changed || opts.reprobe ? undefined : await keptRefDriver(plan.prefix, install.receipt, VERSION, deps);
      if (kept) reporter.info(`CPU reference driver up to date: ${kept} (built by an earlier run; --probe builds it again)`);
      result.refdriver = kept ? { output: kept } : { output: '', build: await buildRefDriver(plan.prefix, { deps, reporter }) };
      if (result.refdriver.build) {
        result.refdriver.output = result.refdriver.build.output;
        await recordBuilds(plan.prefix, { refdriver: result.refdriver.build });
      }
    } else if (install.receipt.builds?.refdriver) {
      // Not asked for now: the driver an earlier run built leaves the prefix.
      await recordBuilds(plan.prefix, {}, ['refdriver']);
    }
    const altDrivers = result.refdriver?.output;
    // The loader reads ZE_ENABLE_ALT_DRIVERS at zeInit; this process has not initialised it yet.
    if (altDrivers) deps.env[EnvVars.ZE_ENABLE_ALT_DRIVERS] = altDrivers;

    const replayed = install.changed ? undefined : await replayProof(plan.prefix, install.receipt, altDrivers, opts, deps);
    if (replayed) {
      result.verify = replayed.verify;
      result.verifyReplayedFrom = replayed.at;
      reporter.info(`build, probe and smoke: nothing they depend on changed since ${replayed.at}; this is that run's answer (--probe, --smoke run them again)`);
      if (!replayed.verify.probe.ok) reporter.warn(`nothing could be run: ${String(replayed.verify.probe.error?.message ?? replayed.verify.probe.skipped ?? 'no device')}`);
      return result;
    }

    // The env files follow this run's choice of driver now, and lose any earlier probe's answers until this one's.
    const cleared = await updateReceipt(plan.prefix, (r) => {
      const extra = { ...(r.extraEnv ?? {}) };
      for (const k of RUN_ENV_VARS) delete extra[k];
      if (altDrivers) extra[EnvVars.ZE_ENABLE_ALT_DRIVERS] = altDrivers;
      r.extraEnv = extra;
      delete r.probe;
      delete r.proof;
    });

    const verify = await verifyStack(plan.prefix, { deps, reporter, smoke: opts.smoke, requireDevice: opts.requireDevice });
    result.verify = verify;
    const t = verify.tritonEnv;
    const extra: Record<string, string> = { ...(cleared?.extraEnv ?? {}) };
    if (t?.arch) extra[EnvVars.TRITON_INTEL_DEVICE_ARCH] = t.arch;
    if (t?.extensions.length) extra[EnvVars.TRITON_INTEL_DEVICE_EXTENSIONS] = t.extensions.join(' ');
    // A failed build is not an answer to keep: the next run tries again (a compiler may have been installed since).
    const inputs = verify.build.ok
      ? await proofInputs(plan.prefix, { planKey: plan.planKey, extraEnv: Object.keys(extra).length ? extra : undefined }, deps, {
          addon: await fileMark(verify.build.value.output),
        })
      : undefined;
    await updateReceipt(plan.prefix, (r) => {
      r.extraEnv = extra;
      if (t) r.probe = { arch: t.arch, extensions: t.extensions, device: t.device, driver: t.driver };
      if (inputs) r.proof = { inputs: inputs.key, at: new Date().toISOString(), smoke: verify.smoke.ok, verify };
    });
    // The addon joins the receipt, so the no-op check and doctor verify it like any installed file.
    const addon = result.verify.build.ok ? result.verify.build.value : undefined;
    result.install.receipt =
      (await recordBuilds(plan.prefix, { addon })) ??
      (await readReceipt(plan.prefix)) ??
      result.install.receipt;
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
  if (receipt.extraEnv?.[EnvVars.ZE_ENABLE_ALT_DRIVERS] !== altDrivers) return undefined;
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

/** After install: build the addon, probe through it and koffi, run the smoke kernel. */
export async function verifyStack(prefix: string, opts: VerifyOptions): Promise<VerifyResult> {
  const { deps, reporter } = opts;
  // Loaded here, not with the pipeline: a re-run that replays the recorded proof needs none of them.
  const [{ probeStack, requireDevices }, { runSmoke }, { tritonEnv }] = await Promise.all([import('./probe/probe.js'), import('./smoke/index.js'), import('./caps/format.js')]);
  let build: Step<CompileResult>;
  try {
    build = { ok: true, value: await (await import('./build/addon.js')).buildAddon(prefix, { deps, reporter }) };
  } catch (e) {
    // The koffi probe works without a compiler, so a failed build is reported and the probe still runs.
    build = failed(e);
    // A compile failure keeps the command and the tail of the compiler's output; other failures are one line.
    const msg = (e as Error).message;
    reporter.warn(`runtime addon not built: ${isXpuError(e, 'BUILD') ? msg : msg.split('\n')[0]}`);
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

/**
 * The probe of an installed prefix on its own (`xpu-setup probe`): asks the addon too when a build of it is current.
 * On "no device" the error carries the report, so `--json` can still show what was seen.
 */
export async function probeInstalled(prefix: string | undefined, deps: Deps, device?: string): Promise<ProbeReport> {
  const [{ probeStack, probeSystem, requireDevices }, { pickDevice }] = await Promise.all([import('./probe/probe.js'), import('./runtime/select.js')]);
  const report =
    prefix === undefined
      ? await probeSystem({ deps })
      : await probeStack(prefix, { deps, addonPath: await lastBuilt(addonSpec(prefix, deps.platform), deps) });
  try {
    requireDevices(report, deps);
    if (device !== undefined) report.devices = [pickDevice(report.devices, device)];
  } catch (e) {
    if (e instanceof XpuError) e.details.report = report;
    throw e;
  }
  return report;
}

/**
 * Plans every platform asked for and returns the lockfile: the request as said on the command line (no receipt is
 * read), or with `extend` that request merged into the one recorded in the prefix; and per platform the archives chosen. Components no source could provide are left out, with a warning.
 */
export async function lockSetup(
  opts: Pick<SetupOptions, 'plan' | 'manifestsDir' | 'refdriver' | 'flags'> & { extend: boolean },
  platforms: TargetPlatform[],
  deps: Deps,
  reporter: Reporter,
): Promise<{ lock: Lockfile; plans: InstallPlan[] }> {
  const plans: InstallPlan[] = [];
  for (const platform of platforms) {
    const { plan: planOpts, manifestsDir, refdriver, flags } = opts;
    const plan = await planSetup(
      opts.extend ? { plan: planOpts, manifestsDir, refdriver, flags, platform } : { plan: planOpts, manifestsDir, refdriver, platform, standalone: true },
      deps,
      reporter,
    );
    await assertInstallable(plan);
    for (const c of plan.components.filter((x) => x.status !== 'planned')) reporter.warn(`${platform}: ${c.name} is not in the lockfile: no source could provide it`);
    await fillSizes(plan, deps);
    plans.push(plan);
  }
  const platformsEntry: Lockfile['platforms'] = {};
  for (const p of plans) platformsEntry[p.platform] = lockedOf(p);
  return { lock: newLockfile(plans[0]!.request!, platformsEntry), plans };
}
