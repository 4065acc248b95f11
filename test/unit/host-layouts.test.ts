// What differs by platform is host data: the answers other modules used to spell out per platform, read from the layouts.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { requireCompiler } from '../../src/build/addon.js';
import { isXpuError } from '../../src/base/errors.js';
import { findZstd } from '../../src/formats/decompress.js';
import { isInside, isNative, layoutFor, nodeLayout, osLayout, type Host } from '../../src/platform/index.js';
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
