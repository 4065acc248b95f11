// The fixture index is a faithful conda channel, PyPI index and release host: checked with real clients (pip, tar, cc, pkg-config).
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { decompress as zstdDecompress } from 'fzstd';
import koffi from 'koffi';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureDebs } from '../support/debs.js';
import type { ServedPackage } from '../support/index-server.js';
import { withFixtureRun } from '../support/fixture-run.js';
import { UR_WINDOWS_DLLS } from '../support/packages.js';

const run = promisify(execFile);
const sha256 = (b: Uint8Array): string => createHash('sha256').update(b).digest('hex');

const fx = withFixtureRun('index-test');

afterEach(() => fx.index.clearFaults());

/** pip with no user or site configuration: only the index we name. */
function pip(args: string[]): Promise<{ stdout: string; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PIP_')));
  return run('python3', ['-m', 'pip', ...args], {
    env: { ...env, PIP_CONFIG_FILE: '/dev/null', PIP_DISABLE_PIP_VERSION_CHECK: '1', PIP_NO_CACHE_DIR: '1', PIP_NO_INPUT: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
}

async function get(url: string, init?: RequestInit): Promise<{ status: number; type: string; body: Buffer; res: Response }> {
  const res = await fetch(url, init);
  return { status: res.status, type: res.headers.get('content-type') ?? '', body: Buffer.from(await res.arrayBuffer()), res };
}

const served = (pred: (p: ServedPackage) => boolean): ServedPackage => {
  const found = fx.index.packages.filter(pred);
  expect(found).toHaveLength(1);
  return found[0]!;
};

async function newDir(name: string): Promise<string> {
  const dir = fx.at(name);
  await run('mkdir', ['-p', dir]);
  return dir;
}

describe('PyPI simple index, with pip as the client', () => {
  it('pip downloads the newest non-yanked manylinux wheel of intel-cmplr-lib-ur (PEP 691 JSON) and its hash matches', async () => {
    const dest = await newDir('pip-json');
    await pip(['download', '--no-deps', '--index-url', fx.index.simpleUrl, 'intel-cmplr-lib-ur', '-d', dest]);
    const newer = fx.index.fixtures.urVersions.newer;
    const wheel = served((p) => p.index === 'pypi' && p.version === newer && p.platform === 'linux-x64');
    expect(await readdir(dest)).toEqual([wheel.filename]);
    expect(wheel.filename).toBe(`intel_cmplr_lib_ur-${newer}-py2.py3-none-manylinux_2_28_x86_64.whl`);
    expect(sha256(await readFile(join(dest, wheel.filename)))).toBe(wheel.sha256);
    const page = fx.index.requests.find((r) => r.path === '/simple/intel-cmplr-lib-ur/');
    expect(String(page?.headers.accept)).toContain('application/vnd.pypi.simple.v1+json');
  });

  it('pip gets the same wheel from an HTML-only index with relative links', async () => {
    const dest = await newDir('pip-html');
    await pip(['download', '--no-deps', '--index-url', fx.index.htmlOnlySimpleUrl, 'intel-cmplr-lib-ur', '-d', dest]);
    expect(await readdir(dest)).toEqual([`intel_cmplr_lib_ur-${fx.index.fixtures.urVersions.newer}-py2.py3-none-manylinux_2_28_x86_64.whl`]);
  });

  it('pip resolves the win_amd64 wheel when asked for that platform', async () => {
    const dest = await newDir('pip-win');
    await pip(['download', '--no-deps', '--only-binary=:all:', '--platform', 'win_amd64', '--index-url', fx.index.simpleUrl, 'intel-cmplr-lib-ur', '-d', dest]);
    expect(await readdir(dest)).toEqual([`intel_cmplr_lib_ur-${fx.index.fixtures.urVersions.newer}-py2.py3-none-win_amd64.whl`]);
  });

  it('pip download level-zero gets the unrelated 0.1.0 project: the installer must never use that name', async () => {
    const dest = await newDir('pip-level-zero');
    await pip(['download', '--no-deps', '--index-url', fx.index.simpleUrl, 'level-zero', '-d', dest]);
    expect(await readdir(dest)).toEqual(['level_zero-0.1.0-py3-none-any.whl']);
    const { stdout } = await run('python3', ['-m', 'zipfile', '-l', join(dest, 'level_zero-0.1.0-py3-none-any.whl')]);
    expect(stdout).toContain('level_zero/__init__.py');
    expect(stdout).not.toContain('ze_api.h');
  });

  it('pip refuses a wheel whose bytes do not match the index hash', async () => {
    const dest = await newDir('pip-corrupt');
    fx.index.fault(/\/files\/intel-cmplr-lib-ur\/.*manylinux.*\.whl$/, 'corrupt');
    await expect(pip(['download', '--no-deps', '--index-url', fx.index.simpleUrl, 'intel-cmplr-lib-ur', '-d', dest])).rejects.toThrow(
      /DO NOT MATCH THE HASHES/,
    );
    expect(await readdir(dest)).toEqual([]);
  });

  it('negotiates PEP 691 JSON and PEP 503 HTML, redirects to the normalised name, answers 406 and 404', async () => {
    const json = await get(`${fx.index.simpleUrl}/intel-cmplr-lib-ur/`, { headers: { accept: 'application/vnd.pypi.simple.v1+json' } });
    expect(json.type).toBe('application/vnd.pypi.simple.v1+json');
    const doc = JSON.parse(json.body.toString()) as { meta: Record<string, string>; versions: string[]; files: Record<string, unknown>[] };
    expect(doc.meta['api-version']).toBe('1.1');
    expect(doc.versions).toEqual(Object.keys(fx.index.fixtures.urClosure));
    expect(doc.versions.at(-1)).toBe(fx.index.fixtures.urVersions.yanked);
    const yankedFiles = doc.files.filter((f) => f.yanked);
    expect(yankedFiles.map((f) => f.filename)).toHaveLength(2);
    expect(yankedFiles.every((f) => String(f.filename).includes(fx.index.fixtures.urVersions.yanked))).toBe(true);

    const html = await get(`${fx.index.simpleUrl}/level-zero/`);
    expect(html.type).toMatch(/^text\/html/);
    expect(html.body.toString()).toMatch(/href="[^"]+level_zero-0\.1\.0-py3-none-any\.whl#sha256=[0-9a-f]{64}"/);
    expect(html.body.toString()).toContain('data-requires-python="&gt;=3.6"');
    const urHtml = (await get(`${fx.index.htmlOnlySimpleUrl}/intel-cmplr-lib-ur/`, { headers: { accept: 'application/vnd.pypi.simple.v1+json' } })).body.toString();
    expect(urHtml).toContain('data-yanked="xpu-setup fixture: yanked release"');
    expect(urHtml).toContain('href="../../../files/intel-cmplr-lib-ur/');

    const redirect = await fetch(`${fx.index.simpleUrl}/Intel_Cmplr.Lib-UR`, { redirect: 'manual' });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get('location')).toBe(`${fx.index.simpleUrl}/intel-cmplr-lib-ur/`);
    expect((await get(`${fx.index.simpleUrl}/intel-cmplr-lib-ur/`, { headers: { accept: 'application/xml' } })).status).toBe(406);
    expect((await get(`${fx.index.simpleUrl}/no-such-project/`)).status).toBe(404);

    const metadataUrl = `${String(doc.files[0]!.url)}.metadata`;
    const metadata = await get(metadataUrl);
    expect(sha256(metadata.body)).toBe((doc.files[0]!['core-metadata'] as { sha256: string }).sha256);
  });

  it('serves the JSON API with the newest non-yanked version as latest', async () => {
    const { body } = await get(`${fx.index.jsonApiUrl}/intel-cmplr-lib-ur/json`);
    const doc = JSON.parse(body.toString()) as {
      info: { version: string };
      releases: Record<string, { filename: string; digests: { sha256: string }; yanked: boolean; size: number }[]>;
      urls: { filename: string }[];
    };
    const { older, newer, yanked } = fx.index.fixtures.urVersions;
    expect(doc.info.version).toBe(newer);
    expect(Object.keys(doc.releases)).toEqual(Object.keys(fx.index.fixtures.urClosure));
    expect(Object.keys(doc.releases)).toEqual(expect.arrayContaining([older, newer, yanked]));
    expect(doc.releases[yanked]!.every((f) => f.yanked)).toBe(true);
    expect(doc.urls.map((u) => u.filename).sort()).toEqual(
      [`intel_cmplr_lib_ur-${newer}-py2.py3-none-manylinux_2_28_x86_64.whl`, `intel_cmplr_lib_ur-${newer}-py2.py3-none-win_amd64.whl`].sort(),
    );
    for (const f of Object.values(doc.releases).flat()) {
      expect(served((p) => p.index === 'pypi' && p.filename === f.filename).sha256).toBe(f.digests.sha256);
    }
  });
});

describe('wheel contents', () => {
  it('has a RECORD that Python accepts and a real UR test double shared library', async () => {
    const wheel = served((p) => p.index === 'pypi' && p.version === fx.index.fixtures.urVersions.newer && p.platform === 'linux-x64');
    const file = fx.at(wheel.filename);
    await writeFile(file, (await get(wheel.url)).body);
    const check = `
import base64, csv, hashlib, io, sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
rec = [n for n in z.namelist() if n.endswith('.dist-info/RECORD')][0]
for row in csv.reader(io.StringIO(z.read(rec).decode())):
    if row[0] == rec: continue
    data = z.read(row[0])
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()
    assert row[1] == 'sha256=' + digest and int(row[2]) == len(data), row
print(len(z.namelist()))
`;
    const { stdout } = await run('python3', ['-c', check, file]);
    expect(Number(stdout.trim())).toBe(wheel.members.length);
    const dist = `intel_cmplr_lib_ur-${wheel.version}`;
    expect(wheel.members.map((m) => m.path)).toEqual([
      `${dist}.data/data/lib/libur_loader.so.0`,
      `${dist}.data/data/lib/libur_adapter_level_zero.so.0`,
      `${dist}.data/data/lib/libur_adapter_level_zero_v2.so.0`,
      `${dist}.data/data/lib/libur_adapter_opencl.so.0`,
      `${dist}.dist-info/METADATA`,
      `${dist}.dist-info/WHEEL`,
      `${dist}.dist-info/RECORD`,
    ]);

    const out = await newDir('wheel-unzipped');
    await run('python3', ['-m', 'zipfile', '-e', file, out]);
    const loaderPath = join(out, `${dist}.data/data/lib/libur_loader.so.0`);
    const { stdout: dyn } = await run('readelf', ['-d', loaderPath]);
    expect(dyn).toContain('Library soname: [libur_loader.so.0]');

    // As the real loader, the double finds its adapters on the library path only (they carry no RUNPATH and this
    // process's LD_LIBRARY_PATH does not name the unzipped wheel): it starts, and answers no adapter.
    const lib = koffi.load(loaderPath);
    const urLoaderInit = lib.func('int32_t urLoaderInit(uint32_t, void *)');
    const urAdapterGet = lib.func('int32_t urAdapterGet(uint32_t, _Out_ void **, _Out_ uint32_t *)');
    const urLoaderTearDown = lib.func('int32_t urLoaderTearDown(void)');
    expect(urLoaderInit(0, null)).toBe(0);
    const n: number[] = [7];
    expect(urAdapterGet(0, null, n)).toBe(0);
    expect(n[0]).toBe(0);
    expect(urLoaderTearDown()).toBe(0);
  });
});

describe('conda channels', () => {
  const channels = ['bookworm', 'trixie', 'all', 'newer', 'tarbz2', 'v2', 'gcc14', 'gpu-driver', 'gpu-driver-short', 'gpu-driver-cf', 'gpu-driver-cf-igc', 'level-zero-baked'] as const;

  it('every repodata record matches the bytes served at its URL (sha256, md5, size), base_url included', async () => {
    let records = 0;
    for (const channel of channels) {
      for (const subdir of ['linux-64', 'win-64', 'noarch']) {
        const repodataUrl = `${fx.index.condaChannelUrl(channel)}/${subdir}/repodata.json`;
        const { status, body } = await get(repodataUrl);
        expect(status, repodataUrl).toBe(200);
        const doc = JSON.parse(body.toString()) as {
          info: { subdir: string; base_url?: string };
          packages: Record<string, { sha256: string; md5: string; size: number; subdir: string }>;
          'packages.conda'?: Record<string, { sha256: string; md5: string; size: number; subdir: string }>;
          repodata_version: number;
        };
        expect(doc.info.subdir).toBe(subdir);
        expect(doc.repodata_version).toBe(channel === 'v2' ? 2 : 1);
        expect('packages.conda' in doc).toBe(channel !== 'tarbz2');
        const base = doc.info.base_url ? new URL(doc.info.base_url, repodataUrl).href : new URL('./', repodataUrl).href;
        for (const [fn, rec] of Object.entries({ ...doc.packages, ...doc['packages.conda'] })) {
          const file = await get(base + fn);
          expect(file.status, base + fn).toBe(200);
          expect(sha256(file.body)).toBe(rec.sha256);
          expect(createHash('md5').update(file.body).digest('hex')).toBe(rec.md5);
          expect(file.body.length).toBe(rec.size);
          expect(rec.subdir).toBe(subdir);
          records++;
        }
        if (channel === 'v2' && subdir !== 'noarch') {
          const first = Object.keys(doc['packages.conda']!)[0]!;
          expect((await get(new URL(first, repodataUrl).href)).status).toBe(404);
        }
        const zst = await get(`${repodataUrl}.zst`);
        if (channel === 'tarbz2') expect(zst.status).toBe(404);
        else expect(Buffer.from(zstdDecompress(zst.body)).equals(body)).toBe(true);
      }
    }
    expect(records).toBe(fx.index.packages.filter((p) => p.index === 'conda').length);
  });

  it('bookworm lists each build both as .conda and .tar.bz2; all has several build numbers; devel pins its level-zero exactly', async () => {
    const linux = JSON.parse((await get(`${fx.index.condaChannelUrl('bookworm')}/linux-64/repodata.json`)).body.toString()) as {
      packages: Record<string, { name: string; build: string; depends: string[] }>;
      'packages.conda': Record<string, { name: string; build: string; depends: string[] }>;
    };
    const stems = (o: object): string[] => Object.keys(o).map((k) => k.replace(/\.(conda|tar\.bz2)$/, '')).sort();
    const l0 = (o: Record<string, { name: string }>): Record<string, { name: string }> =>
      Object.fromEntries(Object.entries(o).filter(([, r]) => r.name.startsWith('level-zero')));
    expect(stems(l0(linux.packages))).toEqual(stems(l0(linux['packages.conda'])));
    const runtime = Object.values(linux['packages.conda']).find((r) => r.name === 'level-zero')!;
    const devel = Object.values(linux['packages.conda']).find((r) => r.name === 'level-zero-devel')!;
    expect(devel.depends).toEqual([`level-zero ${fx.index.fixtures.l0Versions.bookworm} ${runtime.build}`]);
    expect(Object.values(linux['packages.conda']).some((r) => r.name === 'intel-cmplr-lib-ur')).toBe(true);

    const all = JSON.parse((await get(`${fx.index.condaChannelUrl('all')}/linux-64/repodata.json`)).body.toString()) as {
      'packages.conda': Record<string, { name: string; version: string; build_number: number; build: string; depends: string[] }>;
    };
    const trixie = fx.index.fixtures.l0Versions.trixie;
    const builds = Object.values(all['packages.conda']).filter((r) => r.name === 'level-zero' && r.version === trixie);
    expect(builds.map((r) => r.build_number).sort()).toEqual([0, 1, 2]);
    for (const d of Object.values(all['packages.conda']).filter((r) => r.name === 'level-zero-devel' && r.version === trixie)) {
      const pinned = builds.find((b) => b.build_number === d.build_number)!;
      expect(d.depends).toEqual([`level-zero ==${trixie} ${pinned.build}`]);
    }
  });

  it('a .conda is a stored zip of metadata.json, pkg and info tar.zst; its payload is the real Debian loader and headers', async () => {
    const { trixie } = await ensureDebs();
    const pkg = (name: string): ServedPackage =>
      served((p) => p.channel === 'trixie' && p.name === name && p.subdir === 'linux-64');
    for (const p of [pkg('level-zero'), pkg('level-zero-devel')]) {
      const file = fx.at(p.filename);
      await writeFile(file, (await get(p.url)).body);
      const listing = 'import sys, zipfile\nfor i in zipfile.ZipFile(sys.argv[1]).infolist(): print(i.filename, i.compress_type)';
      const { stdout } = await run('python3', ['-c', listing, file]);
      const stem = p.filename.replace(/\.conda$/, '');
      // Stored, not deflated (compress_type 0), in the order conda writes them.
      expect(stdout.trim().split('\n')).toEqual(['metadata.json 0', `pkg-${stem}.tar.zst 0`, `info-${stem}.tar.zst 0`]);
      const out = await newDir(`conda-${stem}`);
      await run('python3', ['-m', 'zipfile', '-e', file, out]);
      expect(JSON.parse(await readFile(join(out, 'metadata.json'), 'utf8'))).toEqual({ conda_pkg_format_version: 2 });
      await run('tar', ['-I', 'zstd', '-xf', join(out, `pkg-${stem}.tar.zst`), '-C', out]);
      await run('tar', ['-I', 'zstd', '-xf', join(out, `info-${stem}.tar.zst`), '-C', out]);
      const index = JSON.parse(await readFile(join(out, 'info/index.json'), 'utf8')) as Record<string, unknown>;
      expect(index).toMatchObject({ name: p.name, version: trixie.version, subdir: 'linux-64', build_number: 0 });
    }
    const rt = fx.at(`conda-${pkg('level-zero').filename.replace(/\.conda$/, '')}`);
    expect(readlinkSync(join(rt, 'lib/libze_loader.so.1'))).toBe(`libze_loader.so.${trixie.version}`);
    const same = async (a: string, b: string): Promise<boolean> => (await readFile(a)).equals(await readFile(b));
    expect(await same(join(rt, `lib/libze_loader.so.${trixie.version}`), join(trixie.libDir, `libze_loader.so.${trixie.version}`))).toBe(true);
    const dev = fx.at(`conda-${pkg('level-zero-devel').filename.replace(/\.conda$/, '')}`);
    expect(lstatSync(join(dev, 'lib/libze_loader.so')).isSymbolicLink()).toBe(true);
    expect(await same(join(dev, 'include/level_zero/ze_api.h'), join(trixie.includeDir, 'level_zero/ze_api.h'))).toBe(true);
    expect(await readFile(join(dev, 'include/level_zero/ze_api.h'), 'utf8')).toContain('ZE_STRUCTURE_TYPE_DEVICE_IP_VERSION_EXT');
    expect(await readFile(join(dev, 'lib/pkgconfig/level-zero.pc'), 'utf8')).toMatch(/^prefix=\$\{pcfiledir\}\/\.\.\/\.\.\/$/m);
    const members = pkg('level-zero-devel').members.map((m) => m.path);
    expect(members).toContain('info/paths.json');
    expect(members).toContain('include/level_zero/loader/ze_loader.h');
    expect(members.filter((m) => !m.startsWith('info/')).every((m) => existsSync(join(dev, m)) || lstatSync(join(dev, m)))).toBe(true);
  });

  it('the bookworm .tar.bz2 packages make a prefix where a zeInit program compiles with pkg-config and gets 0x78000001', async () => {
    const prefix = await newDir('bookworm-prefix');
    for (const name of ['level-zero', 'level-zero-devel']) {
      const p = served((x) => x.channel === 'bookworm' && x.name === name && x.subdir === 'linux-64' && x.format === 'tar.bz2');
      const file = fx.at(p.filename);
      await writeFile(file, (await get(p.url)).body);
      await run('tar', ['-xjf', file, '-C', prefix, '--exclude=info']);
    }
    // The 1.8.12 .pc files carry the build-tree prefix, as conda-forge's did; point pkg-config at ours.
    const env = { ...process.env, PKG_CONFIG_PATH: join(prefix, 'lib/pkgconfig') };
    const { stdout: flags } = await run(
      'pkg-config',
      ['--define-variable=prefix=' + prefix, '--cflags', '--libs', 'level-zero'],
      { env },
    );
    expect(flags).toContain(`-I${prefix}/include`);
    const src = fx.at('zeinit.c');
    await writeFile(
      src,
      '#include <level_zero/ze_api.h>\n#include <stdio.h>\nint main(void){ printf("0x%08x\\n", (unsigned)zeInit(0)); return 0; }\n',
    );
    const exe = fx.at('zeinit');
    await run('cc', [src, '-o', exe, ...flags.trim().split(/\s+/)]);
    const { stdout } = await run(exe, [], { env: { ...process.env, LD_LIBRARY_PATH: join(prefix, 'lib') } });
    expect(stdout.trim()).toBe('0x78000001');
  });

  it('win-64 packages use the Library/ layout with real headers and cross-built DLLs', async () => {
    const rt = served((p) => p.channel === 'trixie' && p.name === 'level-zero' && p.subdir === 'win-64');
    const dev = served((p) => p.channel === 'trixie' && p.name === 'level-zero-devel' && p.subdir === 'win-64');
    expect(rt.members.filter((m) => !m.path.startsWith('info/')).map((m) => m.path)).toEqual([
      'Library/bin/ze_loader.dll',
      'Library/bin/ze_tracing_layer.dll',
      'Library/bin/ze_validation_layer.dll',
    ]);
    const devPaths = dev.members.map((m) => m.path);
    expect(devPaths).toContain('Library/include/level_zero/ze_api.h');
    expect(devPaths).toContain('Library/lib/ze_loader.lib');
    expect(devPaths.some((p) => p.includes('pkgconfig'))).toBe(false);
  });
});

describe('win_amd64 wheels: DLLs cross-built with mingw-w64, importing each other as the real ones do', () => {
  /** What mingw-w64's objdump lists in each DLL's import table, by DLL file name, for every DLL of a served wheel. */
  async function importsOf(wheel: ServedPackage): Promise<Record<string, string[]>> {
    const out = await newDir(`pe-${wheel.filename}`);
    await writeFile(join(out, wheel.filename), (await get(wheel.url)).body);
    await run('python3', ['-m', 'zipfile', '-e', join(out, wheel.filename), out]);
    const result: Record<string, string[]> = {};
    for (const m of wheel.members.filter((x) => x.path.endsWith('.dll'))) {
      const { stdout } = await run('x86_64-w64-mingw32-objdump', ['-p', join(out, m.path)]);
      expect(stdout, m.path).toContain('file format pei-x86-64');
      result[m.path.split('/').pop()!] = [...stdout.matchAll(/DLL Name: (\S+)/g)].map((x) => x[1]!);
    }
    return result;
  }
  const win = (name: string, version: string) => served((p) => p.index === 'pypi' && p.name === name && p.version === version && p.platform === 'win-x64');

  it("UR's Library/bin has the loader, three adapters and the proxy loader; the Level Zero adapters import umf.dll and ze_loader.dll", async () => {
    const newer = fx.index.fixtures.urVersions.newer;
    const imports = await importsOf(win('intel-cmplr-lib-ur', newer));
    expect(Object.keys(imports).sort()).toEqual([...UR_WINDOWS_DLLS].sort());
    expect(imports['ur_adapter_level_zero.dll']).toEqual(['KERNEL32.dll', 'msvcrt.dll', 'umf.dll', 'ze_loader.dll']);
    expect(imports['ur_adapter_level_zero_v2.dll']).toEqual(['KERNEL32.dll', 'msvcrt.dll', 'umf.dll', 'ze_loader.dll']);
    expect(imports['ur_adapter_opencl.dll']).toEqual(['KERNEL32.dll', 'msvcrt.dll', 'OpenCL.dll']);
    expect(imports['ur_loader.dll']).toEqual(['KERNEL32.dll', 'msvcrt.dll']);
  });

  it('umf.dll imports libhwloc-15.dll, which the tcmlib wheel ships beside tcm.dll', async () => {
    const { umf, tcmlib } = fx.index.fixtures.urClosure[fx.index.fixtures.urVersions.newer]!;
    expect(await importsOf(win('umf', umf))).toEqual({ 'umf.dll': ['KERNEL32.dll', 'msvcrt.dll', 'libhwloc-15.dll'] });
    expect(await importsOf(win('tcmlib', tcmlib))).toEqual({ 'tcm.dll': ['KERNEL32.dll', 'msvcrt.dll', 'libhwloc-15.dll'], 'libhwloc-15.dll': ['KERNEL32.dll', 'msvcrt.dll'] });
  });
});

describe('GitHub release asset', () => {
  it('redirects to the Windows SDK zip: include/ and lib/ze_loader.lib (a marked test double)', async () => {
    const first = await fetch(fx.index.sdkUrl, { redirect: 'manual' });
    expect(first.status).toBe(302);
    const zip = await get(fx.index.sdkUrl);
    const sdk = served((p) => p.index === 'github');
    expect(sha256(zip.body)).toBe(sdk.sha256);
    expect(fx.index.sdkUrl).toBe(`${fx.index.url}/github/oneapi-src/level-zero/releases/download/v1.20.6/level-zero-win-sdk-1.20.6.zip`);
    const file = fx.at(sdk.filename);
    await writeFile(file, zip.body);
    const { stdout } = await run('python3', ['-c', 'import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read("lib/ze_loader.lib").decode())', file]);
    expect(stdout).toContain('xpu-setup test double: not a real ze_loader.lib');
    expect(sdk.members.map((m) => m.path)).toContain('include/level_zero/ze_api.h');
  });
});

describe('every served package', () => {
  it('is served with the sha256 and size the metadata lists', async () => {
    for (const p of fx.index.packages) {
      const { status, body } = await get(p.url);
      expect(status, p.url).toBe(200);
      expect(body.length, p.url).toBe(p.size);
      expect(sha256(body), p.url).toBe(p.sha256);
    }
  });
});

describe('faults', () => {
  const target = (): ServedPackage => served((p) => p.channel === 'trixie' && p.name === 'level-zero' && p.subdir === 'linux-64');

  it('truncate announces the full length and drops the connection half way', async () => {
    fx.index.fault(new URL(target().url).pathname, 'truncate');
    await expect(get(target().url)).rejects.toThrow();
  });

  it('corrupt keeps the length and changes the bytes', async () => {
    fx.index.fault(/\/trixie\/linux-64\/level-zero-1/, 'corrupt');
    const { status, body } = await get(target().url);
    expect(status).toBe(200);
    expect(body.length).toBe(target().size);
    expect(sha256(body)).not.toBe(target().sha256);
  });

  it('status faults, reset, and `times` limiting a fault to the first requests', async () => {
    fx.index.fault(/repodata\.json$/, 'status-404', { times: 1 });
    const repodata = `${fx.index.condaChannelUrl('trixie')}/linux-64/repodata.json`;
    expect((await get(repodata)).status).toBe(404);
    expect((await get(repodata)).status).toBe(200);
    fx.index.fault(/\/simple\//, 'status-500');
    expect((await get(`${fx.index.simpleUrl}/level-zero/`)).status).toBe(500);
    fx.index.clearFaults();
    fx.index.fault(/\/pypi\//, 'reset');
    await expect(get(`${fx.index.jsonApiUrl}/level-zero/json`)).rejects.toThrow();
  });

  it('slow holds the body back (a short client timeout fails) and then delivers it intact', async () => {
    fx.index.fault(/level-zero-devel-1.*\.conda$/, 'slow', { delayMs: 2000, times: 1 });
    const dev = served((p) => p.channel === 'trixie' && p.name === 'level-zero-devel' && p.subdir === 'linux-64');
    await expect(get(dev.url, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    fx.index.fault(/level-zero-devel-1.*\.conda$/, 'slow', { delayMs: 50, times: 1 });
    const { body } = await get(dev.url);
    expect(sha256(body)).toBe(dev.sha256);
  });

  it('logs requests and supports Range for resumed downloads', async () => {
    const p = target();
    const part = await get(p.url, { headers: { range: 'bytes=100-' } });
    expect(part.status).toBe(206);
    expect(part.body.length).toBe(p.size - 100);
    expect(fx.index.requests.at(-1)).toMatchObject({ method: 'GET', path: new URL(p.url).pathname });
  });
});
