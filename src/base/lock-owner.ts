// Lock files taken with O_EXCL (the prefix's, a partial download's): who holds one, whether that owner is gone, and
// what an interrupted run removes on its way out (its locks, its staging tree).
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';

/** What a lock file records: enough to tell its owner from another process that later got the same pid. */
export interface LockOwner {
  host?: string;
  pid?: number;
  /** Linux: field 22 of /proc/<pid>/stat (clock ticks since boot); absent where the system does not say. */
  startTime?: string;
  /** Random per acquisition, so this process can tell its own live locks from a copy naming its pid. */
  token?: string;
  since?: string;
}

/** Tokens of the locks this process holds (or is writing) right now. */
const held = new Set<string>();

/** The start time of a process, where /proc tells it; undefined otherwise (best effort off Linux). */
export function processStartTime(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces or parentheses itself.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  } catch {
    return undefined;
  }
}

/** When a process started, in epoch ms, where /proc tells it (field 22 of its stat, in ticks after the boot time). */
export function processStartedAt(pid: number): number | undefined {
  const ticks = Number(processStartTime(pid));
  if (!Number.isFinite(ticks)) return undefined;
  try {
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    // USER_HZ is 100 on every Linux that Node runs on.
    return Number.isFinite(btime) ? btime * 1000 + ticks * 10 : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid runs on this machine (one this process may not signal runs too). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** This process as the owner of a new lock, with a token of its own; `hold` it before the file is written. */
export function newOwner(): LockOwner & { token: string } {
  return { host: os.hostname(), pid: process.pid, startTime: processStartTime(process.pid), token: randomBytes(8).toString('hex') };
}

/** The lock with `token` is being taken or is held by this process. */
export function hold(token: string): void {
  held.add(token);
}

/** The lock with `token` is no longer this process's (call once its file is gone). */
export function release(token: string): void {
  held.delete(token);
}

/**
 * Why a lock's owner is gone, or undefined while it still holds the lock. Pids are reused (and Wine gives every
 * fresh process the same one), so a live pid is the owner only if it also started when the lock says.
 */
export function staleReason(owner: LockOwner | undefined, self = { pid: process.pid, host: os.hostname() }): string | undefined {
  if (!owner || typeof owner.pid !== 'number') return 'the lock file is unreadable';
  if (owner.host !== undefined && owner.host !== self.host) return `it was taken on another machine (${owner.host})`;
  if (owner.pid === self.pid) return owner.token !== undefined && held.has(owner.token) ? undefined : 'it names this very process, which did not take it';
  if (!alive(owner.pid)) return `process ${owner.pid} is gone`;
  if (owner.startTime !== undefined) {
    const now = processStartTime(owner.pid);
    if (now !== undefined && now !== owner.startTime) return `pid ${owner.pid} now belongs to another process`;
  } else if (owner.since !== undefined) {
    // A lock of an earlier format records no start time: a process that started after the lock was taken is not its owner.
    const started = processStartedAt(owner.pid);
    const since = Date.parse(owner.since);
    if (started !== undefined && Number.isFinite(since) && started > since + 1000) return `pid ${owner.pid} started after the lock was taken, so it belongs to another process`;
  }
  return undefined;
}

/** A lock file's text as its owner: a record of this module's, or a bare pid (what earlier releases wrote). */
function parseOwner(text: string | undefined): LockOwner | undefined {
  if (text === undefined) return undefined;
  if (/^\d+$/.test(text.trim())) return { pid: Number(text.trim()) };
  try {
    const owner = JSON.parse(text) as unknown;
    return owner !== null && typeof owner === 'object' ? (owner as LockOwner) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Who holds the lock file `lock`, and why that owner no longer does (then the lock may be taken over); `stale` is
 * undefined while the owner holds it.
 */
export async function lockState(lock: string): Promise<{ owner?: LockOwner; stale?: string }> {
  const owner = parseOwner(await fs.readFile(lock, 'utf8').catch(() => undefined));
  const mtimeMs = await fs.stat(lock).then((st) => st.mtimeMs, () => undefined);
  // Another run creates the file and then writes it: an empty lock that is a moment old is being taken, not stale.
  if (!owner && mtimeMs !== undefined && Date.now() - mtimeMs < 2000) return {};
  // A bare pid (the earliest format) was written when the lock was taken: the file's time says when.
  if (owner && owner.since === undefined && owner.startTime === undefined && mtimeMs !== undefined) owner.since = new Date(mtimeMs).toISOString();
  return { owner, stale: staleReason(owner) };
}

/** Paths this process removes if SIGINT or SIGTERM ends it: the locks it holds, the staging tree it fills. */
const onInterrupt = new Set<string>();
let trapped = false;
/** Work a signal must not cut in two (the swap's pair of renames): a signal that comes meanwhile waits for its end. */
let signalsHeld = 0;
let pending: NodeJS.Signals | undefined;
/** The prefixes this run has replaced: an interrupt after the swap leaves the new one, and says so. */
const replaced = new Set<string>();

function interrupted(signal: NodeJS.Signals): void {
  if (signalsHeld) {
    pending ??= signal;
    return;
  }
  // Staging trees before locks: the lock is what tells another run the tree is in use.
  for (const p of [...onInterrupt].sort((a, b) => Number(a.endsWith('.lock')) - Number(b.endsWith('.lock')))) {
    try {
      rmSync(p, { recursive: true, force: true });
    } catch {
      // what cannot be removed now is cleaned by the next run, as after a kill -9
    }
  }
  const prefixes = replaced.size ? `the new prefix is in place at ${[...replaced].join(', ')}` : 'the prefix was left as it was';
  process.stderr.write(`\ninterrupted (${signal}): removed ${onInterrupt.size ? [...onInterrupt].join(', ') : 'nothing'}; ${prefixes}\n`);
  // The signal again with its default action: the process ends now, even when a thread of the pool is stuck in a
  // read (process.exit waits for those threads). The other listeners of this emit still run first.
  process.removeAllListeners(signal);
  setImmediate(() => process.kill(process.pid, signal));
}

/**
 * Removes `path` (recursively) if the process is interrupted before the returned function is called. A run stopped by
 * Ctrl-C or a CI job's SIGTERM leaves no lock and no staging tree behind; the next run finds the prefix as it was.
 */
export function removeOnInterrupt(path: string): () => void {
  onInterrupt.add(path);
  if (!trapped) {
    trapped = true;
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => interrupted(signal));
  }
  return () => void onInterrupt.delete(path);
}

/** Runs `work` (the swap of `prefix`) with SIGINT and SIGTERM held until it ends; from then on the prefix is the new one. */
export async function withSignalsHeld<T>(prefix: string, work: () => Promise<T>): Promise<T> {
  signalsHeld++;
  try {
    const out = await work();
    replaced.add(prefix);
    return out;
  } finally {
    signalsHeld--;
    if (!signalsHeld && pending) interrupted(pending);
  }
}
