// Install stage: extract verified archives into a staging directory beside the prefix, finish it, then swap it in.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../base/errors.js';
import { readsLive } from '../formats/index.js';
import { layoutFor } from '../platform/index.js';
import { roleAliases, roleEnv, roleFiles, roleSearchPaths } from '../roles/index.js';
import { compareDebian } from '../versions/order.js';
import { removeOnInterrupt, withSignalsHeld } from '../base/lock-owner.js';
import type { FetchedArchive, Fetching } from '../fetch/fetch.js';
import type { LockedPlatform } from '../records/lock.js';
import type { PlannedArchive } from '../records/archive.js';
import type { InstallPlan, PlannedComponent } from '../records/plan.js';
import type { Reporter, Task } from '../base/reporter.js';
import { VERSION } from '../base/version.js';
import { byPath } from '../prefix/receipt.js';
import { RECEIPT_SCHEMA, type Receipt, type ReceiptComponent } from '../records/receipt.js';
import { fsWriteError } from '../base/fs-errors.js';
import { ICD_FILE, readSafelyOrNone } from '../base/safe-read.js';
import { writePrefixFiles } from '../prefix/prefix-writer.js';
import { DEFAULT_LIMITS, type UnpackLimits } from '../records/limits.js';
import { relocateConda } from './relocate.js';
import { Staging, type StagedMember } from './staging.js';
import { carryUserFiles, sayUserFiles } from '../prefix/user-files.js';
import { checkPrefixOwnership, recordedPlan, type PrefixState } from '../prefix/prefix-state.js';

/**
 * Looks at one component in the staging tree before the tree replaces the prefix (its loader loads, its headers
 * compile); returns what is wrong, empty when it is fine. Called as soon as the component's archives are unpacked,
 * while others may still be arriving. Supplied by the caller, which knows how to run programs on this host.
 */
export type StagedCheck = (stagingDir: string, component: PlannedComponent, plan: InstallPlan) => Promise<string[]>;

export interface InstallOptions {
  extraEnv?: Record<string, string>;
  limits?: UnpackLimits;
  check?: StagedCheck;
  /** The swap's rename (fs.rename unless given): tests pass one that fails, to see the old prefix put back. */
  rename?: (from: string, to: string) => Promise<void>;
  /** Looks at the whole tree once every archive is in (every library finds what it needs): problems refuse it, notes are passed on. */
  checkTree?: (stagingDir: string, plan: InstallPlan) => Promise<{ problems: string[]; notes: string[] }>;
  /** The prefix as the run read it under the prefix lock (checkPrefixOwnership); without it, the install checks it itself. */
  prefixState?: PrefixState;
  /** The plan as lockfile data (plan/lockfile.ts: lockedOf), recorded in the receipt; without it the receipt records no plan. */
  lockedOf?: (plan: InstallPlan) => LockedPlatform;
  /**
   * Decides the plan's undecided runtime library packages once every other archive is unpacked, from the members
   * each put in the tree (`unpacked`: none for an archive not unpacked); returns the decided plan and the fetch as it
   * sees it. The kept runtime packages are unpacked after it. Without it, such a plan's runtime packages are
   * installed as planned.
   */
  decideRuntime?: (unpacked: (a: PlannedArchive) => StagedMember[] | undefined) => Promise<{ plan: InstallPlan; fetching: Fetching }>;
}

export interface InstallResult {
  /** The plan as installed: its runtime library packages decided. */
  plan: InstallPlan;
  prefix: string;
  changed: boolean;
  receipt: Receipt;
  notes: string[];
  /** Files unchanged; the receipt now records a request worded differently. */
  requestUpdated?: boolean;
  /** The env files were rewritten with other variables (another driver choice, new probe answers). */
  envChanged?: boolean;
}

/** Replaces `prefix` with `staging`: the old tree is moved aside first and removed only after the new one is in place. */
async function swapIn(staging: string, prefix: string, rename: NonNullable<InstallOptions['rename']>): Promise<void> {
  const old = `${prefix}.xpu-setup-old-${randomBytes(4).toString('hex')}`;
  let moved = false;
  try {
    await rename(prefix, old);
    moved = true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  try {
    await rename(staging, prefix);
  } catch (e) {
    if (moved) await rename(old, prefix).catch(() => undefined);
    throw e;
  }
  if (moved) await fs.rm(old, { recursive: true, force: true });
}

/** The machine's OpenCL ICD files (`*.icd` of its vendors directories), first directory first; a FIFO, a device or one over the cap is none. */
async function readIcds(dirs: readonly string[]): Promise<{ name: string; text: string }[]> {
  const out: { name: string; text: string }[] = [];
  for (const dir of dirs) {
    const names = await fs.readdir(dir).catch(() => [] as string[]);
    for (const name of names.filter((n) => n.endsWith('.icd')).sort()) {
      if (out.some((f) => f.name === name)) continue;
      const bytes = await readSafelyOrNone(path.join(dir, name), ICD_FILE);
      if (bytes !== undefined) out.push({ name, text: bytes.toString('utf8') });
    }
  }
  return out;
}

/** The staging tree beside the prefix, made and marked for removal on an interrupt. */
interface Stage {
  prefix: string;
  dir: string;
  /** The prefix as the run found it. */
  state: PrefixState;
  /** Unmarks the tree: from the swap on it is the prefix, and an interrupt leaves it to the next run's recovery. */
  forget: () => void;
}

const UNCHANGED = 'the prefix was not changed';

async function makeStage(plan: InstallPlan, run: Fetching, opts: InstallOptions): Promise<Stage> {
  const prefix = path.resolve(plan.prefix);
  const parent = path.dirname(prefix);
  // Named, and marked for removal on Ctrl-C or SIGTERM, before it exists: a signal that comes as it is made finds it
  // marked (with mkdtemp, one that came between the directory's creation and its marking would leave it behind).
  const dir = path.join(parent, `.${path.basename(prefix)}.xpu-setup-staging-${randomBytes(3).toString('hex')}`);
  const forget = removeOnInterrupt(dir);
  try {
    const state = opts.prefixState ?? (await checkPrefixOwnership(prefix));
    await fs.mkdir(parent, { recursive: true });
    await fs.mkdir(dir, { mode: 0o700 });
    return { prefix, dir, state, forget };
  } catch (e) {
    forget();
    // No download may outlive the install that wanted it.
    await run.cancel();
    throw fsWriteError(e, parent, { tree: parent, unchanged: UNCHANGED });
  }
}

/** What unpacking left: the plan as unpacked (its runtime packages decided), members per component, the archives in plan order. */
interface Unpacked {
  plan: InstallPlan;
  /** The fetch as the unpacked plan sees it. */
  run: Fetching;
  landed: Map<string, number>;
  fetched: FetchedArchive[];
}

/** The fetch's failure of an archive the unpack waited for: said by the fetch's own line, not as the install's. */
class FetchFailed {
  constructor(readonly error: unknown) {}
}

const undecidedRuntime = (a: PlannedArchive): boolean => !!a.runtime && a.runtime.install === undefined;

/**
 * Unpacks every archive in plan order as it arrives (a zip still downloading, from the download itself), re-roots
 * conda packages, and starts a component's check as soon as its last archive is in (into `checks`). Undecided runtime
 * packages wait until the other archives are in and `decideRuntime` has decided them from what those put in the tree.
 */
async function unpackAll(plan: InstallPlan, run: Fetching, stage: Stage, staging: Staging, reporter: Reporter, opts: InstallOptions, checks: Promise<Problem[]>[]): Promise<Unpacked> {
  const landed = new Map<string, number>();
  const fetched: FetchedArchive[] = [];
  /** Each unpacked archive's name in the tree's records, by sha256. */
  const labels = new Map<string, string>();
  const checked = new Set<string>();
  const sep = layoutFor(plan.platform).path.sep;
  const plannedOf = (p: InstallPlan) => p.components.filter((c) => c.status === 'planned');
  /** Starts the check of each component of `p` whose archives are all in. */
  const startChecks = (p: InstallPlan) => {
    for (const c of plannedOf(p)) {
      if (!opts.check || checked.has(c.name) || !c.archives.every((a) => labels.has(a.sha256))) continue;
      checked.add(c.name);
      const check = opts.check(stage.dir, c, p).then((ps) => ps.map((text) => ({ text, component: c.name })));
      // Awaited by the caller; until then a failure must not count as unhandled.
      check.catch(() => undefined);
      checks.push(check);
    }
  };
  const unpack = async (archive: PlannedArchive, i: number, from: Fetching, p: InstallPlan) => {
    const label = `${archive.filename} (${archive.url})`;
    // A zip still downloading is unpacked as it arrives; anything else, from the verified file.
    const live = from.live?.(i);
    const streamed = live && readsLive(archive.format) ? await staging.extractLive(archive.format, live, label, archive.map) : undefined;
    if (typeof streamed === 'object') reporter.debug(`${archive.filename}: unpacked from the finished file (${streamed.notLive})`);
    const f = await from.archives[i]!.catch((err: unknown) => {
      throw new FetchFailed(err);
    });
    fetched.push(f);
    const n = typeof streamed === 'number' ? streamed : await staging.extract(f.archive.format, f.file.path, label, f.archive.map);
    landed.set(f.component, (landed.get(f.component) ?? 0) + n);
    labels.set(archive.sha256, label);
    reporter.debug(`${f.archive.filename}: ${n} members installed`);
    if (f.archive.format === 'conda' || f.archive.format === 'tar.bz2') {
      const relocated = await relocateConda(staging, f.archive.format, f.file.path, label, f.archive.map, stage.prefix, sep);
      if (relocated.length) reporter.debug(`${f.archive.filename}: build prefix rewritten to ${stage.prefix} in ${relocated.join(', ')}`);
    }
    startChecks(p);
  };
  const order = plannedOf(plan).flatMap((c) => c.archives);
  const deciding = opts.decideRuntime && order.some(undecidedRuntime) ? opts.decideRuntime : undefined;
  for (const [i, archive] of order.entries()) if (!(deciding && undecidedRuntime(archive))) await unpack(archive, i, run, plan);
  if (!deciding) return { plan, run, landed, fetched };
  const decided = await deciding((a) => {
    const label = labels.get(a.sha256);
    return label === undefined ? undefined : staging.membersOf(label);
  });
  const kept = plannedOf(decided.plan).flatMap((c) => c.archives);
  startChecks(decided.plan);
  for (const [i, archive] of kept.entries()) if (!labels.has(archive.sha256)) await unpack(archive, i, decided.fetching, decided.plan);
  const at = new Map(kept.map((a, i) => [a.sha256, i]));
  fetched.sort((x, y) => at.get(x.archive.sha256)! - at.get(y.archive.sha256)!);
  return { plan: decided.plan, run: decided.fetching, landed, fetched };
}

/**
 * Each planned component as the receipt records it, once its files are known to have landed: a component that
 * brings none of its files, or lacks a required one, is refused; a missing optional file is a note.
 */
async function landedComponents(plan: InstallPlan, landed: Map<string, number>, staging: Staging, notes: string[]): Promise<ReceiptComponent[]> {
  const components: ReceiptComponent[] = [];
  for (const c of plan.components.filter((x) => x.status === 'planned')) {
    // A package that brings nothing (a wheel without .data members) would replace a working component with an empty one.
    const present = await Promise.all(c.provides.map((p) => staging.has(p.path)));
    if (!landed.get(c.name) || (c.provides.length && !present.some(Boolean))) {
      throw new XpuError('PREFIX_CHECK', `${c.name} ${c.version} from ${c.origin} installs none of the component's files (${c.provides.map((p) => p.path).join(', ')})`, {
        details: { component: c.name, landed: landed.get(c.name) ?? 0 },
        hints: ['the package is empty or laid out differently than the manifest expects; the prefix was not changed', 'choose another source with --source, or report the package layout change'],
      });
    }
    for (const p of c.provides) {
      if (await staging.has(p.path)) continue;
      const why = p.missing ?? `the ${c.source} package does not contain it`;
      if (p.required) {
        throw new XpuError('PREFIX_CHECK', `${c.name} ${c.version} from ${c.origin} lacks ${p.path}`, {
          details: { component: c.name, path: p.path },
          hints: [why, 'the prefix was not changed; choose another source with --source, or report the package layout change'],
        });
      }
      notes.push(`${c.name}: no ${p.path}: ${why}`);
    }
    const rc: ReceiptComponent = { name: c.name, version: c.version!, source: `${c.source} ${c.origin}`, notes: c.notes };
    if (c.fallbackFrom) rc.fallbackFrom = c.fallbackFrom;
    if (c.belowFloor) rc.belowFloor = c.belowFloor;
    components.push(rc);
  }
  return components;
}

/**
 * The plain names the components' roles need where their packages ship only versioned files (bin/ocloc beside
 * bin/ocloc-26.27.1): a relative link to the newest, or a copy where links are not for everyone (Windows).
 */
async function addRoleAliases(plan: InstallPlan, staging: Staging, reporter: Reporter): Promise<void> {
  const layout = layoutFor(plan.platform);
  for (const alias of roleAliases(plan.components.filter((c) => c.status === 'planned'), layout)) {
    if (await staging.has(alias.path)) continue;
    const versioned = [...staging.files.keys()]
      .map((rel) => ({ rel, version: alias.versioned.exec(rel)?.[1] }))
      .filter((f): f is { rel: string; version: string } => f.version !== undefined)
      .sort((a, b) => compareDebian(b.version, a.version));
    const newest = versioned[0];
    if (!newest) continue;
    if (layout.binaryFormat === 'pe') await staging.copyFrom(alias.path, newest.rel, `${alias.path} (the plain name of ${newest.rel})`);
    else await staging.symlink(alias.path, path.posix.relative(path.posix.dirname(alias.path), newest.rel), `${alias.path} (the plain name of ${newest.rel})`);
    reporter.note(`${alias.path}: ${layout.binaryFormat === 'pe' ? 'a copy of' : 'a link to'} ${newest.rel}, the only name its package ships it under`);
  }
}

/**
 * What the components' roles add (the loader's pkg-config and CMake files, an ICD file and the machine's ICDs beside
 * it), written into the staging tree (a file the archives shipped is re-rooted), and the variables that find them.
 */
async function addRoleFiles(plan: InstallPlan, prefix: string, staging: Staging, extraEnv: Record<string, string> | undefined): Promise<Pick<Receipt, 'extraEnv' | 'searchPaths'>> {
  const layout = layoutFor(plan.platform);
  const installing = plan.components.filter((c) => c.status === 'planned');
  const at = { prefix, layout, systemIcds: plan.host.native ? await readIcds(layout.openclVendorDirs) : [] };
  for (const f of roleFiles(installing, at)) {
    await staging.writeText(f.path, f.reroot && (await staging.has(f.path)) ? f.reroot(await fs.readFile(staging.abs(f.path), 'utf8')) : f.text);
  }
  const env = { ...roleEnv(installing, at), ...extraEnv };
  const searchPaths = roleSearchPaths(installing);
  return { extraEnv: Object.keys(env).length ? env : undefined, ...(searchPaths.length && { searchPaths }) };
}

/** The receipt of the staged tree, drafted once: written into it just before the swap. */
function draftInstallReceipt(plan: InstallPlan, prefix: string, staging: Staging, unpacked: Unpacked, components: ReceiptComponent[], roles: Pick<Receipt, 'extraEnv' | 'searchPaths'>, locked: LockedPlatform | undefined): Receipt {
  const { fetched } = unpacked;
  const skipped = plan.components
    .filter((c) => c.status !== 'planned')
    .map((c) => ({ name: c.name, tried: c.attempts.map((a) => a.reason), unreached: c.attempts.filter((a) => a.outcome === 'unreachable').map((a) => a.reason) }));
  return {
    schema: RECEIPT_SCHEMA,
    tool: { name: 'xpu-setup', version: VERSION },
    platform: plan.platform,
    prefix,
    installedAt: new Date().toISOString(),
    planKey: plan.planKey,
    components,
    archives: fetched.map((f) => ({
      component: f.component,
      source: plan.components.find((c) => c.name === f.component)?.source ?? '',
      package: f.archive.package,
      version: f.archive.version,
      url: f.archive.url,
      sha256: f.file.sha256,
      size: f.file.size,
    })),
    files: [...staging.files.values()].sort(byPath),
    extraEnv: roles.extraEnv,
    ...(roles.searchPaths && { searchPaths: roles.searchPaths }),
    skipped: skipped.length ? skipped : undefined,
    request: plan.request,
    plan: locked && recordedPlan(locked, new Map(fetched.map((f) => [f.file.sha256, f.file.size]))),
  };
}

/** What a check found wrong with the staged tree, and the component whose own check found it. */
interface Problem {
  text: string;
  component?: string;
}

/**
 * Refuses the staged tree when a check found it does not work here; the message says the prefix was kept. `loads`
 * names the components whose own libraries do not load here (so the plan can turn them away).
 */
function refuseProblems(prefix: string, found: Problem[], state: PrefixState): void {
  if (!found.length) return;
  const problems = found.map((p) => p.text);
  const loads = [...new Set(found.flatMap((p) => (p.component ? [p.component] : [])))];
  throw new XpuError('PREFIX_CHECK', `the new tree for ${prefix} does not work here, so it was not installed: ${problems[0]}`, {
    details: { prefix, problems, ...(loads.length ? { components: loads, host: true } : {}) },
    hints: [
      state.receipt ? 'the previous prefix was kept as it was and still works as before' : 'nothing was installed',
      ...problems.slice(1),
      'choose another version or source (--source, --conda-channel), or fix what the message names',
    ],
  });
}

/**
 * Installs the fetched archives. Given a fetch under way, each archive is unpacked as soon as it and those before it
 * are in, while the rest still download; unpacking keeps plan order, so the outcome never depends on which download
 * finished first.
 */
export async function installPlan(
  planIn: InstallPlan,
  fetching: FetchedArchive[] | Fetching,
  reporter: Reporter,
  opts: InstallOptions = {},
): Promise<InstallResult> {
  const run: Fetching = Array.isArray(fetching)
    ? { archives: fetching.map((f) => Promise.resolve(f)), all: Promise.resolve(fetching), cancel: async () => undefined }
    : fetching;
  const stage = await makeStage(planIn, run, opts);
  const { prefix, dir: stagingDir, state } = stage;
  const staging = new Staging(stagingDir, opts.limits ?? DEFAULT_LIMITS, layoutFor(planIn.platform).fileNames);
  const notes: string[] = [];
  // The line for this stage starts once the fetch has said its last word, so two progress lines never interleave.
  let task: Task | undefined;
  void run.all.then(() => (task ??= reporter.task('installing')), () => undefined);
  const checks: Promise<Problem[]>[] = [];
  try {
    const unpacked = await unpackAll(planIn, run, stage, staging, reporter, opts, checks);
    const { plan } = unpacked;
    // Every archive is in, so the fetch has finished and this stage's line has started.
    await unpacked.run.all;
    task ??= reporter.task('installing');
    await addRoleAliases(plan, staging, reporter);
    staging.checkLinks();
    const treeCheck = opts.checkTree
      ? opts.checkTree(stagingDir, plan).then((r) => {
          notes.push(...r.notes);
          return r.problems.map((text) => ({ text }));
        })
      : Promise.resolve([]);
    treeCheck.catch(() => undefined);
    checks.push(treeCheck);
    const components = await landedComponents(plan, unpacked.landed, staging, notes);
    const roles = await addRoleFiles(plan, prefix, staging, opts.extraEnv);
    const receipt = draftInstallReceipt(plan, prefix, staging, unpacked, components, roles, opts.lockedOf?.(plan));
    refuseProblems(prefix, (await Promise.all(checks)).flat(), state);
    // The swap replaces the prefix whole: files the old receipt does not list are the user's, said before they go.
    if (state.receipt) {
      const said = sayUserFiles(prefix, await carryUserFiles(prefix, state.receipt, stagingDir));
      if (said.kept) notes.push(said.kept);
      if (said.replaced) reporter.warn(said.replaced, 'their old copies go with the previous prefix; a file of yours is kept across runs under a path no package installs');
    }
    await writePrefixFiles(stagingDir, receipt);
    // mkdtemp makes the directory private; a prefix is read by compilers and loaders of any user.
    await fs.chmod(stagingDir, 0o755);
    // From here the tree is the new prefix: an interrupt mid-swap leaves it for the next run's recovery.
    stage.forget();
    await withSignalsHeld(prefix, () => swapIn(stagingDir, prefix, opts.rename ?? fs.rename));
    task?.succeed(`installed ${receipt.files.length} files into ${prefix}`);
    return { plan, prefix, changed: true, receipt, notes };
  } catch (thrown) {
    const e = thrown instanceof FetchFailed ? thrown.error : thrown;
    // Nothing may still be reading or writing the staging tree when it is removed.
    await Promise.all([run.cancel(), Promise.allSettled(checks)]);
    // The install's own failure, met while the fetch was still open (held runtime packages keep it so), is said as
    // the install's; a failure of the fetch was said by the fetch's line.
    if (!task && !(thrown instanceof FetchFailed)) task = reporter.task('installing');
    // A tree the checks refused may be followed by another candidate in the same run: said as what it is.
    task?.fail(`${e instanceof XpuError && e.code === 'PREFIX_CHECK' ? 'refused before the swap' : 'install failed'}; the prefix was left as it was`);
    await fs.rm(stagingDir, { recursive: true, force: true });
    stage.forget();
    throw fsWriteError(e, prefix, { tree: prefix, unchanged: UNCHANGED });
  }
}
