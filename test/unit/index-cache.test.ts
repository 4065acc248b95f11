// A new body written into the index cache: whatever the chunks' sizes (network-sized ones, one larger than the pieces
// it is written in, an empty body), the stored file holds exactly the bytes under their sha256; an abandoned body
// leaves no temp file behind.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IndexCache } from '../../src/cache/index-cache.js';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-index-cache-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

async function store(cache: IndexCache, chunks: Buffer[]): Promise<{ sha256: string; size: number }> {
  const writer = await cache.bodyWriter();
  for (const c of chunks) {
    if (!writer.stream.write(c)) await new Promise((r) => writer.stream.once('drain', r));
  }
  writer.stream.end();
  return writer.commit();
}

describe('IndexCache body writer', () => {
  it('stores exactly the bytes written, in chunks of any size, under their sha256', async () => {
    const cache = new IndexCache(root);
    const body = randomBytes(3_600_000);
    const cuts = [0, 1, 65_536, 65_537, 1_000_000, 2_600_000, 2_600_100, body.length];
    const chunks = cuts.slice(1).map((end, i) => body.subarray(cuts[i], end));
    const { sha256, size } = await store(cache, chunks);
    expect(sha256).toBe(createHash('sha256').update(body).digest('hex'));
    expect(size).toBe(body.length);
    expect((await cache.readBody(sha256))?.equals(body)).toBe(true);
    expect(await fs.readdir(path.join(root, 'tmp'))).toEqual([]);
  });

  it('stores an empty body', async () => {
    const cache = new IndexCache(root);
    const { sha256, size } = await store(cache, []);
    expect(size).toBe(0);
    expect((await cache.readBody(sha256))?.length).toBe(0);
  });

  it('an abandoned body leaves nothing behind, also while pieces of it are being written', async () => {
    const cache = new IndexCache(root);
    const writer = await cache.bodyWriter();
    writer.stream.write(randomBytes(1_500_000));
    await writer.abandon();
    expect(await fs.readdir(path.join(root, 'tmp'))).toEqual([]);
    await expect(writer.done).rejects.toThrow();

    const busy = await cache.bodyWriter();
    await new Promise((r) => busy.stream.write(Buffer.alloc(1), r));
    busy.stream.write(randomBytes(1_500_000));
    await busy.abandon();
    await new Promise((r) => setTimeout(r, 50));
    expect(await fs.readdir(path.join(root, 'tmp'))).toEqual([]);
  });
});
