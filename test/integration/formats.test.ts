// Archive readers on real package formats: what comes out matches what went in, and hostile members never land.
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readArchive, type ArchiveFormat } from '../../src/formats/index.js';
import { Staging } from '../../src/install/staging.js';
import { buildCondaPackage, buildFixturePackages, tarBuffer, bzip2Compress, zipBuffer, type ArchiveEntry, type FixturePackages } from '../support/packages.js';

let fixtures: FixturePackages;
let tmp: string;

beforeAll(async () => {
  fixtures = await buildFixturePackages();
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-formats-'));
});

afterAll(() => fs.rm(tmp, { recursive: true, force: true }));

async function readAll(format: ArchiveFormat, file: string) {
  const out: { path: string; type: string; sha256?: string; target?: string }[] = [];
  await readArchive(format, file, async (e, body) => {
    if (!body) return void out.push({ path: e.path, type: e.type, target: e.linkTarget });
    const h = createHash('sha256');
    for await (const c of body) h.update(c as Buffer);
    out.push({ path: e.path, type: e.type, sha256: h.digest('hex') });
  });
  return out.sort((a, b) => a.path.localeCompare(b.path));
}

describe('readers yield exactly the payload the packages were built with', () => {
  it.each(['conda', 'tar.bz2'] as const)('.%s: every payload file and symlink, byte for byte, and nothing from info/', async (format) => {
    const a = fixtures.artifacts.find((x) => x.format === format && x.name === 'level-zero-devel' && x.platform === 'linux-x64')!;
    const got = await readAll(format, a.path);
    const want = a.members
      .filter((m) => !m.path.startsWith('info/'))
      .map((m) => (m.type === 'symlink' ? { path: m.path, type: 'symlink', target: m.target } : { path: m.path, type: 'file', sha256: m.sha256 }))
      .sort((x, y) => x.path.localeCompare(y.path));
    expect(got).toEqual(want);
    expect(got.some((m) => m.path === 'include/level_zero/ze_api.h')).toBe(true);
  });

  it('wheels: only <dist>.data/data/ members, with that prefix removed', async () => {
    const w = fixtures.artifacts.find((x) => x.format === 'wheel' && x.name === 'intel-cmplr-lib-ur' && x.platform === 'linux-x64')!;
    const got = await readAll('wheel', w.path);
    expect(got.map((m) => m.path)).toContain('lib/libur_loader.so.0');
    expect(got.every((m) => !m.path.includes('.dist-info') && !m.path.includes('.data/'))).toBe(true);
  });
});

describe('hostile archives', () => {
  async function condaWith(payload: ArchiveEntry[], name: string): Promise<string> {
    const pkg = await buildCondaPackage({ name, version: '1.0', build: 'h0_0', buildNumber: 0, subdir: 'linux-64', payload }, 'tar.bz2');
    const file = path.join(tmp, pkg.filename);
    await fs.writeFile(file, pkg.bytes);
    return file;
  }

  async function extractInto(format: ArchiveFormat, file: string): Promise<{ error: unknown; root: string }> {
    const root = await fs.mkdtemp(path.join(tmp, 'stage-'));
    const staging = new Staging(path.join(root, 'prefix'));
    await fs.mkdir(staging.root);
    const error = await staging.extract(format, file, file, [{ from: 'lib/', to: 'lib/' }, { from: 'include/', to: 'include/' }]).then(() => undefined, (e: unknown) => e);
    return { error, root };
  }

  it.each([
    ['a parent-directory member', [{ path: 'lib/../../evil.so', type: 'file', data: Buffer.from('x') }], /parent directory reference/],
    ['an absolute member', [{ path: '/tmp/evil.so', type: 'file', data: Buffer.from('x') }], /absolute path/],
    ['a symlink out of the prefix', [{ path: 'lib/libze_loader.so', type: 'symlink', target: '../../../etc/passwd' }], /points outside the prefix/],
    ['an absolute symlink', [{ path: 'lib/libze_loader.so', type: 'symlink', target: '/etc/passwd' }], /absolute link target/],
  ] as [string, ArchiveEntry[], RegExp][])('refuses %s, naming the archive, and writes nothing outside', async (_what, payload, why) => {
    const file = await condaWith([{ path: 'include/ok.h', type: 'file', data: Buffer.from('ok') }, ...payload], `hostile-${Math.random().toString(36).slice(2, 8)}`);
    const { error, root } = await extractInto('tar.bz2', file);
    expect(error).toMatchObject({ code: 'UNSAFE_PATH' });
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toMatch(why);
    expect(await fs.readdir(root)).toEqual(['prefix']);
    await expect(fs.access(path.join(tmp, 'evil.so'))).rejects.toThrow();
  });

  it('refuses a zip whose member climbs out', async () => {
    const file = path.join(tmp, 'evil.zip');
    // Zip writers refuse such names, so write a same-length safe name and patch both copies of it (local + central).
    const safe = await zipBuffer([{ path: 'include/aa/aa/aa/evil.h', data: Buffer.from('x') }], true);
    const bytes = Buffer.from(safe.toString('latin1').split('include/aa/aa/aa/evil.h').join('include/../../../evil.h'), 'latin1');
    await fs.writeFile(file, bytes);
    const { error } = await extractInto('zip', file);
    expect(error).toMatchObject({ code: 'UNSAFE_PATH' });
  });

  it('reports a damaged archive as BAD_ARCHIVE with its path', async () => {
    const file = path.join(tmp, 'damaged.tar.bz2');
    const good = await bzip2Compress(tarBuffer([{ path: 'lib/a', type: 'file', data: Buffer.alloc(4096, 1) }]));
    await fs.writeFile(file, good.subarray(0, good.length >> 1));
    const err = await readAll('tar.bz2', file).then(() => undefined, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'BAD_ARCHIVE' });
    expect((err as Error).message).toContain(file);
  });
});
