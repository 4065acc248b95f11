// One installer per prefix at a time: an exclusive lock file beside the prefix, taken over when its owner is gone.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { XpuError } from '../errors.js';

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

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
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
  }
  return undefined;
}

export async function withPrefixLock<T>(
  prefix: string,
  work: () => Promise<T>,
  opts: { waitMs?: number; onWait?: (pid: number) => void; onStale?: (why: string) => void } = {},
): Promise<T> {
  const waitMs = opts.waitMs ?? 120_000;
  let told = false;
  const lock = `${prefix}.xpu-setup.lock`;
  const start = Date.now();
  const token = randomBytes(8).toString('hex');
  const me: LockOwner = { host: os.hostname(), pid: process.pid, startTime: processStartTime(process.pid), token };
  await fs.mkdir(path.dirname(prefix), { recursive: true }).catch(() => undefined);
  for (;;) {
    held.add(token);
    try {
      await fs.writeFile(lock, JSON.stringify({ ...me, since: new Date().toISOString() }), { flag: 'wx' });
      break;
    } catch (e) {
      held.delete(token);
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new XpuError('INSTALL', `cannot create the lock file ${lock}`, { cause: e, details: { path: lock }, hints: ['check that the prefix\'s parent directory is writable and has free space'] });
      }
      const owner = await fs.readFile(lock, 'utf8').then((t) => JSON.parse(t) as LockOwner).catch(() => undefined);
      // Another run creates the file and then writes it: an empty lock that is a moment old is being taken, not stale.
      const young = !owner && (await fs.stat(lock).then((st) => Date.now() - st.mtimeMs < 2000, () => false));
      const stale = young ? undefined : staleReason(owner);
      if (stale) {
        // The owner died (kill -9, power loss) or is not the process that took the lock: take it over.
        opts.onStale?.(stale);
        await fs.rm(lock, { force: true });
        continue;
      }
      if (Date.now() - start > waitMs) {
        throw new XpuError('LOCKED', `another xpu-setup (pid ${owner?.pid ?? 'unknown'}) is installing into ${prefix}`, {
          details: { lock, pid: owner?.pid, host: owner?.host },
          hints: ['wait for it to finish, or use another --prefix', `if no such installer runs, remove ${lock}`],
        });
      }
      if (!told) {
        told = true;
        opts.onWait?.(owner?.pid ?? 0);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await work();
  } finally {
    // Forgotten only once the file is gone: until then a sibling call in this process must keep waiting.
    await fs.rm(lock, { force: true });
    held.delete(token);
  }
}
