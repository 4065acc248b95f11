// The ELF reader and the library-needs check, on libraries compiled here with real DT_NEEDED, sonames and symbol versions.
import { mkdtemp, mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readElfNeeds } from '../../src/formats/elf.js';
import { describeUnmet, unmetLibraryNeeds } from '../../src/machine/library-needs.js';
import { realDeps } from '../../src/cli/real-deps.js';
import { compileElf, realHwloc, umfElf } from '../support/packages.js';

let work: string;
let umf: Buffer;
let adapter: Buffer;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'xpu-elf-'));
  const build = join(work, 'build');
  await realHwloc(build);
  umf = await compileElf(umfElf('1.0.2'), build);
  adapter = await compileElf(
    { soname: 'libur_adapter_level_zero.so.0', source: 'extern int umfInit(void);\nint use(void) { return umfInit(); }\n', links: ['libumf.so.1'] },
    build,
  );
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

describe('readElfNeeds', () => {
  it('reads soname, DT_NEEDED, and the symbol versions a library needs and defines', () => {
    const a = readElfNeeds(adapter)!;
    expect(a.soname).toBe('libur_adapter_level_zero.so.0');
    expect(a.needed).toEqual(['libumf.so.1', 'libc.so.6']);
    expect(a.versionNeeds.find((v) => v.file === 'libumf.so.1')).toEqual({ file: 'libumf.so.1', versions: ['UMF_1.0'] });
    const u = readElfNeeds(umf)!;
    expect(u.needed).toContain('libhwloc.so.15');
    expect(u.versionDefs).toEqual(['UMF_1.0']);
  });

  it('says undefined for what is not a 64-bit ELF file', () => {
    expect(readElfNeeds(Buffer.from('xpu-setup test double: not a real umf.dll'))).toBeUndefined();
    expect(readElfNeeds(Buffer.alloc(0))).toBeUndefined();
  });
});

describe('unmetLibraryNeeds', () => {
  const tree = async (name: string, files: Record<string, Buffer>) => {
    const root = join(work, name);
    await mkdir(join(root, 'lib'), { recursive: true });
    for (const [f, b] of Object.entries(files)) await writeFile(join(root, 'lib', f), b);
    return root;
  };
  const deps = { ...realDeps(), env: { PATH: process.env.PATH } };

  it('names a DT_NEEDED found neither in the tree nor on this machine, with the package that brings it', async () => {
    const root = await tree('no-umf', { 'libur_adapter_level_zero.so.0': adapter });
    const unmet = await unmetLibraryNeeds(deps, root, ['lib'], []);
    expect(unmet.map(describeUnmet)).toEqual([
      'lib/libur_adapter_level_zero.so.0 needs libumf.so.1, which is neither in the new tree nor on this system (it comes with umf 1.x (PyPI umf, conda umf))',
    ]);
  });

  it('checks only the files named, when told: another library of the directory with unmet needs is not read', async () => {
    const root = await tree('only', { 'libur_adapter_level_zero.so.0': adapter, 'libur_adapter_level_zero_v2.so.0': adapter });
    expect((await unmetLibraryNeeds(deps, root, ['lib'], [])).map((u) => u.file)).toEqual(['lib/libur_adapter_level_zero.so.0', 'lib/libur_adapter_level_zero_v2.so.0']);
    expect((await unmetLibraryNeeds(deps, root, ['lib'], [], ['libur_adapter_level_zero_v2.so.0'])).map((u) => u.file)).toEqual(['lib/libur_adapter_level_zero_v2.so.0']);
  });

  it('is content when the tree brings the library (hwloc from this machine)', async () => {
    const root = await tree('with-umf', { 'libur_adapter_level_zero.so.0': adapter, 'libumf.so.1': umf });
    expect(await unmetLibraryNeeds(deps, root, ['lib'], [])).toEqual([]);
  });

  it('names a symbol version the copy found lacks, and the newest it has', async () => {
    const older = await compileElf({ ...umfElf('0.11.0'), soname: 'libumf.so.1' }, join(work, 'old-umf'));
    const root = await tree('old-umf-tree', { 'libur_adapter_level_zero.so.0': adapter, 'libumf.so.1': older });
    const unmet = await unmetLibraryNeeds(deps, root, ['lib'], []);
    expect(unmet).toMatchObject([{ file: 'lib/libur_adapter_level_zero.so.0', library: 'libumf.so.1', version: 'UMF_1.0', newest: 'UMF_0.11' }]);
  });

  it('follows symlinks and reads each real file once', async () => {
    const root = await tree('links', { 'libumf.so.1.0.2': umf });
    await symlink('libumf.so.1.0.2', join(root, 'lib', 'libumf.so.1'));
    await symlink('missing.so.1', join(root, 'lib', 'libdangling.so'));
    expect(await unmetLibraryNeeds(deps, root, ['lib'], [])).toEqual([]);
  });
});
