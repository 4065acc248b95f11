// One installer per prefix at a time: an exclusive lock file beside the prefix, taken over when its owner is gone.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../errors.js';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export async function withPrefixLock<T>(
  prefix: string,
  work: () => Promise<T>,
  opts: { waitMs?: number; onWait?: (pid: number) => void } = {},
): Promise<T> {
  const waitMs = opts.waitMs ?? 120_000;
  let told = false;
  const lock = `${prefix}.xpu-setup.lock`;
  const start = Date.now();
  await fs.mkdir(path.dirname(prefix), { recursive: true });
  for (;;) {
    try {
      await fs.writeFile(lock, JSON.stringify({ pid: process.pid, since: new Date().toISOString() }), { flag: 'wx' });
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new XpuError('INSTALL', `cannot create the lock file ${lock}`, { cause: e, details: { path: lock }, hints: ['check that the prefix\'s parent directory is writable'] });
      }
      const owner = await fs.readFile(lock, 'utf8').then((t) => (JSON.parse(t) as { pid?: number }).pid, () => undefined);
      if (owner === undefined || !alive(owner)) {
        // The owner died (kill -9, power loss): the lock is stale.
        await fs.rm(lock, { force: true });
        continue;
      }
      if (Date.now() - start > waitMs) {
        throw new XpuError('LOCKED', `another xpu-setup (pid ${owner}) is installing into ${prefix}`, {
          details: { lock, pid: owner },
          hints: ['wait for it to finish, or use another --prefix'],
        });
      }
      if (!told) {
        told = true;
        opts.onWait?.(owner);
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    return await work();
  } finally {
    await fs.rm(lock, { force: true });
  }
}
