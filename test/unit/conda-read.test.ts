// .conda reading: the payload in the same pass as metadata.json, and never before that file has said format version 2.
import * as fs from 'node:fs/promises';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { readArchive, type ArchiveEntry } from '../../src/formats/index.js';
import { tarBuffer, zipBuffer, zstdCompress } from '../support/packages.js';

let work: string;
let n = 0;
beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-conda-read-'));
});
afterAll(() => fs.rm(work, { recursive: true, force: true }));

/** The fs module object itself (which yauzl and read streams call), not an ES namespace, so its open can be watched. */
const fsModule = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');

const META = { path: 'metadata.json', data: Buffer.from(JSON.stringify({ conda_pkg_format_version: 2 })) };

/** A .conda whose zip holds `members` in that order; `pkg` and `info` stand for the two tar.zst members. */
async function conda(members: ({ path: string; data: Buffer } | 'pkg' | 'info')[]): Promise<string> {
  const pkg = await zstdCompress(tarBuffer([{ path: 'lib/libze_loader.so.1', type: 'file', data: Buffer.from('loader') }]));
  const info = await zstdCompress(tarBuffer([{ path: 'info/index.json', type: 'file', data: Buffer.from('{}') }]));
  const entries = members.map((m) => (m === 'pkg' ? { path: 'pkg-x-1-0.tar.zst', data: pkg } : m === 'info' ? { path: 'info-x-1-0.tar.zst', data: info } : m));
  const file = path.join(work, `p${n++}.conda`);
  await fs.writeFile(file, await zipBuffer(entries, false));
  return file;
}

async function read(file: string): Promise<string[]> {
  const seen: string[] = [];
  await readArchive('conda', file, async (e: ArchiveEntry, body) => {
    seen.push(e.path);
    if (body) for await (const _ of body) void _;
  });
  return seen;
}

describe('.conda', () => {
  it('yields the payload, metadata.json read first in the same pass', async () => {
    const file = await conda([META, 'pkg', 'info']);
    const open = vi.spyOn(fsModule, 'open');
    try {
      expect(await read(file)).toEqual(['lib/libze_loader.so.1']);
      // The zip opened once, by yauzl for its directory: no second pass over it. (The members are read through one
      // descriptor of xpu-setup's own, opened through fs/promises.)
      expect(open.mock.calls.filter((c) => c[0] === file)).toHaveLength(1);
    } finally {
      open.mockRestore();
    }
  });

  it('still yields the payload when it comes before metadata.json, once that file has been read', async () => {
    expect(await read(await conda(['info', 'pkg', META]))).toEqual(['lib/libze_loader.so.1']);
  });

  it('yields nothing when metadata.json says another version, or is missing, or is not JSON, wherever it lies', async () => {
    const v1 = { path: 'metadata.json', data: Buffer.from(JSON.stringify({ conda_pkg_format_version: 1 })) };
    const cases: [Parameters<typeof conda>[0], RegExp][] = [
      [[v1, 'pkg'], /not a \.conda package \(metadata\.json format version 1\)/],
      [['pkg', v1], /not a \.conda package \(metadata\.json format version 1\)/],
      [['pkg', 'info'], /not a \.conda package \(metadata\.json format version undefined\)/],
      [[{ path: 'metadata.json', data: Buffer.from('{"conda_pkg') }, 'pkg'], /metadata\.json is not JSON/],
    ];
    for (const [members, message] of cases) {
      const seen: string[] = [];
      await expect(readArchive('conda', await conda(members), async (e) => void seen.push(e.path))).rejects.toMatchObject({ code: 'BAD_ARCHIVE', message });
      expect(seen).toEqual([]);
    }
  });

  it('refuses a metadata.json too large to be one before reading it', async () => {
    const big = { path: 'metadata.json', data: Buffer.alloc(100_000, 0x20) };
    await expect(read(await conda([big, 'pkg']))).rejects.toMatchObject({ code: 'BAD_ARCHIVE', message: /metadata\.json declares 100000 bytes/ });
  });

  it('says so when there is no payload', async () => {
    await expect(read(await conda([META, 'info']))).rejects.toMatchObject({ code: 'BAD_ARCHIVE', message: /without a pkg-\*\.tar\.zst member/ });
  });
});
