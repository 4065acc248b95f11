import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { envVars, prefixJoin, renderEnv, renderUnset, withoutPrefix } from '../../src/install/env.js';

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
    expect(cmd).toContain('if defined INCLUDE (set "INCLUDE=C:\\xpu\\include;%INCLUDE%") else (set "INCLUDE=C:\\xpu\\include")');
    expect(cmd).toContain('\r\n');
    const ps = renderEnv(vars, 'pwsh', 'win-x64');
    expect(ps).toContain("$env:LEVEL_ZERO_V1_SDK_PATH = 'C:\\xpu'");
    expect(ps).toContain("$env:PATH = if ($env:PATH) { 'C:\\xpu\\bin;' + $env:PATH } else { 'C:\\xpu\\bin' }");
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
