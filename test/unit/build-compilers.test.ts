import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Deps, ExecResult } from '../../src/deps.js';
import { compileInvocation, type CompileSpec } from '../../src/build/compile.js';
import { findCompilers, parseVswhere } from '../../src/build/compilers.js';
import { absentFiles } from '../fixtures/detect/fake-deps.js';

const vswhere = (f: string) => fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'vswhere', f), 'utf8');

/** A fake machine: a set of existing files and canned command results. */
function fakeDeps(platform: NodeJS.Platform, files: Record<string, string>, exec: Record<string, ExecResult>, env: Record<string, string> = {}): Deps {
  return {
    platform, arch: 'x64', env,
    exec: async (file, args) => exec[[file, ...args].join(' ')] ?? exec[file] ?? { exitCode: -1, stdout: '', stderr: '', failedToStart: 'ENOENT' },
    readFile: async (p) => files[p],
    readDir: async () => undefined,
    readLink: async () => undefined,
    exists: async (p) => p in files,
    now: () => 0,
    ...absentFiles,
  };
}

describe('vswhere output', () => {
  it('reads the installation path and version from captured real output', () => {
    const [vs] = parseVswhere(vswhere('vs2019-community-ja.json'));
    expect(vs).toEqual({
      installationPath: 'C:\\Program Files (x86)\\Microsoft Visual Studio\\2019\\Community',
      installationVersion: '16.11.32510.428',
      displayName: 'Visual Studio Community 2019',
      productId: 'Microsoft.VisualStudio.Product.Community',
      isComplete: true,
      isPrerelease: false,
    });
  });

  it('returns nothing for an empty array, garbage, or a BOM-prefixed empty array', () => {
    expect(parseVswhere(vswhere('none-installed.json'))).toEqual([]);
    expect(parseVswhere('Visual Studio Locator version 2.6.7')).toEqual([]);
    expect(parseVswhere('\uFEFF[]')).toEqual([]);
  });

  it('orders complete instances first, then newest version', () => {
    const doc = JSON.parse(vswhere('vs2019-community-ja.json')) as Record<string, unknown>[];
    const newer = { ...doc[0], installationPath: 'C:\\VS\\2022', installationVersion: '17.9.34728.123' };
    const broken = { ...doc[0], installationPath: 'C:\\VS\\broken', installationVersion: '17.10.1.1', isComplete: false };
    expect(parseVswhere(JSON.stringify([doc[0], broken, newer])).map((v) => v.installationPath)).toEqual([
      'C:\\VS\\2022', 'C:\\Program Files (x86)\\Microsoft Visual Studio\\2019\\Community', 'C:\\VS\\broken',
    ]);
  });
});

describe('compiler finder', () => {
  it('on Linux honours CC first and records every attempt', async () => {
    const deps = fakeDeps('linux', { '/opt/x/bin/mycc': '', '/usr/bin/gcc': '', '/usr/bin/cc': '' }, {
      '/opt/x/bin/mycc --version': { exitCode: 0, stdout: 'mycc 1.0\n', stderr: '' },
      '/usr/bin/gcc --version': { exitCode: 0, stdout: 'gcc (Debian 12.2.0-14) 12.2.0\n', stderr: '' },
      '/usr/bin/cc --version': { exitCode: 0, stdout: 'cc (Debian 12.2.0-14) 12.2.0\n', stderr: '' },
    }, { PATH: '/usr/bin', CC: '/opt/x/bin/mycc' });
    const r = await findCompilers(deps);
    expect(r.found.map((c) => [c.via, c.path])).toEqual([['CC', '/opt/x/bin/mycc'], ['cc', '/usr/bin/cc'], ['gcc', '/usr/bin/gcc']]);
    expect(r.tried.map((t) => `${t.what}: ${t.result}`)).toEqual([
      'CC (/opt/x/bin/mycc): found', 'cc (/usr/bin/cc): found', 'gcc (/usr/bin/gcc): found', 'clang (clang): not found', 'icx (icx): not found',
    ]);
  });

  it('on Linux with nothing installed returns no compiler and the full list of attempts', async () => {
    const r = await findCompilers(fakeDeps('linux', {}, {}, { PATH: '/usr/bin' }));
    expect(r.found).toEqual([]);
    expect(r.tried).toHaveLength(4);
  });

  it('on Windows finds cl.exe through vswhere and the default tools version', async () => {
    const vsRoot = 'C:\\Program Files (x86)\\Microsoft Visual Studio\\2019\\Community';
    const vswhereExe = 'C:\\Program Files (x86)\\Microsoft Visual Studio\\Installer\\vswhere.exe';
    const cl = `${vsRoot}\\VC\\Tools\\MSVC\\14.29.30133\\bin\\Hostx64\\x64\\cl.exe`;
    const deps = fakeDeps('win32', {
      [vswhereExe]: '',
      [`${vsRoot}\\VC\\Auxiliary\\Build\\Microsoft.VCToolsVersion.default.txt`]: '14.29.30133\r\n',
      [cl]: '',
    }, {
      [`${vswhereExe} -products * -requires Microsoft.VisualStudio.Component.VC.Tools.x86.x64 -format json -utf8`]: { exitCode: 0, stdout: vswhere('vs2019-community-ja.json'), stderr: '' },
      [cl]: { exitCode: 2, stdout: '', stderr: 'Microsoft (R) C/C++ Optimizing Compiler Version 19.29.30145 for x64\r\nusage: cl [ option... ] filename... [ /link linkoption... ]\r\n' },
    }, { 'ProgramFiles(x86)': 'C:\\Program Files (x86)', PATH: 'C:\\Windows' });
    const r = await findCompilers(deps);
    expect(r.found).toHaveLength(1);
    expect(r.found[0]).toMatchObject({ path: cl, style: 'msvc', version: 'Microsoft (R) C/C++ Optimizing Compiler Version 19.29.30145 for x64', vcvars: `${vsRoot}\\VC\\Auxiliary\\Build\\vcvars64.bat` });
    expect(r.tried.map((t) => t.what)).toEqual(['cl.exe on PATH', `vswhere: Visual Studio Community 2019 (${cl})`, 'clang-cl']);
  });

  it('on Windows without Visual Studio falls back to clang-cl on PATH', async () => {
    const deps = fakeDeps('win32', { 'C:\\LLVM\\bin\\clang-cl.exe': '' }, {
      'C:\\LLVM\\bin\\clang-cl.exe': { exitCode: 1, stdout: '', stderr: 'clang-cl: error: no input files\r\nclang version 18.1.8\r\n' },
    }, { PATH: 'C:\\LLVM\\bin', PATHEXT: '.EXE' });
    const r = await findCompilers(deps);
    expect(r.found.map((c) => [c.via, c.style])).toEqual([['clang-cl', 'msvc']]);
    expect(r.tried.find((t) => t.what === 'vswhere')?.result).toBe('not found');
  });
});

describe('compile command lines', () => {
  const spec: CompileSpec = { name: 'x', sources: ['/s/a.c'], includeDirs: ['/p/include'], libDirs: ['/p/lib'], libs: ['ze_loader'], rpath: ['/p/lib'], outDir: '/p/lib/xpu-setup' };
  it('GNU style', () => {
    const inv = compileInvocation(spec, { via: 'cc', path: '/usr/bin/cc', style: 'gnu', version: 'cc 12' }, '/o/x.so');
    expect([inv.file, ...inv.args].join(' ')).toBe('/usr/bin/cc -shared -fPIC -O2 -I/p/include /s/a.c -o /o/x.so -L/p/lib -lze_loader -Wl,-rpath,/p/lib');
  });
  it('MSVC style', () => {
    const inv = compileInvocation({ ...spec, rpath: [] }, { via: 'cl', path: 'cl.exe', style: 'msvc', version: 'cl 19' }, 'C:\\o\\x.dll');
    expect(inv.args).toEqual(['/nologo', '/LD', '/MD', '/O2', '/W3', '/I/p/include', '/s/a.c', '/Fe:C:\\o\\x.dll', '/link', '/LIBPATH:/p/lib', 'ze_loader.lib']);
  });
});
