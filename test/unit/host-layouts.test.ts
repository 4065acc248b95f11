// What differs by platform is host data: the answers other modules used to spell out per platform, read from the layouts.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireCompiler } from '../../src/build/addon.js';
import { isXpuError } from '../../src/base/errors.js';
import { findZstd } from '../../src/formats/decompress.js';
import { isInside, isNative, layoutFor, nodeLayout, osLayout, parseTargetPlatform, runningPlatform, type Host } from '../../src/platform/index.js';
import { detectShell } from '../../src/shells/index.js';
import { virtualPackages } from '../../src/versions/match-spec.js';
import { markerEnvFor } from '../../src/versions/pep508.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-host-layouts-'));
afterAll(() => fs.rm(work, { recursive: true, force: true }));

describe('target platforms, looked up by key', () => {
  it('PEP 508 markers are Python\'s own names on each platform', () => {
    expect(markerEnvFor('linux-x64')).toMatchObject({ os_name: 'posix', sys_platform: 'linux', platform_system: 'Linux', platform_machine: 'x86_64' });
    expect(markerEnvFor('win-x64')).toMatchObject({ os_name: 'nt', sys_platform: 'win32', platform_system: 'Windows', platform_machine: 'AMD64' });
  });

  it('conda subdirs and virtual packages', () => {
    expect([layoutFor('linux-x64').condaSubdir, layoutFor('win-x64').condaSubdir]).toEqual(['linux-64', 'win-64']);
    const linux: Host = { platform: 'linux-x64', os: 'linux', arch: 'x64', native: true, glibc: '2.36' };
    const win: Host = { platform: 'win-x64', os: 'win32', arch: 'x64', native: false };
    expect(Object.fromEntries(virtualPackages(linux))).toEqual({ __glibc: { version: '2.36' }, __linux: {}, __unix: {}, __archspec: { version: '1', build: 'x86_64' } });
    expect(Object.fromEntries(virtualPackages(win))).toEqual({ __win: {}, __archspec: { version: '1', build: 'x86_64' } });
  });

  it('linux-aarch64 is the Linux layout with the arch\'s names: subdir, tags, markers, archspec, linker, multiarch dirs', () => {
    const arm = layoutFor('linux-aarch64');
    expect(parseTargetPlatform('linux-aarch64')).toBe('linux-aarch64');
    expect(arm).toMatchObject({ condaSubdir: 'linux-aarch64', dynamicLinker: '/lib/ld-linux-aarch64.so.1', binaryFormat: 'elf', sharedLibDir: 'lib' });
    expect(arm.arch).toMatchObject({ elfMachine: 183, debArch: 'arm64', multiarch: 'aarch64-linux-gnu' });
    expect(layoutFor('linux-x64')).toMatchObject({ condaSubdir: 'linux-64', dynamicLinker: '/lib64/ld-linux-x86-64.so.2' });
    expect(layoutFor('linux-x64').arch).toMatchObject({ elfMachine: 62, debArch: 'amd64', multiarch: 'x86_64-linux-gnu' });
    expect(markerEnvFor('linux-aarch64')).toMatchObject({ sys_platform: 'linux', platform_machine: 'aarch64' });
    const host: Host = { platform: 'linux-aarch64', os: 'linux', arch: 'aarch64', native: false };
    expect(Object.fromEntries(virtualPackages(host))).toEqual({ __glibc: { version: undefined }, __linux: {}, __unix: {}, __archspec: { version: '1', build: 'aarch64' } });
    // Each arch's wheels fit its own platform only.
    expect(arm.wheelTagScore('manylinux_2_28_aarch64', '2.36')).toBe(2029);
    expect(arm.wheelTagScore('manylinux2014_aarch64', '2.36')).toBe(2018);
    expect(arm.wheelTagScore('manylinux_2_28_x86_64', '2.36')).toBeUndefined();
    expect(layoutFor('linux-x64').wheelTagScore('manylinux_2_28_aarch64', '2.36')).toBeUndefined();
    expect(layoutFor('linux-x64').wheelTagScore('manylinux_2_28_x86_64', '2.36')).toBe(2029);
    expect(arm.librarySearch('libc.so.6', {}).map((c) => c.path)).toEqual(['/lib/aarch64-linux-gnu/libc.so.6', '/usr/lib/aarch64-linux-gnu/libc.so.6', '/lib64/libc.so.6', '/usr/lib64/libc.so.6']);
    // A cache row is taken for the arch its flags name.
    const cache = [{ name: 'libc.so.6', flags: 'libc6,AArch64', path: '/a/libc.so.6', x64: false }, { name: 'libc.so.6', flags: 'libc6,x86-64', path: '/x/libc.so.6', x64: true }];
    expect(arm.librarySearch('libc.so.6', {}, cache)[0]).toEqual({ path: '/a/libc.so.6', via: 'ld.so.cache' });
    expect(layoutFor('linux-x64').librarySearch('libc.so.6', {}, cache)[0]).toEqual({ path: '/x/libc.so.6', via: 'ld.so.cache' });
  });

  it('only Linux leaves runtime libraries to the machine, and only ELF targets link with -fPIC and a runpath', () => {
    expect(layoutFor('linux-x64')).toMatchObject({ decidesRuntimeLibraries: true, binaryFormat: 'elf', sharedLibFlags: ['-fPIC'], runpath: true, sharedLibSuffix: '.so' });
    expect(layoutFor('win-x64')).toMatchObject({ decidesRuntimeLibraries: false, binaryFormat: 'pe', sharedLibFlags: [], runpath: false, sharedLibSuffix: '.dll' });
  });
});

describe('the machine this runs on', () => {
  it('an OS without a layout is told apart where it matters; everything else reads the Linux layout', () => {
    expect(osLayout('darwin')).toBeUndefined();
    expect(osLayout('win32')).toBe(layoutFor('win-x64'));
    expect(nodeLayout('darwin')).toBe(layoutFor('linux-x64'));
    expect(isNative({ platform: 'linux', arch: 'x64' }, 'linux-x64')).toBe(true);
    expect(isNative({ platform: 'linux', arch: 'x64' }, 'win-x64')).toBe(false);
    expect(isNative({ platform: 'linux', arch: 'arm64' }, 'linux-x64')).toBe(false);
    // Prefixes for Arm machines are made from an x64 one: this tool does not run on arm64 itself yet.
    expect(isNative({ platform: 'linux', arch: 'arm64' }, 'linux-aarch64')).toBe(false);
    expect(runningPlatform({ platform: 'linux', arch: 'arm64' })).toBeUndefined();
    expect(runningPlatform({ platform: 'win32', arch: 'x64' })).toBe('win-x64');
  });

  it('zstd is zstd.exe on Windows', async () => {
    const dir = path.join(work, 'bin');
    await fs.mkdir(dir, { recursive: true });
    await fs.writeFile(path.join(dir, 'zstd.exe'), '', { mode: 0o755 });
    expect(findZstd(dir, 'win32')).toBe(path.join(dir, 'zstd.exe'));
    expect(findZstd(dir, 'linux')).toBeUndefined();
  });

  it('PowerShell speaks on Windows whatever SHELL says; elsewhere SHELL names the shell', () => {
    expect(detectShell({ platform: 'win32', env: { SHELL: '/usr/bin/fish' } })).toBe('pwsh');
    expect(detectShell({ platform: 'linux', env: { SHELL: '/usr/bin/fish' } })).toBe('fish');
    expect(detectShell({ platform: 'linux', env: { SHELL: '/bin/zsh' } })).toBe('sh');
    expect(detectShell({ platform: 'linux', env: { SHELL: '/usr/bin/pwsh' } })).toBe('pwsh');
    expect(detectShell({ platform: 'linux', env: {} })).toBe('sh');
    // A name that is no shell people type into (or an Object member) is the platform's default.
    for (const SHELL of ['/usr/bin/cmd', '/x/json', '/x/constructor', '/x/__proto__']) expect(detectShell({ platform: 'linux', env: { SHELL } })).toBe('sh');
  });

  it('no compiler for the addon: the error says how to get one in this platform\'s words', async () => {
    for (const platform of ['linux', 'win32'] as const) {
      const err = await requireCompiler(fakeDeps({ platform }), { found: [], tried: [{ what: 'CC', result: 'not found' }] }).catch((e: unknown) => e);
      expect(isXpuError(err, 'COMPILER')).toBe(true);
      expect((err as { hints: string[] }).hints.at(-1)).toBe(nodeLayout(platform).remedies.noCompiler);
    }
  });
});

describe('isInside', () => {
  it('is true below the directory only: not for the directory itself, its parent, a sibling, or a name that starts with ..', () => {
    expect(isInside('/p', '/p/lib/libze_loader.so.1')).toBe(true);
    expect(isInside('/p', '/p')).toBe(false);
    expect(isInside('/p', '/')).toBe(false);
    expect(isInside('/p', '/p2/lib')).toBe(false);
    expect(isInside('/p/lib', '/p/..x')).toBe(false);
    expect(isInside('/p', '/p/..x')).toBe(true);
  });

  it('reads paths by the rules it is given: a Windows prefix from Linux', () => {
    const win = layoutFor('win-x64').path;
    expect(isInside('C:\\xpu', 'C:\\xpu\\bin\\ze_loader.dll', win)).toBe(true);
    expect(isInside('C:\\xpu', 'D:\\xpu\\bin', win)).toBe(false);
    expect(isInside('C:\\xpu', 'C:\\xpu\\..\\bin', win)).toBe(false);
  });
});
