import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withPrefixLock } from '../../src/install/lock.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-lock-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe('prefix lock', () => {
  it('runs one holder at a time, in order, and removes the lock file', async () => {
    const prefix = path.join(dir, 'a');
    const events: string[] = [];
    const hold = (name: string) => withPrefixLock(prefix, async () => {
      events.push(`${name} in`);
      await new Promise((r) => setTimeout(r, 50));
      events.push(`${name} out`);
    });
    await Promise.all([hold('first'), hold('second')]);
    expect(events).toEqual(['first in', 'first out', 'second in', 'second out']);
    await expect(fs.access(`${prefix}.xpu-setup.lock`)).rejects.toThrow();
  });

  it('says whom it waits for, and gives up with LOCKED naming the owner', async () => {
    const prefix = path.join(dir, 'b');
    // A live process that is not this one owns the lock.
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await fs.writeFile(`${prefix}.xpu-setup.lock`, JSON.stringify({ pid: other.pid }));
      const waited: number[] = [];
      const err = await withPrefixLock(prefix, async () => 'ran', { waitMs: 300, onWait: (pid) => waited.push(pid) }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'LOCKED', details: { pid: other.pid } });
      expect(waited).toEqual([other.pid]);
    } finally {
      other.kill();
    }
  });

  it('takes over the lock of a process that is gone', async () => {
    const prefix = path.join(dir, 'c');
    await fs.writeFile(`${prefix}.xpu-setup.lock`, JSON.stringify({ pid: 4194305 }));
    expect(await withPrefixLock(prefix, async () => 'ran', { waitMs: 300 })).toBe('ran');
  });
});
