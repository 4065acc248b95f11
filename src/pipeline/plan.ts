// The plan and lock flows: detect the host, read the manifests and the prefix, ask the indexes, decide the runtime
// libraries; the plan is plain data that setup installs, `plan` prints and `lock` writes down.
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { isUnreachable, XpuError } from '../base/errors.js';
import { DownloadCache } from '../cache/store.js';
import { readVerdicts } from '../cache/verdicts.js';
import { detectHost, isInside, nodeLayout } from '../platform/index.js';
import type { Host, TargetPlatform } from '../platform/types.js';
import { installedFor, readPrefixState, refuseForeignPrefix, type PrefixState } from '../prefix/prefix-state.js';
import { RECEIPT_NAME, type Receipt } from '../records/receipt.js';
import { verifyPrefix } from '../prefix/verify.js';
import { activeEnvDistributions } from '../machine/python-dists.js';
import { loadManifests } from '../manifest/load.js';
import { defaultComponents, SOURCE_KINDS, type ComponentManifest, type SourceKind } from '../manifest/schema.js';
import { planChanges, type PlanChanges } from '../plan/diff.js';
import { loadLockSource, lockedOf, newLockfile, planFromLocked } from '../plan/lockfile.js';
import type { LockedPlatform, Lockfile } from '../records/lock.js';
import type { NamedBy, PlanOptions } from '../plan/plan.js';
import { namedGpus, readHostGpus } from '../plan/gpu.js';
import type { ExistingInstalls, HostGpus, InstallPlan, TorchMatch } from '../records/plan.js';
import { planRequestKey, recentPlan, rememberPlan } from '../plan/recent.js';
import { fromArchiveFiles, type ArchiveFile } from '../plan/runtime-libraries.js';
import { mergeRequest, sameRequest, type MergedRequest } from '../plan/request.js';
import { flagOf, kindOptions } from '../kinds/names.js';
import type { SetupRequest } from '../records/plan.js';
import { readTorchMatch, torchMismatch, TORCH_RUNTIME_PACKAGES } from '../plan/torch.js';
import type { Reporter } from '../base/reporter.js';
import { loadPep440 } from '../versions/pep440.js';
import { VERSION } from '../base/version.js';
import type { PlanSetupOptions, SetupOptions } from './options.js';
import type { RunIndex } from './run-index.js';
import { assertInstallable, decideRuntimeLibraries } from './settle.js';

/** How a plan run is made, besides what it is asked (PlanSetupOptions). */
export interface PlanRun {
  /**
   * Also report what is installed outside the prefix; it asks dpkg about files (a few hundred ms), so only `plan` asks
   * for it, not every setup run.
   */
  withExisting?: boolean;
  /** Reuse a plan made for the same request less than 10 minutes ago (under the `use-cache` policy only). */
  recent?: boolean;
  /** The prefix as the run read it where it started; read here when not given (and never when `standalone`). */
  prefix?: PrefixState;
  /** The run's indexes (openRunIndex), shared by every plan the run makes. */
  index: RunIndex;
}

export async function planSetup(opts: PlanSetupOptions, deps: Deps, reporter: Reporter, run: PlanRun): Promise<InstallPlan> {
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
  const mine = installedFor(state, host.platform);
  // GPUs named with --gpu (or recorded so) are planned for in place of this machine's, which are then not read.
  const named = opts.flags.gpus ?? mine?.request?.gpus;
  const [manifests, hostGpus] = await Promise.all([
    loadManifests(opts.manifestsDir),
    opts.locked || opts.from ? undefined : named?.length ? namedGpus(named) : opts.standalone ? undefined : readHostGpus(deps, host, opts.plan.prefix),
  ]);
  const [plan, existing] = await Promise.all([
    planFor({ host, manifests, opts, deps, reporter, index: run.index, ...(hostGpus ? { hostGpus } : {}), mine, receiptFile: path.join(opts.plan.prefix, RECEIPT_NAME) }, !!run.recent && !withExisting),
    host.native && withExisting ? existingInstalls(deps, opts.plan.prefix, reporter) : undefined,
  ]);
  if (withExisting) await fillSizes(plan, run.index);
  if (host.native && !plan.request?.matchTorch) await noteTorchMismatch(plan, deps, reporter);
  // `plan` decides the runtime libraries early where the cache already holds what the decision reads.
  const decided = withExisting && host.native ? await decideRuntimeLibraries(plan, deps, reporter, fromArchiveFiles(inCache(plan.cacheDir)), { quiet: true }) : plan;
  return existing ? { ...decided, existing } : decided;
}

/** Where the cache holds an archive's verified file: what `plan` reads, downloading nothing. */
function inCache(cacheDir: string): ArchiveFile {
  const cache = new DownloadCache(cacheDir);
  return async (a) => (await cache.lookup(a.sha256))?.path;
}

/** An active Python environment with torch whose runtime packages this plan would shadow: said, with how to match. */
async function noteTorchMismatch(plan: InstallPlan, deps: Deps, reporter: Reporter): Promise<void> {
  const env = await activeEnvDistributions(deps, ['torch', ...TORCH_RUNTIME_PACKAGES]);
  const note = env && torchMismatch(env, plan);
  if (!note) return;
  reporter.warn(note);
  plan.notes = [...(plan.notes ?? []), note];
}

/** The archives of a recorded plan that are not in the cache (by name and size; fetch verifies the hash). */
async function missingFromCache(locked: LockedPlatform, cacheDir: string): Promise<{ url: string; sha256: string }[]> {
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

/** What the steps of one plan share: the host and manifests, the run's options and indexes, the prefix's receipt. */
interface PlanScope {
  host: Host;
  manifests: ComponentManifest[];
  opts: PlanSetupOptions;
  deps: Deps;
  reporter: Reporter;
  index: RunIndex;
  /** The receipt of this platform in the prefix, as the run read it (none when `standalone`). */
  mine: Receipt | undefined;
  receiptFile: string;
  /** This host's Intel GPUs and its own Level Zero driver, read where a plan for this host starts (plan/gpu.ts). */
  hostGpus?: HostGpus;
}

/** The plan of one platform: a lockfile's or bundle's, the receipt's (no index asked), a recent one, or a new one. */
async function planFor(s: PlanScope, recent: boolean): Promise<InstallPlan> {
  if (s.opts.locked || s.opts.from) return lockedPlan(s);
  const asked = askedRequest(s);
  for (const n of asked.notes) s.reporter.info(n);
  // --offline: the plan the receipt recorded for this request (without one, recordedPlan stops the run).
  if (s.index.policy === 'cache-only') return (await recordedPlan(s, asked.request, '--offline'))!;
  const planOpts = await plannerOptions(s, asked);
  // A plan made for the same request less than 10 minutes ago is reused (--refresh asks the indexes again). The key
  // covers everything the plan is computed from besides the indexes' answers, the request repeated from the receipt
  // included; lockfiles, bundles and --offline never get here.
  const key = recent && s.index.policy === 'use-cache' ? requestKey(s, planOpts, asked) : undefined;
  const made = key ? await recentPlan(s.opts.plan.cacheDir, key, s.deps.now()) : undefined;
  if (made) {
    s.reporter.debug('plan: reusing the plan made for the same request less than 10 minutes ago (--refresh asks the indexes again)');
    return made;
  }
  const plan = await indexPlan(s, asked.request, planOpts);
  // The receipt's plan, kept because no index answered, stays as it was recorded.
  if (plan.from) return plan;
  plan.request = asked.request;
  if (asked.extends) plan.extends = asked.extends;
  if (asked.remove.length) plan.remove = asked.remove;
  if (asked.notes.length) plan.notes = asked.notes;
  if (key) await rememberRecent(s, plan, planOpts, key);
  return plan;
}

/** `--locked` / `--from`: the lockfile's entry for the platform, with the request it records; no index is asked. */
async function lockedPlan(s: PlanScope): Promise<InstallPlan> {
  const { opts, index } = s;
  const src = await loadLockSource(opts.from ? { bundle: opts.from } : { file: opts.locked! }, { getText: async (url) => (await index.gateway()).http.getText(url) });
  const plan = planFromLocked(s.host, s.manifests, src.entry(s.host.platform), {
    prefix: opts.plan.prefix,
    cacheDir: opts.plan.cacheDir,
    request: { ...src.lock.request, refdriver: opts.flags.refdriver ?? src.lock.request.refdriver },
    from: { kind: opts.from ? 'bundle' : 'lock', path: src.where },
    relocate: src.relocate,
  });
  const installed = s.mine?.components.map((c) => c.name) ?? [];
  plan.remove = installed.filter((c) => !plan.components.some((p) => p.name === c) && opts.flags.remove?.includes(c));
  return plan;
}

/** The request this plan answers, from what the run said and the request the receipt recorded. */
interface AskedRequest extends MergedRequest {
  /** The receipt whose recorded request this one extends. */
  extends?: string;
}

/**
 * What the run asks: its flags over the receipt's recorded request (mergeRequest). A standalone `lock` or `bundle`
 * reads no receipt, and only the components it names are required.
 */
function askedRequest(s: PlanScope): AskedRequest {
  const installed = s.mine?.components.map((c) => c.name) ?? [];
  const merged = mergeRequest(s.mine?.request, s.opts.flags, installed, defaultComponents(s.manifests));
  if (s.opts.standalone) return { ...merged, required: merged.request.components };
  return { ...merged, ...(s.mine?.request ? { extends: s.receiptFile } : {}) };
}

/** What the planner is asked for this request: the request itself, where the plan goes, who named its indexes, the pins. */
async function plannerOptions(s: PlanScope, asked: AskedRequest): Promise<PlanOptions> {
  const { request } = asked;
  const { flags, standalone } = s.opts;
  // Indexes repeated from the receipt were named there: errors about them say so.
  const namedBy: NamedBy = { ...s.opts.plan.namedBy };
  for (const [kind] of standalone ? [] : kindOptions()) {
    const flag = flagOf(kind)!;
    if (!flags.indexes?.[kind] && request.indexes[kind]?.length) namedBy[flag] = `the ${flag} recorded in ${s.receiptFile}`;
  }
  // --match-torch reads the interpreter on every planning run: what it has installed is part of what is asked.
  const [torch, verdicts] = await Promise.all([request.matchTorch ? readTorchMatch(s.deps, request.matchTorch.python) : undefined, readVerdicts(s.opts.plan.cacheDir)]);
  return { ...optionsOf(s, request, asked.required, namedBy, torch), ...(verdicts.length ? { verdicts } : {}) };
}

/** The one conversion of a request into what the planner reads. */
function optionsOf(s: PlanScope, request: SetupRequest, required: string[] | undefined, namedBy?: NamedBy, torch?: TorchMatch): PlanOptions {
  return {
    request,
    prefix: s.opts.plan.prefix,
    cacheDir: s.opts.plan.cacheDir,
    ...(namedBy ? { namedBy } : {}),
    ...(torch ? { torch } : {}),
    required,
    ...keptSources(s),
    ...(s.hostGpus ? { hostGpus: s.hostGpus } : {}),
  };
}

/**
 * The installed components a run with `--source` does not name keep the kind of source they came from (a level-zero
 * from conda stays from conda when `--source github` adds the GPU driver): what a run names is what it changes.
 */
function keptSources(s: PlanScope): { keptSources?: Record<string, SourceKind[]> } {
  const { sources, components = [], remove = [] } = s.opts.flags;
  if (!sources?.length || s.opts.standalone) return {};
  const kept: Record<string, SourceKind[]> = {};
  for (const c of s.mine?.components ?? []) {
    const kind = SOURCE_KINDS.find((k) => k === c.source.split(' ')[0]);
    if (kind && !sources.includes(kind) && !components.includes(c.name) && !remove.includes(c.name)) kept[c.name] = [kind];
  }
  return Object.keys(kept).length ? { keptSources: kept } : {};
}

function requestKey(s: PlanScope, planOpts: PlanOptions, asked: Pick<MergedRequest, 'request' | 'required' | 'remove'>): string {
  // What earlier downloads showed is part of what a plan is made from: a new verdict makes a new plan.
  const options = { ...optionsOf(s, asked.request, asked.required, undefined, planOpts.torch), namedBy: undefined, verdicts: planOpts.verdicts };
  return planRequestKey({ tool: VERSION, host: s.host, manifests: s.manifests, options, request: asked.request, remove: asked.remove });
}

/**
 * A plan from the indexes. When none could be reached, the plan the receipt recorded for this request is kept
 * instead where the prefix is intact and every archive is cached (the run then needs no network at all).
 */
async function indexPlan(s: PlanScope, request: SetupRequest, planOpts: PlanOptions): Promise<InstallPlan> {
  let plan: InstallPlan;
  try {
    // The planner loads only when a plan is made, not when a recent or recorded one is reused.
    const { makePlan } = await import('../plan/plan.js');
    plan = await makePlan(s.host, s.manifests, planOpts, s.deps, s.reporter, await s.index.gateway());
  } catch (e) {
    const kept = noIndexAnswered(e) ? await recordedPlan(s, request, `an index could not be reached (${(e as Error).message.split('\n')[0]})`) : undefined;
    if (kept) return kept;
    throw e;
  }
  const unreachable = plan.components.flatMap((c) => c.attempts.filter((a) => a.outcome === 'unreachable').map((a) => `${c.name}: ${a.reason}`));
  const kept = unreachable.length ? await recordedPlan(s, request, `an index could not be reached (${unreachable[0]})`) : undefined;
  return kept ?? plan;
}

/**
 * The plan the receipt recorded for this request, kept when no index is asked: the one way a run plans without the
 * indexes. Under the `cache-only` policy (`--offline`) it is the plan, and without one the run stops (OFFLINE); when an
 * index could not be reached (`why`), it is kept only where the prefix is intact and every archive is cached.
 */
async function recordedPlan(s: PlanScope, request: SetupRequest, why: string): Promise<InstallPlan | undefined> {
  const { prefix, cacheDir } = s.opts.plan;
  const offline = s.index.policy === 'cache-only';
  const recorded = offline ? (s.mine?.plan && sameRequest(s.mine.request, request) ? s.mine.plan : undefined) : await intactRecordedPlan(s.mine, request, prefix, cacheDir);
  if (!recorded) {
    if (!offline) return undefined;
    throw new XpuError('OFFLINE', `--offline needs a plan that asks no index, and ${prefix} records none for this request`, {
      details: { prefix },
      hints: [
        'install from a lockfile: xpu-setup --locked --offline (write it online with: xpu-setup lock)',
        'or from a bundle: xpu-setup --from DIR (make it with: xpu-setup bundle --platform ... --out DIR)',
        'or run once online with the same flags; later --offline runs repeat that plan from the cache',
      ],
    });
  }
  if (!offline) s.reporter.note(`${why}; ${prefix} holds the plan recorded for this request, intact and cached: keeping it`);
  return planFromLocked(s.host, s.manifests, recorded, { prefix, cacheDir, request, from: { kind: 'receipt', path: s.receiptFile, reason: why } });
}

/**
 * Keeps the plan for 10 minutes under its key. The next run with the same flags finds these components installed, and
 * installed components are required: its key differs, its plan would not (each of them is planned here), so that run
 * finds this plan too.
 */
async function rememberRecent(s: PlanScope, plan: InstallPlan, planOpts: PlanOptions, key: string): Promise<void> {
  if (!plan.components.some((c) => c.status === 'planned')) return;
  const { cacheDir } = s.opts.plan;
  await rememberPlan(cacheDir, key, plan, s.deps.now());
  if (s.opts.standalone || s.opts.flags.remove?.length) return;
  const installedNext = plan.components.filter((c) => c.status === 'planned').map((c) => c.name);
  const next = mergeRequest(plan.request, s.opts.flags, installedNext, defaultComponents(s.manifests));
  const nextKey = requestKey(s, planOpts, next);
  if (nextKey !== key) await rememberPlan(cacheDir, nextKey, plan, s.deps.now());
}

/**
 * Sizes an index did not give (PEP 503 HTML has none) come from a HEAD request's Content-Length, so the printed plan
 * says `? B` only when neither knows. `plan` and `lock` ask; setup and bundle learn the size from the download itself.
 */
async function fillSizes(plan: InstallPlan, index: RunIndex): Promise<void> {
  const unknown = plan.components.flatMap((c) => c.archives).filter((a) => a.size === undefined && /^https?:/.test(a.url));
  if (!unknown.length) return;
  const { http } = await index.gateway();
  await Promise.all(unknown.map(async (a) => {
    const r = await http.reach(a.url, 5000);
    if (r.size !== undefined) a.size = r.size;
  }));
}

/** What is installed outside the prefix; a detection failure only costs this summary, never the run. */
async function existingInstalls(deps: Deps, prefix: string, reporter: Reporter): Promise<ExistingInstalls | undefined> {
  try {
    const s = await (await import('../machine/installs.js')).detectInstalls(deps, {});
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

/**
 * Plans every platform asked for and returns the lockfile: the request as said on the command line (no receipt is
 * read), or with `extend` that request merged into the one recorded in the prefix; and per platform the archives chosen. Components no source could provide are left out, with a warning.
 */
export async function lockSetup(
  opts: Pick<SetupOptions, 'plan' | 'manifestsDir' | 'refdriver' | 'flags'> & { extend: boolean },
  platforms: TargetPlatform[],
  deps: Deps,
  reporter: Reporter,
  index: RunIndex,
): Promise<{ lock: Lockfile; plans: InstallPlan[] }> {
  const plans: InstallPlan[] = [];
  const { plan: planOpts, manifestsDir, refdriver, flags } = opts;
  const prefix = opts.extend ? await readPrefixState(planOpts.prefix) : undefined;
  for (const platform of platforms) {
    const plan = await planSetup(
      { plan: planOpts, manifestsDir, refdriver, flags, platform, ...(opts.extend ? {} : { standalone: true }) },
      deps,
      reporter,
      { prefix, index },
    );
    await assertInstallable(plan);
    for (const c of plan.components.filter((x) => x.status !== 'planned')) reporter.warn(`${platform}: ${c.name} is not in the lockfile: no source could provide it`);
    await fillSizes(plan, index);
    plans.push(plan);
  }
  const platformsEntry: Lockfile['platforms'] = {};
  for (const p of plans) platformsEntry[p.platform] = lockedOf(p);
  return { lock: newLockfile(plans[0]!.request!, platformsEntry), plans };
}
