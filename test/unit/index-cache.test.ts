// A new body written into the index cache: whatever the pieces' sizes (network-sized ones, one larger than the pieces
// it is written in, an empty body), and though each piece's memory is used again once taken, the stored file holds
// exactly the bytes under their sha256; an abandoned body leaves no temp file behind. A kept body reads back checked.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CorruptBody, IndexCache } from '../../src/cache/index-cache.js';

let root: string;
beforeEach(async () => {
  root = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-index-cache-'));
});
afterEach(() => fs.rm(root, { recursive: true, force: true }));

/** Hands `chunks` to the writer the way a connection does: each through one buffer, overwritten once taken. */
async function store(cache: IndexCache, chunks: Buffer[]): Promise<{ sha256: string; size: number }> {
  const writer = await cache.bodyWriter();
  const reused = Buffer.alloc(Math.max(1, ...chunks.map((c) => c.length)));
  for (const c of chunks) {
    const piece = reused.subarray(0, c.length);
    c.copy(piece);
    await writer.take(piece);
    piece.fill(0x55);
  }
  return writer.commit();
}

describe('IndexCache body writer', () => {
  it('removes part files a killed run left (its writer gone, 10 minutes quiet), and keeps a live writer\'s', async () => {
    const tmp = path.join(root, 'tmp');
    await fs.mkdir(tmp, { recursive: true });
    // pid 2^22+1 is past Linux's pid_max: no process has it.
    const dead = path.join(tmp, `${2 ** 22 + 1}-abcdef.part`);
    const live = path.join(tmp, `${process.pid}-012345.part`);
    const fresh = path.join(tmp, `${2 ** 22 + 1}-fedcba.part`);
    for (const f of [dead, live, fresh]) await fs.writeFile(f, 'partial');
    const old = new Date(Date.now() - 3600_000);
    for (const f of [dead, live]) await fs.utimes(f, old, old);
    await store(new IndexCache(root), [Buffer.from('body')]);
    expect((await fs.readdir(tmp)).sort()).toEqual([path.basename(live), path.basename(fresh)].sort());
  });

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
    writer.take(randomBytes(1_000));
    await writer.abandon();
    expect(await fs.readdir(path.join(root, 'tmp'))).toEqual([]);

    const busy = await cache.bodyWriter();
    // More than the writer's buffers hold: the first is being written, and the rest waits, when the body is abandoned.
    const writing = busy.take(randomBytes(3_500_000))?.catch((e: Error) => e.message);
    await busy.abandon();
    expect(await writing).toMatch(/closed before it was written/);
    await new Promise((r) => setTimeout(r, 50));
    expect(await fs.readdir(path.join(root, 'tmp'))).toEqual([]);
  });

  it('a kept body reads back as pieces and as a stream; a damaged one fails at its end and is removed', async () => {
    const cache = new IndexCache(root);
    const body = randomBytes(2_500_000);
    const { sha256 } = await store(cache, [body]);
    const streamed: Buffer[] = [];
    for await (const c of cache.openBody(sha256)) streamed.push(c as Buffer);
    expect(Buffer.concat(streamed).equals(body)).toBe(true);
    const file = path.join(root, 'bodies', sha256.slice(0, 2), sha256);
    // One byte changed (a fixed replacement would be no change at all once in 256 random bodies).
    await fs.writeFile(file, Buffer.concat([body.subarray(0, 100), Buffer.from([body[100]! ^ 0xff]), body.subarray(101)]));
    await expect(
      (async () => {
        for await (const c of cache.openBody(sha256)) void c;
      })(),
    ).rejects.toBeInstanceOf(CorruptBody);
    await expect(fs.access(file)).rejects.toThrow();
  });
});
