// One installer per prefix at a time: an exclusive lock file beside the prefix, taken over when its owner is gone.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../base/errors.js';
import { hold, lockState, newOwner, release, removeOnInterrupt } from '../base/lock-owner.js';

export async function withPrefixLock<T>(
  prefix: string,
  work: () => Promise<T>,
  opts: { waitMs?: number; onWait?: (pid: number, lock: string) => void; onStale?: (why: string) => void } = {},
): Promise<T> {
  const waitMs = opts.waitMs ?? 120_000;
  let told = false;
  const lock = `${prefix}.xpu-setup.lock`;
  const start = Date.now();
  const me = newOwner();
  await fs.mkdir(path.dirname(prefix), { recursive: true }).catch(() => undefined);
  for (;;) {
    hold(me.token);
    try {
      await fs.writeFile(lock, JSON.stringify({ ...me, since: new Date().toISOString() }), { flag: 'wx' });
      break;
    } catch (e) {
      release(me.token);
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new XpuError('INSTALL', `cannot create the lock file ${lock}`, { cause: e, details: { path: lock }, hints: ['check that the prefix\'s parent directory is writable and has free space'] });
      }
      const { owner, stale } = await lockState(lock);
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
        opts.onWait?.(owner?.pid ?? 0, lock);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const forget = removeOnInterrupt(lock);
  try {
    return await work();
  } finally {
    // Forgotten only once the file is gone: until then a sibling call in this process must keep waiting.
    await fs.rm(lock, { force: true });
    forget();
    release(me.token);
  }
}
