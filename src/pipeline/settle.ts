// Settle, then act: everything a setup run decides before it changes the prefix, in one record. Nothing is fetched
// to decide what the receipt already answers; the runtime libraries, which must be read from the archives, are
// decided from what the install unpacked into its staging tree, before the swap.
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import type { Reporter } from '../base/reporter.js';
import type { RunFetch } from '../fetch/fetch.js';
import { installedFor, isUpToDate, type PrefixState } from '../prefix/prefix-state.js';
import type { Receipt } from '../records/receipt.js';
import { diffPlan } from '../plan/diff.js';
import { hasUndecidedRuntime, librariesInTree, librariesOf, readsHostLibraries, runtimeArchives, settleRuntime, withRecordedRuntime, type ArchiveLibraries } from '../plan/runtime-libraries.js';
import type { InstallOptions } from '../install/install.js';
import type { PlannedArchive } from '../records/archive.js';
import type { InstallPlan } from '../records/plan.js';
import { verifyAbsent } from '../roles/index.js';
import type { SetupOptions } from './options.js';
import type { RunIndex } from './run-index.js';

/** What setup does once the prefix is in place, decided from the plan and the options alone (`plan` shows it). */
export interface AfterInstall {
  /** Why nothing is built or run: another platform, no Level Zero, or --no-probe. */
  skipped?: string;
  /** Build the CPU reference driver and select it (the request's choice, else the flag's). */
  refdriver: boolean;
  smoke: boolean;
  requireDevice: boolean;
}

/** A setup run's decisions, made before the prefix changes. */
export interface Settled {
  /** The plan as the run acts on it: planned again if the prefix changed meanwhile, its runtime libraries decided. */
  plan: InstallPlan;
  /** The prefix's receipt for this platform as the run found it under the lock. */
  before?: Receipt;
  /** The receipt, when the prefix holds this plan unchanged on disk: nothing is fetched or installed. */
  upToDate?: Receipt;
  /** The run's one fetch, when the runtime libraries are left to the install: the install continues it. */
  fetch?: RunFetch;
  /**
   * Decides the plan's runtime libraries (install.ts: decideRuntime) once the install has unpacked the other
   * archives: from what they put in the staging tree, so nothing is decompressed twice. The tree is not the prefix:
   * the decision still comes before the prefix changes.
   */
  decideRuntime?: NonNullable<InstallOptions['decideRuntime']>;
  after: AfterInstall;
}

/** How settle plans again when the prefix changed while the run waited for its lock. */
export interface Replan {
  /** The prefix as the run read it where it started, before the plan was made. */
  prefix: PrefixState;
  /** Plans again from the prefix as it is once the lock is held. */
  replan(now: PrefixState): Promise<InstallPlan>;
}

export interface SettleScope {
  opts: SetupOptions;
  deps: Deps;
  reporter: Reporter;
  index: RunIndex;
  again?: Replan;
}

/**
 * What a plan was made against: the prefix's receipt as it was then (its plan, request and install time), or none.
 * A run that finds another basis once it holds the lock plans again.
 */
function prefixBasis({ receipt: r }: PrefixState): string {
  return r ? JSON.stringify([r.platform, r.planKey, r.installedAt, r.request ?? null]) : 'none';
}

/**
 * Decides everything before acting: the plan (again, if the prefix changed while the run waited), the removals it
 * may make (an unasked one is refused), whether the prefix already holds it (the receipt's runtime decisions were read
 * from these very archives, so none is read again), the runtime libraries otherwise, and what runs after.
 */
export async function settle(planned: InstallPlan, now: PrefixState, s: SettleScope): Promise<Settled> {
  let plan = planned;
  // The plan was made before the lock was taken: another run may have changed the prefix (removed a component,
  // say) while this one waited. Planned over again from what the prefix holds now, never undone.
  if (s.again && prefixBasis(now) !== prefixBasis(s.again.prefix)) {
    s.reporter.info(`${plan.prefix} changed while this run waited for another xpu-setup: planning again from what it holds now`);
    plan = await s.again.replan(now);
    await assertInstallable(plan);
  }
  const before = installedFor(now, plan.platform);
  sayChanges(plan, before, s.reporter);
  const after = afterInstall(plan, s.opts);
  const recorded = withRecordedRuntime(plan, before?.plan);
  const upToDate = recorded && (await isUpToDate(recorded, now, { rehash: s.opts.rehash }));
  if (upToDate) return { plan: recorded, before, upToDate, after };
  if (!hasUndecidedRuntime(plan)) return { plan, before, after };
  // A plan for another machine keeps every runtime package (its libraries cannot be read from here): decided now, so
  // its fetch holds none back.
  if (!readsHostLibraries(plan)) return { plan: await decideRuntimeLibraries(plan, s.deps, s.reporter, async () => undefined), before, after };
  // The run's one fetch starts here, the runtime packages held until a need is unmet; only the ones kept are fetched.
  const { startFetch } = await import('../fetch/fetch.js');
  const runtime = runtimeArchives(plan);
  const fetch = startFetch(plan, s.deps, s.reporter, await s.index.gateway(), { held: new Set(runtime.map((a) => a.sha256)) });
  const decideRuntime: Settled['decideRuntime'] = async (unpacked) => {
    const fromTree = async (a: PlannedArchive) => {
      const members = unpacked(a);
      return members ? librariesInTree(members) : librariesOf(a, (await fetch.of(a)).file.path);
    };
    const decided = await decideRuntimeLibraries(plan, s.deps, s.reporter, fromTree, { fetchRuntime: async () => fetch.release(runtime) });
    fetch.release(decided.components.flatMap((c) => c.archives));
    return { plan: decided, fetching: fetch.as(decided) };
  };
  return { plan, before, fetch, decideRuntime, after };
}

/** Says the +/- lines of this run; refuses a removal that was not asked for. */
function sayChanges(plan: InstallPlan, before: Receipt | undefined, reporter: Reporter): void {
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
}

/** What setup refuses before doing anything: a plan with nothing to install. `plan` gives the same verdict. */
export async function assertInstallable(plan: InstallPlan): Promise<void> {
  if (!plan.components.some((c) => c.status === 'planned')) throw (await import('../plan/plan.js')).noSourceError(plan.components, plan.platform);
}

/** Whether the run asks for the CPU reference driver: the request's choice (recorded or said), else the flag's. */
const refdriverAsked = (plan: InstallPlan, opts: Pick<SetupOptions, 'refdriver'>): boolean => plan.request?.refdriver ?? opts.refdriver;

/** The reference driver builds and runs code: it is refused for a plan made for another machine. */
export function refuseForeignRefdriver(plan: InstallPlan, opts: Pick<SetupOptions, 'refdriver'>): void {
  if (refdriverAsked(plan, opts) && !plan.host.native) {
    throw new XpuError('USAGE', '--refdriver builds and runs code, so it cannot be combined with --platform for another machine');
  }
}

export function afterInstall(plan: InstallPlan, opts: Pick<SetupOptions, 'refdriver' | 'verify' | 'smoke' | 'requireDevice'>): AfterInstall {
  const refdriver = refdriverAsked(plan, opts);
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
 * against this machine's libraries (plan/runtime-libraries.ts). `libraries` gives an archive's libraries (setup: from
 * the staging tree, `plan`: from the cache, where what it lacks leaves the decision open); `fetchRuntime` brings the
 * runtime archives when a need is unmet. `quiet` (`plan`): the decisions are shown with the plan, not told one by one.
 */
export async function decideRuntimeLibraries(
  plan: InstallPlan,
  deps: Deps,
  reporter: Reporter,
  libraries: ArchiveLibraries,
  opts: { quiet?: boolean; fetchRuntime?: () => Promise<void> } = {},
): Promise<InstallPlan> {
  if (!hasUndecidedRuntime(plan)) return plan;
  // Another machine's libraries are not read: its runtime packages all come along (settleRuntime).
  const ldcache = readsHostLibraries(plan) ? (await (await import('../machine/ldconfig.js')).readLdconfig(deps)).found : [];
  const decided = await settleRuntime(plan, deps, ldcache, libraries, opts.fetchRuntime);
  if (!opts.quiet) {
    for (const c of decided.components) {
      for (const a of c.archives.filter((x) => x.runtime)) reporter.info(`runtime library ${a.package} ${a.version}: ${a.runtime!.why}: installed`);
      for (const a of c.leftToHost ?? []) reporter.info(`runtime library ${a.package} ${a.version}: ${a.runtime!.why}: not installed`);
    }
  }
  return decided;
}
