// The plan and lock flows: detect the host, read the manifests and the prefix, ask the indexes, decide the runtime
// libraries; the plan is plain data that setup installs, `plan` prints and `lock` writes down.
import * as path from 'node:path';
import type { Deps } from '../deps.js';
import { isUnreachable, XpuError } from '../errors.js';
import { DownloadCache } from '../cache/store.js';
import { detectHost, isInside, nodeLayout } from '../host/index.js';
import type { Host, TargetPlatform } from '../host/types.js';
import { installedFor, readPrefixState, refuseForeignPrefix, type PrefixState } from '../install/prefix-state.js';
import { RECEIPT_NAME, type Receipt } from '../install/receipt.js';
import { verifyPrefix } from '../install/verify.js';
import { activeEnvDistributions } from '../inspect/python-dists.js';
import { loadManifests } from '../manifest/load.js';
import { verifyAbsent } from '../roles/index.js';
import { defaultComponents, type ComponentManifest } from '../manifest/schema.js';
import { planChanges, type PlanChanges } from '../plan/diff.js';
import { loadLockSource, lockedOf, newLockfile, planFromLocked, type LockedPlatform, type Lockfile } from '../plan/lockfile.js';
import type { NamedBy, PlanOptions } from '../plan/plan.js';
import { readHostGpus } from '../plan/gpu.js';
import type { ExistingInstalls, InstallPlan } from '../records/plan.js';
import { planRequestKey, recentPlan, rememberPlan } from '../plan/recent.js';
import { mergeRequest } from '../plan/request.js';
import type { SetupRequest } from '../records/plan.js';
import { readTorchMatch, torchMismatch, TORCH_RUNTIME_PACKAGES } from '../plan/torch.js';
import type { Reporter } from '../reporter.js';
import { loadPep440 } from '../versions/pep440.js';
import type { PlannedArchive } from '../records/archive.js';
import { VERSION } from '../version.js';
import type { PlanSetupOptions, SetupOptions } from './options.js';

/** How a plan run is made, besides what it is asked (PlanSetupOptions). */
export interface PlanRun {
  /**
   * Also report what is installed outside the prefix; it asks dpkg about files (a few hundred ms), so only `plan` asks
   * for it, not every setup run.
   */
  withExisting?: boolean;
  /** Reuse a plan made for the same request less than 10 minutes ago. */
  recent?: boolean;
  /** The prefix as the run read it where it started; read here when not given (and never when `standalone`). */
  prefix?: PrefixState;
}

export async function planSetup(opts: PlanSetupOptions, deps: Deps, reporter: Reporter, run: PlanRun = {}): Promise<InstallPlan> {
  const withExisting = run.withExisting ?? false;
  // Plans, lockfiles and receipts may hold PyPI versions, compared from here on in PEP 440's order.
  const [host, state] = await Promise.all([
    detectHost(deps, opts.platform),
    opts.standalone ? undefined : (run.prefix ?? readPrefixState(opts.plan.prefix)),
    loadPep440(),
  ]);
  // A directory setup would refuse is refused before any index is read.
  if (state) {
    const damaged = await refuseForeignPrefix(state);
    if (damaged) reporter.warn(damaged);
  }
  const [manifests, hostGpus] = await Promise.all([
    loadManifests(opts.manifestsDir),
    opts.standalone || opts.locked || opts.from ? undefined : readHostGpus(deps, host, opts.plan.prefix),
  ]);
  const asked = hostGpus ? { ...opts, plan: { ...opts.plan, hostGpus } } : opts;
  const [plan, existing] = await Promise.all([
    planFor(host, manifests, asked, deps, reporter, installedFor(state, host.platform), !!run.recent && !withExisting),
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

export function sameRequest(a: SetupRequest | undefined, b: SetupRequest): boolean {
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
  mine: Receipt | undefined,
  recent = false,
): Promise<InstallPlan> {
  const { prefix, cacheDir } = opts.plan;
  const receiptFile = path.join(prefix, RECEIPT_NAME);
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
    ? mergeRequest(mine?.request, opts.flags, installed, defaultComponents(manifests))
    : undefined;
  const request: SetupRequest = merged?.request ?? {
    components: opts.plan.components,
    sources: opts.plan.sources,
    condaChannels: opts.plan.condaChannels,
    ...(opts.plan.indexUrl ? { indexUrl: opts.plan.indexUrl } : {}),
    requires: opts.plan.requires ?? [],
    refdriver: !!opts.refdriver,
    ...(opts.plan.matchTorch ? { matchTorch: opts.plan.matchTorch } : {}),
    ...(opts.plan.includeLoaderDll ? { includeLoaderDll: true as const } : {}),
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
  if (merged && !opts.flags?.condaChannels && request.condaChannels.length) namedBy['--conda-channel'] = `the conda channels recorded in ${receiptFile}`;
  if (merged && !opts.flags?.indexUrl && request.indexUrl) namedBy['--index-url'] = `the index URL recorded in ${receiptFile}`;
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
    includeLoaderDll: !!req.includeLoaderDll,
  });
  const planOpts = optionsFor(request, merged?.required ?? opts.plan.required);
  const reuse = async (why: string): Promise<InstallPlan | undefined> => {
    const recorded = await intactRecordedPlan(mine, request, prefix, cacheDir);
    if (!recorded) return undefined;
    reporter.note(`${why}; ${prefix} holds the plan recorded for this request, intact and cached: keeping it`);
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
    const { makePlan } = await import('../plan/plan.js');
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
      const next = mergeRequest(request, opts.flags, installedNext, defaultComponents(manifests));
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
  const http = (await import('../net/http.js')).httpFor(deps.env);
  await Promise.all(unknown.map(async (a) => {
    const r = await http.reach(a.url, 5000);
    if (r.size !== undefined) a.size = r.size;
  }));
}

/** What is installed outside the prefix; a detection failure only costs this summary, never the run. */
async function existingInstalls(deps: Deps, prefix: string, reporter: Reporter): Promise<ExistingInstalls | undefined> {
  try {
    const s = await (await import('../inspect/installs.js')).detectInstalls(deps, {});
    const { path: paths } = nodeLayout(deps.platform);
    const outside = (p: string) => !isInside(prefix, p, paths);
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

/** What setup would change in the prefix as the run read it (`plan` prints it): the comparison setup shows, by archives. */
export async function prefixChanges(plan: InstallPlan, prefix: PrefixState, opts: { rehash?: boolean }): Promise<PlanChanges> {
  const receipt = installedFor(prefix, plan.platform);
  return planChanges(plan, receipt, receipt ? await verifyPrefix(plan.prefix, receipt, undefined, { rehash: opts.rehash }) : []);
}

/** What setup refuses before doing anything: a plan with nothing to install. `plan` gives the same verdict. */
export async function assertInstallable(plan: InstallPlan): Promise<void> {
  if (!plan.components.some((c) => c.status === 'planned')) throw (await import('../plan/plan.js')).noSourceError(plan.components, plan.platform);
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
  const absent = verifyAbsent(plan.components.filter((c) => c.status === 'planned'));
  const skipped = !plan.host.native
    ? `installed for ${plan.platform}: nothing is run on this machine`
    : absent
      ? absent
      : opts.verify === false
        ? '--no-probe: nothing was built, probed or run'
        : undefined;
  return { ...(skipped ? { skipped } : {}), refdriver: !skipped && refdriver, smoke: !skipped && opts.smoke, requireDevice: !skipped && opts.requireDevice };
}

/**
 * The runtime library packages of a plan (libstdcxx, libgcc, ...), decided from the binaries of the other archives
 * against this machine's libraries (plan/runtime.ts): those archives are fetched and verified first, and the runtime
 * packages only when a need is unmet. With `cacheOnly` (`plan`), only what the cache holds is read, and what needs
 * more stays undecided.
 */
export async function decideRuntimeLibraries(plan: InstallPlan, deps: Deps, reporter: Reporter, opts: { offline?: boolean; cacheOnly?: boolean }): Promise<InstallPlan> {
  if (!plan.components.some((c) => c.archives.some((a) => a.runtime?.install === undefined && a.runtime))) return plan;
  const [rt, { readLdconfig }] = await Promise.all([import('../plan/runtime.js'), import('../inspect/ldconfig.js')]);
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
    const { fetchPlan } = await import('../fetch/fetch.js');
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
  const { plan: planOpts, manifestsDir, refdriver, flags } = opts;
  const prefix = opts.extend ? await readPrefixState(planOpts.prefix) : undefined;
  for (const platform of platforms) {
    const plan = await planSetup(
      opts.extend ? { plan: planOpts, manifestsDir, refdriver, flags, platform } : { plan: planOpts, manifestsDir, refdriver, platform, standalone: true },
      deps,
      reporter,
      { prefix },
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
