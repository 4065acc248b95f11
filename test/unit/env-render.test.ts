import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { envVars, prefixJoin, renderEnv, renderUnset, SHELLS, withoutPrefix } from '../../src/install/env.js';
import { relocateVars } from '../../src/install/installed-env.js';
import { envFilesLine } from '../../src/hints.js';

describe('env files', () => {
  it('sh output, sourced by a real shell, prepends search paths and sets the SDK path', () => {
    const script = renderEnv(envVars("/opt/it's here", 'linux-x64', { TRITON_INTEL_DEVICE_ARCH: 'bmg' }), 'sh', 'linux-x64');
    const out = execFileSync('sh', ['-c', `${script}\nprintf '%s\\n' "$LEVEL_ZERO_V1_SDK_PATH" "$CPATH" "$LD_LIBRARY_PATH" "$PKG_CONFIG_PATH" "$TRITON_INTEL_DEVICE_ARCH"`], {
      env: { PATH: process.env.PATH, LD_LIBRARY_PATH: '/usr/local/lib' },
    }).toString();
    expect(out.split('\n')).toEqual([
      "/opt/it's here",
      "/opt/it's here/include",
      "/opt/it's here/lib:/usr/local/lib",
      "/opt/it's here/lib/pkgconfig",
      'bmg',
      '',
    ]);
  });

  it('Windows prefixes use INCLUDE/LIB/PATH, backslashes and ;', () => {
    const vars = envVars('C:\\xpu', 'win-x64');
    expect(vars.find((v) => v.name === 'PATH')!.value).toBe('C:\\xpu\\bin');
    expect(vars.some((v) => v.name === 'LD_LIBRARY_PATH')).toBe(false);
    const cmd = renderEnv(vars, 'cmd', 'win-x64');
    expect(cmd).toContain('if not defined INCLUDE (set "INCLUDE=C:\\xpu\\include") else if "%_XPU_HAD%"=="%_XPU_LESS%" (set "INCLUDE=C:\\xpu\\include;%INCLUDE%")');
    expect(cmd).toContain('\r\n');
    const ps = renderEnv(vars, 'pwsh', 'win-x64');
    expect(ps).toContain("$env:LEVEL_ZERO_V1_SDK_PATH = 'C:\\xpu'");
    expect(ps).toContain("$env:PATH = if ($env:PATH) { 'C:\\xpu\\bin;' + $env:PATH } else { 'C:\\xpu\\bin' }");
  });

  it('env.bat adds a path only when ;%VAR%; lacks it (cmd replaces case-insensitively), and clears its helpers', () => {
    const cmd = renderEnv(envVars('C:\\xpu', 'win-x64'), 'cmd', 'win-x64');
    const lines = cmd.split('\r\n');
    const at = lines.indexOf('set "_XPU_HAD=;%PATH%;"');
    expect(at).toBeGreaterThan(0);
    expect(lines[at + 1]).toBe('call set "_XPU_LESS=%%_XPU_HAD:;C:\\xpu\\bin;=%%"');
    expect(lines[at + 2]).toBe('if not defined PATH (set "PATH=C:\\xpu\\bin") else if "%_XPU_HAD%"=="%_XPU_LESS%" (set "PATH=C:\\xpu\\bin;%PATH%")');
    const done = lines.indexOf('set "_XPU_HAD="');
    expect(lines.slice(done, done + 3)).toEqual(['set "_XPU_HAD="', 'set "_XPU_LESS="', 'goto :eof']);
  });

  it('env.ps1 prepends a path only when the list does not hold it already (as data: no PowerShell here)', () => {
    const ps = renderEnv(envVars("C:\\it's", 'win-x64'), 'pwsh', 'win-x64');
    const line = ps.split('\n').find((l) => l.includes('$env:PATH ='))!;
    expect(line).toBe("if (-not (@($env:PATH -split ';') -contains 'C:\\it''s\\bin')) { $env:PATH = if ($env:PATH) { 'C:\\it''s\\bin;' + $env:PATH } else { 'C:\\it''s\\bin' } }");
    expect(ps.match(/\{/g)!.length).toBe(ps.match(/\}/g)!.length);
  });

  it('env.ps1 saves what it changes for xpu_setup_deactivate, and undoes another prefix\'s env.ps1 first (as data)', () => {
    const a = renderEnv(envVars('C:\\a', 'win-x64'), 'pwsh', 'win-x64');
    const b = renderEnv(envVars('C:\\b', 'win-x64', { ZE_ENABLE_ALT_DRIVERS: 'C:\\b\\bin\\ref.dll' }), 'pwsh', 'win-x64');
    const keyOf = (ps: string) => /_XPU_SETUP_ACTIVE = '([0-9a-f]+)'/.exec(ps)![1];
    expect(keyOf(a)).not.toBe(keyOf(b));
    expect(b).toContain(`$global:_XPU_SETUP_ACTIVE -ne '${keyOf(b)}'`);
    expect(b).toContain("foreach ($n in @('LEVEL_ZERO_V1_SDK_PATH', 'ZE_PATH', 'INCLUDE', 'LIB', 'PATH', 'PKG_CONFIG_PATH', 'CMAKE_PREFIX_PATH', 'ZE_ENABLE_ALT_DRIVERS'))");
    expect(b).toContain('function global:xpu_setup_deactivate {');
    expect(b.match(/\{/g)!.length).toBe(b.match(/\}/g)!.length);
  });

  it('setup\'s closing hint names env.bat and env.ps1 on Windows and env.sh elsewhere', async () => {
    const files = new Set(['C:\\xpu\\env.bat', 'C:\\xpu\\env.ps1', '/opt/xpu/env.sh']);
    const deps = (platform: NodeJS.Platform) => ({ env: { SHELL: '/bin/bash' }, platform, exists: async (p: string) => files.has(p) });
    expect(await envFilesLine(deps('win32'), 'C:\\xpu')).toBe('cmd: call "C:\\xpu\\env.bat"   PowerShell: . C:\\xpu\\env.ps1');
    expect(await envFilesLine(deps('linux'), '/opt/xpu')).toBe('. /opt/xpu/env.sh');
  });

  it('a copied prefix\'s variables move with it (Windows paths compare without case)', () => {
    const vars = envVars('C:\\Old', 'win-x64');
    const moved = relocateVars(vars, 'c:\\old', 'D:\\New', 'win-x64');
    expect(moved.find((v) => v.name === 'PATH')?.value).toBe('D:\\New\\bin');
    expect(relocateVars(envVars('/a', 'linux-x64'), '/A', '/b', 'linux-x64')).toEqual(envVars('/a', 'linux-x64'));
  });

  it('fish treats *PATH variables as path lists', () => {
    const fish = renderEnv(envVars('/p', 'linux-x64'), 'fish', 'linux-x64');
    expect(fish).toContain("set -gx --path LD_LIBRARY_PATH '/p/lib' $LD_LIBRARY_PATH");
    expect(fish).toContain("set -gx LEVEL_ZERO_V1_SDK_PATH '/p'");
  });

  it('json carries the separator and every variable', () => {
    const doc = JSON.parse(renderEnv(envVars('/p', 'linux-x64'), 'json', 'linux-x64'));
    expect(doc.separator).toBe(':');
    expect(doc.vars.map((v: { name: string }) => v.name)).toContain('CMAKE_PREFIX_PATH');
  });

  it('joins prefix paths in the prefix\'s own style', () => {
    expect(prefixJoin('/tmp/p/', 'win-x64', 'bin')).toBe('/tmp/p/bin');
    expect(prefixJoin('D:\\x\\', 'win-x64', 'lib', 'pkgconfig')).toBe('D:\\x\\lib\\pkgconfig');
  });
});

describe('env files sourced by real shells', () => {
  const prefix = "/opt/it's here";
  const show = 'LD_LIBRARY_PATH CPATH LEVEL_ZERO_V1_SDK_PATH';
  const shScript = renderEnv(envVars(prefix, 'linux-x64'), 'sh', 'linux-x64');
  const sh = (shell: string, body: string, env: Record<string, string> = {}) =>
    execFileSync(shell, ['-c', body], { env: { PATH: process.env.PATH, ...env }, input: '' }).toString();
  const printSh = `for v in ${show}; do eval "printf '%s=[%s]\\n' $v \\"\\\${$v-unset}\\""; done`;

  it.each(['sh', 'bash'])('%s: sourcing twice adds nothing twice; xpu_setup_deactivate restores the old values', (shell) => {
    const out = sh(shell, `${shScript}\n${shScript}\n${printSh}\nxpu_setup_deactivate\n${printSh}\ncommand -v xpu_setup_deactivate || echo gone`, { LD_LIBRARY_PATH: '/usr/local/lib' });
    expect(out.split('\n')).toEqual([
      `LD_LIBRARY_PATH=[${prefix}/lib:/usr/local/lib]`,
      `CPATH=[${prefix}/include]`,
      `LEVEL_ZERO_V1_SDK_PATH=[${prefix}]`,
      'LD_LIBRARY_PATH=[/usr/local/lib]',
      'CPATH=[unset]',
      'LEVEL_ZERO_V1_SDK_PATH=[unset]',
      'gone',
      '',
    ]);
  });

  it('sh: XPU_SETUP_ENV=compilers leaves the loader search path alone', () => {
    const out = sh('sh', `XPU_SETUP_ENV=compilers; ${shScript}\n${printSh}`, { LD_LIBRARY_PATH: '/usr/local/lib' });
    expect(out).toContain('LD_LIBRARY_PATH=[/usr/local/lib]\n');
    expect(out).toContain(`CPATH=[${prefix}/include]\n`);
  });

  it('sh for a Windows prefix (Git Bash): PATH gets a POSIX path and ":", INCLUDE is prepended with ";"', () => {
    const script = renderEnv(envVars('C:\\xpu', 'win-x64'), 'sh', 'win-x64');
    const out = sh('sh', `${script}\n${script}\nprintf '%s\\n' "$PATH" "$INCLUDE"`, { INCLUDE: 'C:\\msvc\\include' });
    expect(out.split('\n')).toEqual([`/c/xpu/bin:${process.env.PATH}`, 'C:\\xpu\\include;C:\\msvc\\include', '']);
  });

  const fish = (body: string, env: Record<string, string> = {}) => sh('fish', body, env);
  const printFish = `for v in ${show} INCLUDE; if set -q $v; printf '%s=[%s]\\n' $v "$$v"; else; printf '%s=[unset]\\n' $v; end; end`;

  it('fish: sourcing twice adds nothing twice; xpu_setup_deactivate restores; compilers mode', () => {
    const script = renderEnv(envVars(prefix, 'linux-x64'), 'fish', 'linux-x64');
    const out = fish(`${script}\n${script}\n${printFish}\nxpu_setup_deactivate\n${printFish}`, { LD_LIBRARY_PATH: '/usr/local/lib' });
    expect(out.split('\n')).toEqual([
      `LD_LIBRARY_PATH=[${prefix}/lib:/usr/local/lib]`,
      `CPATH=[${prefix}/include]`,
      `LEVEL_ZERO_V1_SDK_PATH=[${prefix}]`,
      'INCLUDE=[unset]',
      'LD_LIBRARY_PATH=[/usr/local/lib]',
      'CPATH=[unset]',
      'LEVEL_ZERO_V1_SDK_PATH=[unset]',
      'INCLUDE=[unset]',
      '',
    ]);
    const compilers = fish(`set -x XPU_SETUP_ENV compilers\n${script}\n${printFish}`, { LD_LIBRARY_PATH: '/usr/local/lib' });
    expect(compilers).toContain('LD_LIBRARY_PATH=[/usr/local/lib]\n');
  });

  it('fish for a Windows prefix prepends to INCLUDE and LIB instead of overwriting them', () => {
    const script = renderEnv(envVars('C:\\xpu', 'win-x64'), 'fish', 'win-x64');
    const out = fish(`${script}\n${script}\n${printFish}`, { INCLUDE: 'C:\\msvc\\include' });
    expect(out).toContain('INCLUDE=[C:\\xpu\\include;C:\\msvc\\include]\n');
  });

  it('--unset takes the prefix\'s entries out of the current values, and unsets what it set', () => {
    const vars = envVars(prefix, 'linux-x64');
    const changes = withoutPrefix(vars, { LD_LIBRARY_PATH: `/a:${prefix}/lib:/b`, CPATH: `${prefix}/include`, LEVEL_ZERO_V1_SDK_PATH: prefix, ZE_PATH: '/elsewhere' }, 'linux-x64');
    expect(changes).toEqual([{ name: 'LEVEL_ZERO_V1_SDK_PATH' }, { name: 'CPATH' }, { name: 'LD_LIBRARY_PATH', value: '/a:/b' }]);
    const out = sh('sh', `${shScript}\n${renderUnset(withoutPrefix(vars, { LD_LIBRARY_PATH: `${prefix}/lib:/usr/local/lib`, CPATH: `${prefix}/include`, LEVEL_ZERO_V1_SDK_PATH: prefix }, 'linux-x64'), 'sh')}\n${printSh}`);
    expect(out.split('\n')).toEqual(['LD_LIBRARY_PATH=[/usr/local/lib]', 'CPATH=[unset]', 'LEVEL_ZERO_V1_SDK_PATH=[unset]', '']);
  });
});

describe('switching prefixes in real shells', () => {
  const ref = '/opt/ref prefix';
  const plain = '/opt/plain';
  const refVars = envVars(ref, 'linux-x64', {
    ZE_ENABLE_ALT_DRIVERS: `${ref}/lib/libze_xpu_setup_refdriver.so`,
    TRITON_INTEL_DEVICE_ARCH: 'bmg',
    TRITON_INTEL_DEVICE_EXTENSIONS: 'cl_intel_subgroups',
  });
  const plainVars = envVars(plain, 'linux-x64');
  const show = ['LD_LIBRARY_PATH', 'CPATH', 'LEVEL_ZERO_V1_SDK_PATH', 'ZE_ENABLE_ALT_DRIVERS', 'TRITON_INTEL_DEVICE_ARCH'];
  const before = { LD_LIBRARY_PATH: '/usr/local/lib', TRITON_INTEL_DEVICE_ARCH: 'mine' };
  // What a user sees at each step: after the refdriver prefix, after the plain one, after deactivating.
  const expected = [
    [`${ref}/lib:/usr/local/lib`, `${ref}/include`, ref, `${ref}/lib/libze_xpu_setup_refdriver.so`, 'bmg'],
    [`${plain}/lib:/usr/local/lib`, `${plain}/include`, plain, '[unset]', 'mine'],
    ['/usr/local/lib', '[unset]', '[unset]', '[unset]', 'mine'],
  ].map((step) => step.map((v, i) => `${show[i]}=${v}`).join(' '));
  const run = (shell: string, body: string) =>
    execFileSync(shell, ['-c', body], { env: { PATH: process.env.PATH, ...before }, input: '' }).toString().trim().split('\n');
  const shells = ['bash', 'dash', 'zsh'].filter((s) => { try { execFileSync(s, ['-c', 'true']); return true; } catch { return false; } });

  it.each(shells)('%s: sourcing a plain prefix after a --refdriver one drops the reference driver; deactivating restores the start', (shell) => {
    const print = `printf '%s\\n' "${show.map((n) => `${n}=\${${n}-[unset]}`).join(' ')}"`;
    const a = renderEnv(refVars, 'sh', 'linux-x64');
    const b = renderEnv(plainVars, 'sh', 'linux-x64');
    expect(run(shell, `${a}\n${print}\n${b}\n${b}\n${print}\nxpu_setup_deactivate\n${print}`)).toEqual(expected);
  });

  it('fish: the same, sourced as files', () => {
    const print = `echo ${show.map((n) => `${n}=(if set -q ${n}; echo -n "$${n}"; else; echo -n '[unset]'; end)`).join(' ')}`;
    const a = renderEnv(refVars, 'fish', 'linux-x64');
    const b = renderEnv(plainVars, 'fish', 'linux-x64');
    expect(run('fish', `${a}\n${print}\n${b}\n${b}\n${print}\nxpu_setup_deactivate\n${print}`)).toEqual(expected);
  });

  it.each(shells)('%s: a child shell undoes what its parent\'s env file did, also after sourcing that file again (as .bashrc does)', (shell) => {
    const print = `printf '%s\\n' "${show.map((n) => `${n}=\${${n}-[unset]}`).join(' ')}"`;
    const dir = mkdtempSync(path.join(tmpdir(), 'xpu-env-child-'));
    writeFileSync(path.join(dir, 'ref.sh'), renderEnv(refVars, 'sh', 'linux-x64'));
    writeFileSync(path.join(dir, 'plain.sh'), renderEnv(plainVars, 'sh', 'linux-x64'));
    writeFileSync(path.join(dir, 'child1.sh'), `. ${dir}/plain.sh\n${print}\nxpu_setup_deactivate\n${print}\n`);
    writeFileSync(path.join(dir, 'child2.sh'), `. ${dir}/ref.sh\nxpu_setup_deactivate\n${print}\n`);
    const out = run(shell, `. ${dir}/ref.sh\n${shell} ${dir}/child1.sh\n${shell} ${dir}/child2.sh`);
    expect(out).toEqual([expected[1], expected[2], expected[2]]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('fish: the same in a child fish', () => {
    const print = `echo ${show.map((n) => `${n}=(if set -q ${n}; echo -n "$${n}"; else; echo -n '[unset]'; end)`).join(' ')}`;
    const dir = mkdtempSync(path.join(tmpdir(), 'xpu-env-child-'));
    writeFileSync(path.join(dir, 'ref.fish'), renderEnv(refVars, 'fish', 'linux-x64'));
    writeFileSync(path.join(dir, 'plain.fish'), renderEnv(plainVars, 'fish', 'linux-x64'));
    writeFileSync(path.join(dir, 'child1.fish'), `source ${dir}/plain.fish\n${print}\nxpu_setup_deactivate\n${print}\n`);
    writeFileSync(path.join(dir, 'child2.fish'), `source ${dir}/ref.fish\nxpu_setup_deactivate\n${print}\n`);
    const out = run('fish', `source ${dir}/ref.fish\nfish ${dir}/child1.fish\nfish ${dir}/child2.fish`);
    expect(out).toEqual([expected[1], expected[2], expected[2]]);
    rmSync(dir, { recursive: true, force: true });
  });

  it('sh: the same prefix sourced again after a run added the reference driver takes the old file\'s state back first', () => {
    const print = `printf '%s\\n' "${show.map((n) => `${n}=\${${n}-[unset]}`).join(' ')}"`;
    const older = renderEnv(envVars(ref, 'linux-x64'), 'sh', 'linux-x64');
    const out = run('bash', `${older}\n${renderEnv(refVars, 'sh', 'linux-x64')}\n${print}\nxpu_setup_deactivate\n${print}`);
    expect(out).toEqual([expected[0], expected[2]]);
  });

  it('env files name their own prefix, never a placeholder', () => {
    for (const shell of SHELLS) {
      const text = renderEnv(refVars, shell, 'linux-x64');
      expect(text).not.toMatch(/<prefix>|<this file>/);
    }
    expect(renderEnv(refVars, 'sh', 'linux-x64')).toContain(`xpu-setup env --prefix '${ref}' --shell sh`);
    expect(renderEnv(refVars, 'sh', 'linux-x64')).toContain(`XPU_SETUP_ENV=compilers . '${ref}/env.sh'`);
  });
});
