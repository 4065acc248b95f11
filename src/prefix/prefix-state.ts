// The prefix as it stands, read once where a run starts and handed down as a `PrefixState`: its receipt, what is
// installed for a platform, does it hold this plan already, may it be replaced, and what a killed run left beside it.
// The no-op re-run needs only this, not the unpacking in install.ts. The only module that reads the receipt.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { XpuError } from '../base/errors.js';
import { nodeLayout } from '../platform/index.js';
import type { TargetPlatform } from '../platform/types.js';
import type { LockedPlatform } from '../records/lock.js';
import type { InstallPlan } from '../records/plan.js';
import { withVerifiedSizes } from '../records/archive.js';
import { ENV_FILES } from '../shells/index.js';
import { RECEIPT_NAME, type Receipt } from '../records/receipt.js';
import { readReceipt } from './receipt.js';
import { diskReader, verifyPrefix, type VerifyPrefixOptions } from './verify.js';

/** The prefix as a run read it: plain data that stages and checks are handed instead of reading the receipt again. */
export interface PrefixState {
  prefix: string;
  /** Its receipt; absent when there is none (a new or empty prefix, or a receipt of another schema) or it is unreadable. */
  receipt?: Receipt;
  /** Why the receipt file that is there could not be read; a damaged one carries `details.receiptDamaged`. */
  unreadable?: Error;
}

/** Reads the prefix's receipt: the one read of it a run makes where it starts (and setup once more under the lock). */
export async function readPrefixState(prefix: string): Promise<PrefixState> {
  try {
    const receipt = await readReceipt(prefix);
    return receipt ? { prefix, receipt } : { prefix };
  } catch (e) {
    return { prefix, unreadable: e as Error };
  }
}

/** The receipt when the prefix was installed for `platform`: what a plan for that platform finds installed. */
export function installedFor(state: PrefixState | undefined, platform: TargetPlatform): Receipt | undefined {
  return state?.receipt?.platform === platform ? state.receipt : undefined;
}

/** True when the prefix already holds exactly this plan, unchanged on disk (by size and mtime, or every byte with `rehash`). */
export async function isUpToDate(plan: InstallPlan, state: PrefixState, opts: VerifyPrefixOptions = {}): Promise<Receipt | undefined> {
  const { receipt } = state;
  if (!receipt || receipt.planKey !== plan.planKey) return undefined;
  return (await verifyPrefix(plan.prefix, receipt, diskReader, opts)).length === 0 ? receipt : undefined;
}

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await fs.readdir(dir)).length === 0;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return true;
    if ((e as NodeJS.ErrnoException).code === 'ENOTDIR') return false;
    throw e;
  }
}

/**
 * What the receipt records of a plan: its lockfile data (lockedOf, handed in), so a run with no index can reuse it,
 * with the sizes the download verified (`verified`, by sha256), which an index may not have given. The lockfile's key
 * covered the index's sizes, so the record carries none (a receipt's record is checked only when it has one).
 */
export function recordedPlan(locked: LockedPlatform, verified: ReadonlyMap<string, number> = new Map()): Receipt['plan'] {
  return { planKey: locked.planKey, components: locked.components.map((c) => ({ ...c, archives: withVerifiedSizes(c.archives, verified) })) };
}

/**
 * A run killed between the two renames of swapIn leaves only `<prefix>.xpu-setup-old-*`: put it back. One killed
 * after the swap leaves the old tree beside a complete prefix: remove it.
 */
async function recoverInterruptedSwap(prefix: string): Promise<void> {
  const parent = path.dirname(prefix);
  const base = path.basename(prefix);
  const leftovers = (await fs.readdir(parent).catch(() => [] as string[])).filter((n) => n.startsWith(`${base}.xpu-setup-old-`));
  if (!leftovers.length) return;
  if (leftovers.length === 1 && (await isEmptyOrMissing(prefix))) {
    await fs.rm(prefix, { recursive: true, force: true });
    await fs.rename(path.join(parent, leftovers[0]!), prefix);
    return;
  }
  for (const n of leftovers) await fs.rm(path.join(parent, n), { recursive: true, force: true });
}

/**
 * Staging trees of runs that were killed (Ctrl-C, kill -9, power loss) never reached their cleanup. The caller
 * holds the prefix lock, so no live run is using any of them.
 */
async function removeDeadStaging(prefix: string): Promise<void> {
  const parent = path.dirname(prefix);
  const stem = `.${path.basename(prefix)}.xpu-setup-staging-`;
  for (const n of await fs.readdir(parent).catch(() => [] as string[])) {
    if (n.startsWith(stem)) await fs.rm(path.join(parent, n), { recursive: true, force: true });
  }
}

/**
 * Refuses, before anything is fetched, a prefix that holds files xpu-setup did not put there. Run under the prefix
 * lock, after what a killed run left is cleared away: the state it returns is the prefix as this run will replace it.
 */
export async function checkPrefixOwnership(prefix: string): Promise<PrefixState> {
  await removeDeadStaging(prefix);
  await recoverInterruptedSwap(prefix);
  const state = await readPrefixState(prefix);
  await refuseForeignPrefix(state);
  return state;
}

/** What setup adds to the prefix's name for the names it keeps beside it: `.<name>.xpu-setup-staging-XXXXXX`. */
const SIBLING_EXTRA = '..xpu-setup-staging-XXXXXX'.length;
/** Room under the prefix for the deepest path a package installs (include/level_zero/layers/...). */
const MEMBER_ROOM = 256;

/** Characters no file the prefix is named in can carry: pkg-config files, GITHUB_PATH and env.bat are read line by line. */
const LINE_BREAKS: Record<string, string> = { '\n': 'a newline (U+000A)', '\r': 'a carriage return (U+000D)' };

/**
 * A prefix whose name the file system would refuse, or that the files written for it cannot name, said before
 * anything is read or written: a line break (with the character named), or a name over the limit (one component of
 * the path, the prefix's own name with what setup puts beside it, or the whole path with room for the files under it).
 */
export function checkPrefixName(prefix: string, platform: NodeJS.Platform = process.platform): void {
  const lineBreak = [...prefix].find((c) => c in LINE_BREAKS);
  if (lineBreak) {
    throw new XpuError('USAGE', `the prefix ${JSON.stringify(prefix)} holds ${LINE_BREAKS[lineBreak]}, which the files written for it cannot carry: pkg-config files, GitHub's GITHUB_PATH and env.bat are read line by line`, {
      details: { prefix, character: lineBreak },
      hints: ['choose a --prefix (or XPU_SETUP_PREFIX) without line breaks; nothing was changed'],
    });
  }
  const limits = nodeLayout(platform).nameLimits;
  const size = (s: string) => (limits.unit === 'bytes' ? Buffer.byteLength(s) : s.length);
  const parts = prefix.split(/[\\/]+/).filter(Boolean);
  const base = parts.at(-1) ?? '';
  const long = parts.find((p) => size(p) > limits.name);
  const fail = (what: string, limit: number, have: number) =>
    new XpuError('NAME_TOO_LONG', `${what} is too long for this file system: ${have} ${limits.unit}, the limit is ${limit}`, {
      details: { prefix, limit, length: have, unit: limits.unit },
      hints: ['choose a shorter --prefix (or XPU_SETUP_PREFIX); nothing was changed'],
    });
  if (long) throw fail(`the name "${long.slice(0, 40)}…" in ${prefix.slice(0, 60)}…`, limits.name, size(long));
  if (size(base) + SIBLING_EXTRA > limits.name) {
    throw fail(`the prefix's own name "${base.slice(0, 40)}…" (setup makes a staging directory beside it, named after it)`, limits.name - SIBLING_EXTRA, size(base));
  }
  if (size(prefix) + MEMBER_ROOM > limits.path) throw fail(`the prefix path ${prefix.slice(0, 60)}…`, limits.path - MEMBER_ROOM, size(prefix));
}

/** The first line of every env file xpu-setup writes (see env.ts). */
const OWN_MARK = /generated by xpu-setup; regenerate with: xpu-setup env/;

/** The prefix holds a receipt file and an env.sh that xpu-setup wrote: it is xpu-setup's, whatever its receipt says. */
export async function hasOwnMarkers(prefix: string): Promise<boolean> {
  const receiptThere = await fs.lstat(path.join(prefix, RECEIPT_NAME)).then((s) => s.isFile(), () => false);
  if (!receiptThere) return false;
  const fh = await fs.open(path.join(prefix, ENV_FILES.sh), 'r').catch(() => undefined);
  if (!fh) return false;
  try {
    const buf = Buffer.alloc(4096);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return OWN_MARK.test(buf.subarray(0, bytesRead).toString('utf8'));
  } finally {
    await fh.close();
  }
}

/** The nearest existing directory above `prefix` when it is not a directory (a regular file, a device): the prefix cannot be made under it. */
async function fileAbove(prefix: string): Promise<string | undefined> {
  for (let dir = path.dirname(prefix); ; dir = path.dirname(dir)) {
    const st = await fs.stat(dir).catch((e: NodeJS.ErrnoException) => (e.code === 'ENOENT' || e.code === 'ENOTDIR' ? undefined : null));
    if (st === null) return undefined;
    if (st) return st.isDirectory() ? undefined : dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Why the prefix cannot be made or replaced where it is, read from the nearest directory above it that exists (where
 * setup makes its directories, its lock file and its staging tree): a kernel file system holds no files, a read-only
 * one and one this user may not write take none.
 */
async function unwritableAbove(prefix: string): Promise<{ dir: string; why: string } | undefined> {
  let dir = path.dirname(prefix);
  while (!(await fs.stat(dir).then((s) => s.isDirectory(), () => false))) {
    if (path.dirname(dir) === dir) return undefined;
    dir = path.dirname(dir);
  }
  const kind = await fs.statfs(dir).then((s) => nodeLayout(process.platform).kernelFileSystems[s.type], () => undefined);
  if (kind) return { dir, why: `is on ${kind}, a file system the kernel makes up, where no directory can be made` };
  const denied = await fs.access(dir, fs.constants.W_OK).then(() => undefined, (e: NodeJS.ErrnoException) => e.code);
  if (denied === 'EROFS') return { dir, why: 'is on a read-only file system' };
  if (denied === 'EACCES' || denied === 'EPERM') return { dir, why: 'is not writable by this user' };
  return undefined;
}

/**
 * The read-only half of checkPrefixOwnership, on the prefix as the run read it: safe before the lock is taken and
 * before any index is read. Returns a note when the prefix is xpu-setup's but its receipt is damaged: then the run
 * replaces it whole.
 */
export async function refuseForeignPrefix(state: PrefixState): Promise<string | undefined> {
  const { prefix } = state;
  checkPrefixName(prefix);
  // The swap renames the prefix aside and the staging tree into its place: a link there would become a directory.
  if ((await fs.lstat(prefix).catch(() => undefined))?.isSymbolicLink()) {
    const target = await fs.realpath(prefix).catch(() => undefined);
    throw new XpuError('INSTALL', `${prefix} is a symbolic link${target ? ` to ${target}` : ' that leads nowhere'}`, {
      details: { prefix, target },
      hints: [
        'setup replaces its prefix whole, which would put a directory where the link is; nothing was changed',
        target ? `name the directory it points to: --prefix ${target}` : 'name a real directory with --prefix',
      ],
    });
  }
  const blocker = await fileAbove(prefix);
  if (blocker) {
    throw new XpuError('INSTALL', `${prefix} cannot be made: ${blocker} is a file, not a directory`, {
      details: { prefix, file: blocker },
      hints: [`the prefix would be a directory inside ${blocker}; nothing was changed`, `choose a --prefix outside it, or move ${blocker} away if a directory belongs there`],
    });
  }
  const unwritable = await unwritableAbove(prefix);
  if (unwritable) {
    throw new XpuError('INSTALL', `${prefix} cannot be made: ${unwritable.dir} ${unwritable.why}`, {
      details: { prefix, dir: unwritable.dir },
      hints: ['nothing was changed', `choose a --prefix (or XPU_SETUP_PREFIX) in a directory this user can write, e.g. under ${os.homedir()}`],
    });
  }
  const previous = state.receipt;
  let note: string | undefined;
  const e = state.unreadable;
  if (e) {
    if (!(e instanceof XpuError && e.details.receiptDamaged) || !(await hasOwnMarkers(prefix))) throw e;
    note = `${e.message}; ${prefix} carries xpu-setup's own env files, so this run reinstalls it whole (the request it recorded is lost: name components and sources again if they were not the defaults)`;
  }
  if ((await fs.stat(prefix).catch(() => undefined))?.isDirectory() === false) {
    throw new XpuError('INSTALL', `${prefix} is a file, not a directory`, {
      details: { prefix },
      hints: ['xpu-setup installs into a directory it owns: choose an empty or new directory with --prefix'],
    });
  }
  if (!previous && !note && !(await isEmptyOrMissing(prefix))) {
    throw new XpuError('INSTALL', `${prefix} exists, is not empty, and was not made by xpu-setup`, {
      details: { prefix },
      hints: ['xpu-setup owns its prefix and replaces it whole: choose an empty or new directory with --prefix'],
    });
  }
  return note;
}
