import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { activationHint, envVars, prefixJoin, renderEnv } from '../../src/install/env.js';

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
    expect(lines.slice(-3)).toEqual(['set "_XPU_HAD="', 'set "_XPU_LESS="', '']);
  });

  it('env.ps1 prepends a path only when the list does not hold it already (as data: no PowerShell here)', () => {
    const ps = renderEnv(envVars("C:\\it's", 'win-x64'), 'pwsh', 'win-x64');
    const line = ps.split('\n').find((l) => l.includes('$env:PATH ='))!;
    expect(line).toBe("if (-not (@($env:PATH -split ';') -contains 'C:\\it''s\\bin')) { $env:PATH = if ($env:PATH) { 'C:\\it''s\\bin;' + $env:PATH } else { 'C:\\it''s\\bin' } }");
    expect(ps.match(/\{/g)!.length).toBe(ps.match(/\}/g)!.length);
  });

  it('setup\'s closing hint names env.bat and env.ps1 on Windows and env.sh elsewhere', () => {
    expect(activationHint('C:\\xpu', 'win-x64')).toBe('To use it: cmd: call "C:\\xpu\\env.bat"   PowerShell: . "C:\\xpu\\env.ps1"');
    expect(activationHint('/opt/xpu', 'linux-x64')).toContain('. /opt/xpu/env.sh');
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
