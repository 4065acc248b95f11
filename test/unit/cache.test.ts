import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DownloadCache } from '../../src/cache/store.js';
import { XpuError } from '../../src/base/errors.js';

let root: string;
beforeAll(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-cache-'));
});
afterAll(() => fs.rm(root, { recursive: true, force: true }));

describe('DownloadCache', () => {
  it('finds an entry only when its bytes still hash to its name, and drops a damaged one', async () => {
    const cache = new DownloadCache(root);
    const data = Buffer.from('level zero');
    const sha = createHash('sha256').update(data).digest('hex');
    const tmp = await cache.tempFile('x.conda');
    await fs.writeFile(tmp, data);
    await cache.adopt(tmp, sha, data.length);
    expect(await cache.lookup(sha)).toMatchObject({ sha256: sha, size: data.length, cached: true });
    await fs.writeFile(cache.pathFor(sha), 'bit rot');
    expect(await cache.lookup(sha)).toBeUndefined();
    await expect(fs.access(cache.pathFor(sha))).rejects.toThrow();
  });

  it("an entry that is a directory (or a FIFO) is the cache's damage: removed and said, so a fresh download takes its place", async () => {
    const said: string[] = [];
    const cache = new DownloadCache(path.join(root, 'damaged'), { damaged: (entry, what) => said.push(`${entry}: ${what}`) });
    const dirSha = 'cd'.padEnd(64, '1');
    await fs.mkdir(path.join(cache.pathFor(dirSha), 'inside'), { recursive: true });
    expect(await cache.lookup(dirSha)).toBeUndefined();
    await expect(fs.lstat(cache.pathFor(dirSha))).rejects.toThrow();
    // A FIFO: hashing it would wait for ever.
    const fifoSha = 'ef'.padEnd(64, '2');
    await fs.mkdir(path.dirname(cache.pathFor(fifoSha)), { recursive: true });
    execFileSync('mkfifo', [cache.pathFor(fifoSha)]);
    expect(await cache.lookup(fifoSha)).toBeUndefined();
    expect(said).toEqual([`${cache.pathFor(dirSha)}: a directory`, `${cache.pathFor(fifoSha)}: not a regular file`]);
  });

  it("a failure writing into the cache is said as the cache's, with --cache-dir and XPU_SETUP_CACHE_DIR; others pass through", async () => {
    const cache = new DownloadCache(path.join(root, 'denied'));
    const denied = Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES', syscall: 'open', path: path.join(cache.root, 'tmp', 'x.part') });
    const e = (await cache.failure(denied)) as XpuError;
    expect([e.code, e.message]).toEqual(['INSTALL', `the download cache ${cache.root} cannot be written: no permission to write ${path.join(cache.root, 'tmp', 'x.part')}`]);
    expect(e.hints).toEqual([`check the cache directory ${cache.root} (it must be writable: its permissions, or the file system it is on), or choose another with --cache-dir or XPU_SETUP_CACHE_DIR; the prefix was not changed`]);
    const elsewhere = Object.assign(new Error('EACCES'), { code: 'EACCES', syscall: 'open', path: '/somewhere/else' });
    expect(await cache.failure(elsewhere)).toBe(elsewhere);
    const typed = new XpuError('NETWORK', 'cut');
    expect(await cache.failure(typed)).toBe(typed);
  });

  it('sweeps only old partial downloads', async () => {
    const cache = new DownloadCache(root);
    const old = await cache.tempFile('old.whl');
    const fresh = await cache.tempFile('fresh.whl');
    await fs.writeFile(old, 'x');
    await fs.writeFile(fresh, 'y');
    const dayAgo = new Date(Date.now() - 2 * 24 * 3600_000);
    await fs.utimes(old, dayAgo, dayAgo);
    expect(await cache.sweep()).toBe(1);
    await expect(fs.access(old)).rejects.toThrow();
    await expect(fs.access(fresh)).resolves.toBeUndefined();
  });

  it('sweeps a partial download only once it is older than the limit, not at it', async () => {
    const cache = new DownloadCache(path.join(root, 'edge'));
    const part = await cache.tempFile('edge.conda');
    await fs.writeFile(part, 'x');
    const mtime = (await fs.stat(part)).mtimeMs;
    expect(await cache.sweep(1000, mtime + 1000)).toBe(0);
    expect(await cache.sweep(1000, mtime + 1001)).toBe(1);
    await expect(fs.access(part)).rejects.toThrow();
  });

  it('files an entry under sha256/<first two hex digits>/<hash>, the layout every version shares', () => {
    const sha = 'ab'.padEnd(64, '0');
    expect(new DownloadCache('/c').pathFor(sha)).toBe(`/c/sha256/ab/${sha}`);
  });
  it('sweeps old directories as well (an apt-get work directory), and a cache without partial downloads', async () => {
    expect(await new DownloadCache(path.join(root, 'never-used')).sweep()).toBe(0);
    const cache = new DownloadCache(path.join(root, 'dirs'));
    const dir = path.join(path.dirname(await cache.tempFile('x')), 'apt-abc123');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'half.deb'), 'x');
    const dayAgo = new Date(Date.now() - 2 * 24 * 3600_000);
    await fs.utimes(dir, dayAgo, dayAgo);
    expect(await cache.sweep()).toBe(1);
    expect(await fs.readdir(path.join(cache.root, 'tmp'))).toEqual([]);
  });

  it('names a temp file after the hint with anything but [A-Za-z0-9_.+-] replaced, under tmp/', async () => {
    const cache = new DownloadCache(path.join(root, 'names'));
    const plain = await cache.tempFile('https://example.invalid/dl/libze1_1.8+git-1.deb');
    expect(path.dirname(plain)).toBe(path.join(cache.root, 'tmp'));
    expect(path.basename(plain)).toMatch(/^[0-9a-f]{12}-libze1_1\.8\+git-1\.deb\.part$/);
    expect(path.basename(await cache.tempFile('a b?c%.conda'))).toMatch(/^[0-9a-f]{12}-a_b_c_\.conda\.part$/);
  });
});
