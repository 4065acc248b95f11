import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Deps, ExecResult } from '../../src/base/deps.js';
import { compileInvocation, outputTail, type CompileSpec } from '../../src/build/compile.js';
import { findCompilers, parseVswhere } from '../../src/build/compilers.js';
import { absentFiles } from '../fixtures/detect/fake-deps.js';
import { programResolution } from '../../src/bindings/win-loader.js';

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

  it('on Linux with firstGnu stops at the first compiler that answers, asking no other', async () => {
    const asked: string[] = [];
    const deps = fakeDeps('linux', { '/usr/bin/gcc': '', '/usr/bin/cc': '' }, {
      '/usr/bin/gcc --version': { exitCode: 0, stdout: 'gcc 12\n', stderr: '' },
      '/usr/bin/cc --version': { exitCode: 1, stdout: '', stderr: 'broken wrapper\n' },
    }, { PATH: '/usr/bin' });
    const exec = deps.exec;
    deps.exec = (file, args, opts) => (asked.push(file), exec(file, args, opts));
    const r = await findCompilers(deps, 'c', { firstGnu: true });
    expect(r.found.map((c) => c.path)).toEqual(['/usr/bin/gcc']);
    expect(asked).toEqual(['/usr/bin/cc', '/usr/bin/gcc']);
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
    expect(r.tried.map((t) => t.what).slice(0, 3)).toEqual(['cl.exe on PATH', `vswhere: Visual Studio Community 2019 (${cl})`, 'clang-cl']);
    expect(r.tried.map((t) => t.what)).toContain('MSYS2 UCRT64');
  });

  it('on Windows without Visual Studio falls back to clang-cl on PATH', async () => {
    const deps = fakeDeps('win32', { 'C:\\LLVM\\bin\\clang-cl.exe': '' }, {
      'C:\\LLVM\\bin\\clang-cl.exe': { exitCode: 1, stdout: '', stderr: 'clang-cl: error: no input files\r\nclang version 18.1.8\r\n' },
    }, { PATH: 'C:\\LLVM\\bin', PATHEXT: '.EXE' });
    const r = await findCompilers(deps);
    expect(r.found.map((c) => [c.via, c.style])).toEqual([['clang-cl', 'msvc']]);
    expect(r.tried.find((t) => t.what === 'vswhere')?.result).toBe('not found');
  });

  it('on Windows without MSVC finds GNU-style compilers: gcc.exe on PATH (w64devkit), then MSYS2\'s', async () => {
    const ucrt = 'C:\\msys64\\ucrt64\\bin\\gcc.exe';
    const w64 = 'D:\\tools\\w64devkit\\bin\\gcc.exe';
    const deps = fakeDeps('win32', { [ucrt]: '', [w64]: '' }, {
      [`${w64} --version`]: { exitCode: 0, stdout: 'gcc.exe (GCC) 14.2.0\r\n', stderr: '' },
      [`${ucrt} --version`]: { exitCode: 0, stdout: 'gcc.exe (Rev2, Built by MSYS2 project) 14.2.0\r\n', stderr: '' },
    }, { PATH: 'D:\\tools\\w64devkit\\bin;C:\\Windows', PATHEXT: '.EXE' });
    const r = await findCompilers(deps);
    expect(r.found.map((c) => [c.via, c.path, c.style])).toEqual([['gcc.exe on PATH', w64, 'gnu'], ['MSYS2 UCRT64', ucrt, 'gnu']]);
    expect(r.tried.find((t) => t.what === 'MSYS2 MINGW64')).toMatchObject({ result: 'not found', detail: 'C:\\msys64\\mingw64\\bin\\gcc.exe' });
  });
});

describe('compile command lines', () => {
  it('GNU style on Windows builds a DLL without -fPIC and links ze_loader.lib through -l', () => {
    const winSpec: CompileSpec = { name: 'x', sources: ['C:\\s\\a.c'], includeDirs: ['C:\\p\\include'], libDirs: ['C:\\p\\lib'], libs: ['ze_loader'], rpath: [], outDir: 'C:\\p\\lib\\xpu-setup' };
    const inv = compileInvocation(winSpec, { via: 'gcc.exe on PATH', path: 'gcc.exe', style: 'gnu', version: 'gcc 14' }, 'C:\\o\\x.dll', 'win32');
    expect(inv.args).toEqual(['-shared', '-O2', '-IC:\\p\\include', 'C:\\s\\a.c', '-o', 'C:\\o\\x.dll', '-LC:\\p\\lib', '-lze_loader']);
  });
  it('a failed build shows the last 20 lines of compiler output and says how many came before', () => {
    const text = Array.from({ length: 50 }, (_, i) => `line ${i + 1}`).join('\n');
    const tail = outputTail(text);
    expect(tail[0]).toBe('compiler output (last 20 of 50 lines; --verbose shows all):');
    expect(tail.slice(1)).toEqual(Array.from({ length: 20 }, (_, i) => `  line ${i + 31}`));
    expect(outputTail('a.c:1: error: x')).toEqual(['compiler output:', '  a.c:1: error: x']);
  });

  const spec: CompileSpec = { name: 'x', sources: ['/s/a.c'], includeDirs: ['/p/include'], libDirs: ['/p/lib'], libs: ['ze_loader'], rpath: ['/p/lib'], outDir: '/p/lib/xpu-setup' };
  it('GNU style', () => {
    const inv = compileInvocation(spec, { via: 'cc', path: '/usr/bin/cc', style: 'gnu', version: 'cc 12' }, '/o/x.so');
    expect([inv.file, ...inv.args].join(' ')).toBe('/usr/bin/cc -shared -fPIC -O2 -I/p/include /s/a.c -o /o/x.so -L/p/lib -lze_loader -Xlinker -rpath -Xlinker /p/lib');
  });
  it('MSVC style', () => {
    const inv = compileInvocation({ ...spec, rpath: [] }, { via: 'cl', path: 'cl.exe', style: 'msvc', version: 'cl 19' }, 'C:\\o\\x.dll');
    expect(inv.args).toEqual(['/nologo', '/LD', '/MD', '/O2', '/W3', '/I/p/include', '/s/a.c', '/Fe:C:\\o\\x.dll', '/link', '/LIBPATH:/p/lib', 'ze_loader.lib']);
  });
});

describe('which ze_loader.dll a program started from the env files gets', () => {
  const bin = 'C:\\xpu\\bin';
  const env = { SystemRoot: 'C:\\Windows', PATH: 'C:\\Windows\\system32;C:\\tools' };
  it('the prefix copy through PATH when System32 has none', () => {
    expect(programResolution(bin, env, (p) => p === 'C:\\xpu\\bin\\ze_loader.dll')).toEqual({ path: 'C:\\xpu\\bin\\ze_loader.dll', where: 'prefix' });
  });
  it('the driver\'s System32 copy when there is one: System32 comes before PATH', () => {
    const has = new Set(['C:\\xpu\\bin\\ze_loader.dll', 'C:\\Windows\\System32\\ze_loader.dll']);
    expect(programResolution(bin, env, (p) => has.has(p))).toEqual({ path: 'C:\\Windows\\System32\\ze_loader.dll', where: 'System32' });
  });
});
