// Libraries: ldconfig and package-manager parsing, the linker's search order (shadowing), real load tests, headers.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realDeps } from '../../src/cli/real-deps.js';
import { checkSdkPath, findZeHeaders, headerSearchDirs, parseZeApiHeader } from '../../src/machine/headers.js';
import { parseLdconfig } from '../../src/machine/ldconfig.js';
import { diagnoseLoadError, parseLinkBatch, parseLinkerTrace, parseLoadAnswer, parseLoadAnswers, tryLoad, tryLoadAll, tryLoadEach, tryLoadInNode } from '../../src/machine/load-check.js';
import { layoutFor } from '../../src/platform/index.js';
import { resolveLibrary, versionFromFileName } from '../../src/machine/loaders.js';
import { parseDpkgQuery, parseDpkgSearch, parseRpmQuery } from '../../src/machine/packages.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { ensureDebs } from '../support/debs.js';

const fx = (p: string): string => readFileSync(path.join(__dirname, '../fixtures/detect', p), 'utf8');
const tmp = mkdtempSync(path.join(tmpdir(), 'xpu-libs-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('ldconfig -p', () => {
  it('parses Debian 12 output: the Debian loader, 32-bit rows marked', () => {
    const entries = parseLdconfig(fx('linux/ldconfig-p-debian12.txt'));
    expect(entries.find((e) => e.name === 'libze_loader.so.1')).toEqual({ name: 'libze_loader.so.1', flags: 'libc6,x86-64', x64: true, path: '/lib/x86_64-linux-gnu/libze_loader.so.1' });
    expect(entries.filter((e) => e.name === 'libstdc++.so.6').map((e) => e.x64)).toEqual([true, false]);
    expect(entries.some((e) => e.name === 'libze_intel_gpu.so.1')).toBe(false);
  });

  it('finds the GPU driver and UR loader when the cache has them', () => {
    const entries = parseLdconfig(fx('linux/ldconfig-p-with-gpu-driver.txt'));
    expect(entries.find((e) => e.name === 'libze_intel_gpu.so.1')?.path).toBe('/usr/lib/x86_64-linux-gnu/libze_intel_gpu.so.1');
    expect(entries.find((e) => e.name === 'libur_loader.so.0')?.path).toBe('/usr/lib/x86_64-linux-gnu/libur_loader.so.0');
    // Two cache rows for the same name: the first one wins.
    expect(entries.filter((e) => e.name === 'libze_loader.so.1').map((e) => e.path)).toEqual([
      '/usr/lib/x86_64-linux-gnu/libze_loader.so.1',
      '/lib/x86_64-linux-gnu/libze_loader.so.1',
    ]);
    expect(entries.find((e) => e.name === 'ld-linux.so.2')?.x64).toBe(false);
  });
});

describe('package managers', () => {
  it('reads dpkg-query -W output (only installed packages)', () => {
    expect(parseDpkgQuery(fx('linux/dpkg-query-debian12.txt'))).toEqual([
      { name: 'libze-dev', version: '1.8.12-1', manager: 'dpkg' },
      { name: 'libze1', version: '1.8.12-1', manager: 'dpkg' },
      { name: 'pocl-opencl-icd', version: '3.1-3+deb12u1', manager: 'dpkg' },
    ]);
    expect(parseDpkgQuery('libze1\t1.8.12-1\trc \n')).toEqual([]);
  });

  it('reads dpkg-query -S output', () => {
    expect(parseDpkgSearch(fx('linux/dpkg-query-S-loader.txt'))).toBe('libze1');
  });

  it('reads rpm -q output and skips packages that are not installed', () => {
    const text = 'intel-level-zero\t24.35.30872.24-1.fc42\npackage intel-level-zero-gpu is not installed\nlevel-zero\t1.17.44-1.fc42\n';
    expect(parseRpmQuery(text)).toEqual([
      { name: 'intel-level-zero', version: '24.35.30872.24-1.fc42', manager: 'rpm' },
      { name: 'level-zero', version: '1.17.44-1.fc42', manager: 'rpm' },
    ]);
  });
});

describe('search order and shadowing', () => {
  const cache = parseLdconfig(fx('linux/ldconfig-p-debian12.txt'));

  it('puts LD_LIBRARY_PATH before ld.so.cache before the default dirs', () => {
    const order = layoutFor('linux-x64').librarySearch('libze_loader.so.1', { LD_LIBRARY_PATH: '/opt/a/lib::/opt/b/lib' }, cache);
    expect(order.slice(0, 3)).toEqual([
      { path: '/opt/a/lib/libze_loader.so.1', via: 'LD_LIBRARY_PATH' },
      { path: '/opt/b/lib/libze_loader.so.1', via: 'LD_LIBRARY_PATH' },
      { path: '/lib/x86_64-linux-gnu/libze_loader.so.1', via: 'ld.so.cache' },
    ]);
    expect(order.at(-1)?.via).toBe('default dirs');
  });

  it('on Windows puts System32 (where the driver puts ze_loader.dll) before PATH', () => {
    const order = layoutFor('win-x64').librarySearch('ze_loader.dll', { SystemRoot: 'C:\\Windows', PATH: 'C:\\xpu\\bin;C:\\tools' });
    expect(order.map((o) => o.path)).toEqual(['C:\\Windows\\System32\\ze_loader.dll', 'C:\\Windows\\ze_loader.dll', 'C:\\xpu\\bin\\ze_loader.dll', 'C:\\tools\\ze_loader.dll']);
  });

  it('a copy on LD_LIBRARY_PATH shadows the distro loader (real files, real symlinks)', async () => {
    const lib = path.join(tmp, 'prefix/lib');
    mkdirSync(lib, { recursive: true });
    writeFileSync(path.join(lib, 'libze_loader.so.1.28.2'), '');
    symlinkSync('libze_loader.so.1.28.2', path.join(lib, 'libze_loader.so.1'));
    const deps = fakeDeps({ env: { LD_LIBRARY_PATH: lib } });
    const res = await resolveLibrary(deps, 'libze_loader.so.1', { ldcache: cache });
    expect(res.chosen).toMatchObject({ path: path.join(lib, 'libze_loader.so.1'), via: 'LD_LIBRARY_PATH', realPath: path.join(lib, 'libze_loader.so.1.28.2') });
    expect(res.shadowed).toEqual([expect.objectContaining({ via: 'ld.so.cache', realPath: '/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0' })]);
    expect(versionFromFileName(res.chosen!.realPath!)).toBe('1.28.2');
  });

  it('lists what it tried when the library is nowhere', async () => {
    const res = await resolveLibrary(fakeDeps({ env: {} }), 'libze_intel_gpu.so.1', { ldcache: cache });
    expect(res.chosen).toBeUndefined();
    expect(res.tried.at(-1)).toBe('libze_intel_gpu.so.1: not on the library search path');
  });
});

describe('loadability', () => {
  it('explains the GLIBCXX error of a loader built for a newer distro (captured from trixie 1.20.6 on Debian 12)', () => {
    const d = diagnoseLoadError(fx('linux/dlopen-glibcxx.txt'), '/tmp/x/libze_loader.so.1');
    expect(d.kind).toBe('glibcxx');
    expect(d.summary).toBe("needs GLIBCXX_3.4.32, which this system's libstdc++ does not provide: a loader built for a newer distro");
  });

  it('tells a missing dependency from a missing file', () => {
    expect(diagnoseLoadError('libigc.so.1: cannot open shared object file: No such file or directory', '/usr/lib/libze_intel_gpu.so.1')).toMatchObject({ kind: 'missing-dependency', summary: 'it needs libigc.so.1, which is not on the library path' });
    expect(diagnoseLoadError('/x/libze_loader.so.1: cannot open shared object file: No such file or directory', '/x/libze_loader.so.1').kind).toBe('not-found');
    expect(diagnoseLoadError("version `GLIBC_2.38' not found (required by /x/a.so)", '/x/a.so').kind).toBe('glibc');
    expect(diagnoseLoadError('/x/a.so: wrong ELF class: ELFCLASS32', '/x/a.so').kind).toBe('wrong-arch');
    expect(diagnoseLoadError('/x/a.so: undefined symbol: zelLoaderGetVersions', '/x/a.so').kind).toBe('undefined-symbol');
  });

  it('reads the child answer and copes with garbage', () => {
    expect(parseLoadAnswer('{"ok":true}\n', '/x')).toEqual({ ok: true });
    expect(parseLoadAnswer('', '/x')).toMatchObject({ ok: false, error: expect.stringMatching(/no answer/) });
  });

  it('loads the real Debian loader in a child process', async () => {
    expect(await tryLoad(realDeps(), '/usr/lib/x86_64-linux-gnu/libze_loader.so.1')).toEqual({ ok: true });
  });

  it('reports a file that does not exist', async () => {
    const r = await tryLoad(realDeps(), path.join(tmp, 'nope/libze_loader.so.1'));
    expect(r.ok).toBe(false);
    expect(r.diagnosis?.kind).toBe('not-found');
  });

  it('reads one answer per file and stops at the first line that is not one', () => {
    expect(parseLoadAnswers('{"ok":true}\n{"ok":false,"message":"/b: invalid ELF header"}\n', ['/a', '/b'])).toEqual([
      { ok: true },
      { ok: false, error: '/b: invalid ELF header', diagnosis: { kind: 'other', summary: '/b: invalid ELF header' } },
    ]);
    expect(parseLoadAnswers('{"ok":true}\nSegmentation fault\n{"ok":true}\n', ['/a', '/b', '/c'])).toEqual([{ ok: true }]);
    expect(parseLoadAnswers('{"ok":true}\n{"ok":true}\n', ['/a'])).toEqual([{ ok: true }]);
  });

  /** A library whose constructor aborts, and one that needs libdep.so.1 (its data symbol too), built with cc. */
  const built = (): { crash: string; user: string; depDir: string; noDataDir: string } => {
    const dir = path.join(tmp, 'built');
    if (!existsSync(dir)) {
      mkdirSync(path.join(dir, 'nodata'), { recursive: true });
      const cc = (out: string, src: string, ...extra: string[]) => {
        writeFileSync(`${out}.c`, src);
        execFileSync('cc', ['-shared', '-fPIC', '-o', out, `${out}.c`, ...extra]);
      };
      cc(path.join(dir, 'libcrash.so'), '#include <stdlib.h>\n__attribute__((constructor)) static void boom(void) { abort(); }\n');
      cc(path.join(dir, 'libdep.so.1'), 'int dep_fn(void) { return 1; }\nint dep_data = 3;\n', '-Wl,-soname,libdep.so.1');
      cc(path.join(dir, 'nodata/libdep.so.1'), 'int dep_fn(void) { return 1; }\n', '-Wl,-soname,libdep.so.1');
      cc(path.join(dir, 'libuser.so'), 'extern int dep_fn(void); extern int dep_data;\nint use(void) { return dep_fn() + dep_data; }\n', path.join(dir, 'libdep.so.1'));
    }
    return { crash: path.join(dir, 'libcrash.so'), user: path.join(dir, 'libuser.so'), depDir: dir, noDataDir: path.join(dir, 'nodata') };
  };

  it('in node: several files in one child; one whose constructor aborts is charged with the crash and the rest still answer', async () => {
    const { crash } = built();
    const calls: string[] = [];
    const deps = realDeps();
    const counting = { ...deps, exec: (f: string, a: string[], o?: Parameters<typeof deps.exec>[2]) => (calls.push(f), deps.exec(f, a, o)) };
    const r = await tryLoadInNode(counting, ['/usr/lib/x86_64-linux-gnu/libze_loader.so.1', crash, path.join(tmp, 'nope.so')]);
    expect(r[0]).toEqual({ ok: true });
    expect(r[1]).toEqual({ ok: false, error: 'the load test process died (killed by SIGABRT) while loading it' });
    expect(r[2]).toMatchObject({ ok: false, diagnosis: { kind: 'not-found' } });
    // One child for the first two files, a fresh one for the file after the crash.
    expect(calls).toEqual([process.execPath, process.execPath]);
  });

  it('on Linux the dynamic linker answers as dlopen in node does, for every kind of failure, without starting node', async () => {
    const { user, depDir, noDataDir } = built();
    const cases: [Record<string, string>, string][] = [
      [{}, '/usr/lib/x86_64-linux-gnu/libze_loader.so.1'],
      [{}, path.join(tmp, 'nope.so')],
      [{}, '/etc/hostname'],
      [{}, user],
      [{ LD_LIBRARY_PATH: depDir }, user],
      [{ LD_LIBRARY_PATH: noDataDir }, user],
      [{}, path.join((await ensureDebs()).trixie.libDir, 'libze_loader.so.1')],
    ];
    const deps = realDeps();
    const calls: string[] = [];
    const counting = { ...deps, exec: (f: string, a: string[], o?: Parameters<typeof deps.exec>[2]) => (calls.push(f), deps.exec(f, a, o)) };
    for (const [env, file] of cases) {
      const linked = await tryLoadAll(counting, [file], env);
      expect(linked).toEqual(await tryLoadInNode(deps, [file], env));
    }
    expect(new Set(calls)).toEqual(new Set(['/lib64/ld-linux-x86-64.so.2']));
    const kinds = await Promise.all(cases.map(async ([env, file]) => (await tryLoadAll(deps, [file], env))[0]!.diagnosis?.kind ?? 'ok'));
    expect(kinds).toEqual(['ok', 'not-found', 'other', 'missing-dependency', 'ok', 'undefined-symbol', 'glibcxx']);
  });

  it('several files go through one shell that runs the linker once per file, with the answers of one run each', async () => {
    const { user, crash } = built();
    const files = ['/usr/lib/x86_64-linux-gnu/libze_loader.so.1', path.join(tmp, 'nope.so'), user, crash, '/etc/hostname'];
    const deps = realDeps();
    const calls: string[] = [];
    const counting = { ...deps, exec: (f: string, a: string[], o?: Parameters<typeof deps.exec>[2]) => (calls.push(f), deps.exec(f, a, o)) };
    const batch = await tryLoadAll(counting, files);
    expect(calls).toEqual(['/bin/sh']);
    expect(batch).toEqual(await Promise.all(files.map((f) => tryLoad(deps, f))));
    expect(batch.map((r) => r.diagnosis?.kind ?? r.ok)).toEqual([true, 'not-found', 'missing-dependency', true, 'other']);
  });

  it('each file on its own: one shell on Linux; without a linker (Windows), a node process per file, so none sees another', async () => {
    const { user, depDir } = built();
    const dep = path.join(depDir, 'libdep.so.1');
    const deps = realDeps();
    for (const platform of ['linux', 'win32'] as const) {
      const calls: string[] = [];
      const counting = { ...deps, platform, exec: (f: string, a: string[], o?: Parameters<typeof deps.exec>[2]) => (calls.push(f), deps.exec(f, a, o)) };
      // libdep loaded first would satisfy libuser's need for it, were they loaded in one process.
      const r = await tryLoadEach(counting, [dep, user]);
      expect(r.map((x) => x.diagnosis?.kind ?? x.ok)).toEqual([true, 'missing-dependency']);
      expect(calls).toEqual(platform === 'linux' ? ['/bin/sh'] : [process.execPath, process.execPath]);
    }
  });

  it('a batch cut short keeps the answers it completed', () => {
    const out = '\x1eB\n\tlinux-vdso.so.1 (0x1)\n\x1eE 0\n\x1eB\n\tlibigc.so.1 => not found\n\x1eE 0\n\x1eB\n\tlibc.so.6 => /lib/libc.so.6\n';
    const r = parseLinkBatch(out, '\x1eB\n\x1eB\n\x1eB\n', ['/a', '/b', '/c']);
    expect(r).toEqual([{ ok: true }, expect.objectContaining({ ok: false, error: 'libigc.so.1: cannot open shared object file: No such file or directory' })]);
  });

  it('the dynamic linker runs none of the library: a constructor that aborts is not reached (doctor --smoke runs the code)', async () => {
    expect(await tryLoadAll(realDeps(), [built().crash])).toEqual([{ ok: true }]);
  });

  it('reads the dynamic linker\'s words as dlopen\'s (captured on Debian 12)', () => {
    const f = '/opt/x/libze_loader.so.1';
    expect(parseLinkerTrace('', `${f}: error while loading shared libraries: ${f}: wrong ELF class: ELFCLASS32\n`, 127, f)).toMatchObject({ ok: false, error: `${f}: wrong ELF class: ELFCLASS32`, diagnosis: { kind: 'wrong-arch' } });
    expect(parseLinkerTrace('\tlinux-vdso.so.1 (0x00007f88)\n\tlibigc.so.1 => not found\n', 'undefined symbol: x\t(/opt/x/a.so)\n', 0, f).error).toBe('libigc.so.1: cannot open shared object file: No such file or directory');
    expect(parseLinkerTrace('', `${f}: /lib/x86_64-linux-gnu/libstdc++.so.6: version \`GLIBCXX_3.4.32' not found (required by ${f})\n`, 0, f).error).toBe(`/lib/x86_64-linux-gnu/libstdc++.so.6: version \`GLIBCXX_3.4.32' not found (required by ${f})`);
    expect(parseLinkerTrace('\tstatically linked\n', '', 0, f)).toEqual({ ok: true });
  });

  it('finds the real GLIBCXX failure of the trixie loader', async () => {
    const trixie = path.join((await ensureDebs()).trixie.libDir, 'libze_loader.so.1');
    const r = await tryLoad(realDeps(), trixie);
    expect(r).toMatchObject({ ok: false, diagnosis: { kind: 'glibcxx' } });
  });
});

describe('headers', () => {
  it('reads the API and spec versions of Debian 12 (1.8.12) headers, which lack the IP-version struct', () => {
    expect(parseZeApiHeader(fx('headers/ze_api-1.8.12.h'))).toEqual({ apiVersion: '1.4', specVersion: 'v1.4-r1.4.8', hasIpVersionExt: false });
  });

  it('reads 1.20.6 headers', () => {
    expect(parseZeApiHeader(fx('headers/ze_api-1.20.6.h'))).toEqual({ apiVersion: '1.12', specVersion: 'v1.12-r1.12.15', hasIpVersionExt: true });
  });

  it('searches the prefix, the SDK variables, CPATH, then the system', () => {
    const dirs = headerSearchDirs('linux', { LEVEL_ZERO_V1_SDK_PATH: '/sdk', ZE_PATH: '/old', CPATH: '/c1:/c2' }, '/pfx');
    expect(dirs.map((d) => `${d.source}:${d.dir}`)).toEqual([
      'prefix:/pfx/include', 'LEVEL_ZERO_V1_SDK_PATH:/sdk/include', 'ZE_PATH:/old/include', 'CPATH:/c1', 'CPATH:/c2', 'system:/usr/local/include', 'system:/usr/include',
    ]);
  });

  it('finds the real system headers', async () => {
    const { found } = await findZeHeaders(fakeDeps({ env: {} }));
    expect(found.find((h) => h.source === 'system')).toMatchObject({ header: '/usr/include/level_zero/ze_api.h', info: { apiVersion: '1.4' } });
  });

  it('flags an SDK path without headers', async () => {
    const empty = path.join(tmp, 'empty-sdk');
    mkdirSync(empty, { recursive: true });
    const r = await checkSdkPath(fakeDeps(), 'LEVEL_ZERO_V1_SDK_PATH', empty);
    expect(r).toMatchObject({ hasHeaders: false, hasLinkLibrary: false, missing: [path.join(empty, 'include/level_zero/ze_api.h'), path.join(empty, 'lib/libze_loader.so')] });
    const win = await checkSdkPath(fakeDeps({ platform: 'win32', files: {} }), 'ZE_PATH', 'C:\\sdk');
    expect(win.missing).toEqual(['C:\\sdk\\include\\level_zero\\ze_api.h', 'C:\\sdk\\lib\\ze_loader.lib']);
  });
});
