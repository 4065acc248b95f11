import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withPrefixLock } from '../../src/prefix/lock.js';
import { processStartTime, staleReason } from '../../src/base/lock-owner.js';

let dir: string;
beforeAll(async () => {
  dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-lock-'));
});
afterAll(() => fs.rm(dir, { recursive: true, force: true }));

describe('prefix lock', () => {
  it('runs one holder at a time, in order, and removes the lock file', async () => {
    const prefix = path.join(dir, 'a');
    const events: string[] = [];
    const hold = (name: string, entered?: () => void) => withPrefixLock(prefix, async () => {
      events.push(`${name} in`);
      entered?.();
      await new Promise((r) => setTimeout(r, 50));
      events.push(`${name} out`);
    });
    // The second asks while the first holds the lock (asked at the same moment, either may win the race to take it).
    let firstIn!: () => void;
    const inside = new Promise<void>((r) => (firstIn = r));
    const first = hold('first', firstIn);
    await inside;
    await Promise.all([first, hold('second')]);
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

describe('a lock whose owner is not the process that took it is stale', () => {
  it('records host, pid and the process start time', async () => {
    const prefix = path.join(dir, 'd');
    const seen = await withPrefixLock(prefix, async () => JSON.parse(await fs.readFile(`${prefix}.xpu-setup.lock`, 'utf8')) as Record<string, unknown>);
    expect(seen).toMatchObject({ host: os.hostname(), pid: process.pid, startTime: processStartTime(process.pid) });
    expect(String(seen.startTime)).toMatch(/^\d+$/);
  });

  it('takes over a lock whose pid is alive but started at another time (pid reuse)', async () => {
    const prefix = path.join(dir, 'e');
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await new Promise((r) => other.once('spawn', r));
      await fs.writeFile(`${prefix}.xpu-setup.lock`, JSON.stringify({ host: os.hostname(), pid: other.pid, startTime: '1' }));
      const why: string[] = [];
      expect(await withPrefixLock(prefix, async () => 'ran', { waitMs: 300, onStale: (w) => why.push(w) })).toBe('ran');
      expect(why).toEqual([`pid ${other.pid} now belongs to another process`]);
    } finally {
      other.kill();
    }
  });

  it('takes over a lock of the earlier format ({pid, since}) naming a live process that started after it', async () => {
    const prefix = path.join(dir, 'e2');
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await new Promise((r) => other.once('spawn', r));
      await fs.writeFile(`${prefix}.xpu-setup.lock`, JSON.stringify({ pid: other.pid, since: new Date(Date.now() - 3_600_000).toISOString() }));
      const why: string[] = [];
      expect(await withPrefixLock(prefix, async () => 'ran', { waitMs: 300, onStale: (w) => why.push(w) })).toBe('ran');
      expect(why).toEqual([`pid ${other.pid} started after the lock was taken, so it belongs to another process`]);
      // A bare pid, the earliest format: the file's own time says when the lock was taken.
      await fs.writeFile(`${prefix}.xpu-setup.lock`, String(other.pid));
      const old = new Date(Date.now() - 3_600_000);
      await fs.utimes(`${prefix}.xpu-setup.lock`, old, old);
      expect(await withPrefixLock(prefix, async () => 'ran', { waitMs: 300 })).toBe('ran');
      // Taken after the process started: still its lock, waited for.
      await fs.writeFile(`${prefix}.xpu-setup.lock`, JSON.stringify({ pid: other.pid, since: new Date().toISOString() }));
      const waited: string[] = [];
      const err = await withPrefixLock(prefix, async () => 'ran', { waitMs: 300, onWait: (_pid, lock) => waited.push(lock) }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'LOCKED' });
      expect(waited).toEqual([`${prefix}.xpu-setup.lock`]);
    } finally {
      other.kill();
    }
  });

  it('still waits for a live owner whose start time matches', async () => {
    const prefix = path.join(dir, 'f');
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      await new Promise((r) => other.once('spawn', r));
      const owner = { host: os.hostname(), pid: other.pid, startTime: processStartTime(other.pid!) };
      await fs.writeFile(`${prefix}.xpu-setup.lock`, JSON.stringify(owner));
      const err = await withPrefixLock(prefix, async () => 'ran', { waitMs: 300 }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'LOCKED', details: { pid: other.pid } });
    } finally {
      other.kill();
    }
  });

  it('takes over a lock naming this very process that this process did not take (Wine reuses one pid)', async () => {
    const prefix = path.join(dir, 'g');
    await fs.writeFile(`${prefix}.xpu-setup.lock`, JSON.stringify({ host: os.hostname(), pid: process.pid, startTime: processStartTime(process.pid) }));
    expect(staleReason({ host: os.hostname(), pid: process.pid })).toBe('it names this very process, which did not take it');
    expect(await withPrefixLock(prefix, async () => 'ran', { waitMs: 300 })).toBe('ran');
  });

  it('takes over a lock copied from another machine', () => {
    expect(staleReason({ host: 'elsewhere.example', pid: process.pid })).toBe('it was taken on another machine (elsewhere.example)');
  });
});

describe('a lock being written right now', () => {
  it('an empty lock file a moment old is waited for, not taken over', async () => {
    const prefix = path.join(dir, 'h');
    await fs.writeFile(`${prefix}.xpu-setup.lock`, '');
    const err = await withPrefixLock(prefix, async () => 'ran', { waitMs: 300 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'LOCKED' });
  });

  it('an empty lock file left long ago is stale', async () => {
    const prefix = path.join(dir, 'i');
    await fs.writeFile(`${prefix}.xpu-setup.lock`, '');
    const old = new Date(Date.now() - 60_000);
    await fs.utimes(`${prefix}.xpu-setup.lock`, old, old);
    expect(await withPrefixLock(prefix, async () => 'ran', { waitMs: 300 })).toBe('ran');
  });
});
