// The environment a proof's child process is started with (sourcedEnv) against what a real sh has after `. env.sh`.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { envIsActive, envVars, renderEnv, sourcedEnv } from '../../src/shells/env.js';
import { layoutFor } from '../../src/platform/index.js';

const dir = mkdtempSync(path.join(tmpdir(), 'xpu-sourced-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const linux = layoutFor('linux-x64');

function prefixFile(name: string): { prefix: string; file: string; vars: ReturnType<typeof envVars> } {
  const prefix = path.join(dir, name);
  const vars = envVars(prefix, 'linux-x64', { ZE_ENABLE_ALT_DRIVERS: `${prefix}/lib/libze_intel_gpu.so.1` }, [{ name: 'PATH', dir: 'bin' }]);
  const file = path.join(dir, `${name}.sh`);
  writeFileSync(file, renderEnv(vars, 'sh', 'linux-x64'));
  return { prefix, file, vars };
}

/** What sh's environment is after running `script` in `env`. */
function shEnv(env: Record<string, string>, script: string): Record<string, string> {
  const out = execFileSync('/bin/sh', ['-c', `${script} && env -0`], { env, encoding: 'utf8' });
  const got: Record<string, string> = {};
  for (const entry of out.split('\0').filter(Boolean)) {
    const eq = entry.indexOf('=');
    got[entry.slice(0, eq)] = entry.slice(eq + 1);
  }
  // The shell's own variables are not the env file's doing.
  for (const own of ['PWD', 'SHLVL', '_', 'OLDPWD']) delete got[own];
  return got;
}

describe('sourcedEnv: the environment env.sh gives, computed from the variables it is written from', () => {
  const a = prefixFile('a');
  const b = prefixFile('b');
  const base = { PATH: '/usr/bin:/bin', HOME: dir, LD_LIBRARY_PATH: '/opt/other/lib' };

  it('is what sh has after sourcing env.sh, from a plain environment', () => {
    expect(sourcedEnv(a.vars, linux, base)).toEqual(shEnv(base, `. '${a.file}'`));
  });

  it("undoes another prefix's active env file first, as env.sh does", () => {
    const withB = shEnv(base, `. '${b.file}'`);
    const fromB = sourcedEnv(a.vars, linux, withB);
    expect(fromB).toEqual(shEnv(base, `. '${b.file}' && . '${a.file}'`));
    expect(fromB.LD_LIBRARY_PATH).toBe(`${a.prefix}/lib:/opt/other/lib`);
    expect(Object.values(fromB).join('\n')).not.toContain(b.prefix);
  });

  it('is active where env.sh was sourced, and not before; sourcing it again changes nothing', () => {
    const sourced = shEnv(base, `. '${a.file}'`);
    expect(envIsActive(a.vars, linux, sourced)).toBe(true);
    expect(envIsActive(a.vars, linux, base)).toBe(false);
    expect(envIsActive(b.vars, linux, sourced)).toBe(false);
    expect(sourcedEnv(a.vars, linux, sourced)).toEqual(sourced);
  });

  it("Windows: names without case (the environment's `Path` is kept, never doubled), a list prepended unless it starts with the path", () => {
    const prefix = 'C:\\x';
    const vars = envVars(prefix, 'win-x64');
    const win = layoutFor('win-x64');
    const env = sourcedEnv(vars, win, { Path: 'C:\\Windows\\system32', SystemRoot: 'C:\\Windows' });
    expect(Object.keys(env).filter((k) => k.toUpperCase() === 'PATH')).toEqual(['Path']);
    expect(env.Path).toBe('C:\\x\\bin;C:\\Windows\\system32');
    expect(env.LEVEL_ZERO_V1_SDK_PATH).toBe(prefix);
    expect(envIsActive(vars, win, env)).toBe(true);
    expect(sourcedEnv(vars, win, env).Path).toBe(env.Path);
  });
});
