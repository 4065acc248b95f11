// Modulefiles under the real module systems: Debian's Lmod, and Environment Modules unpacked from its .deb (the two conflict as packages).
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as fs from 'node:fs/promises';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envVars } from '../../src/shells/env.js';
import { renderModulefile, type ModuleShell } from '../../src/shells/modulefile.js';
import { fixtureCacheDir } from '../support/debs.js';

const run = promisify(execFile);
const LMOD_INIT = '/usr/share/lmod/lmod/init/bash';

/** Environment Modules' modulecmd.tcl, from `apt-get download environment-modules` unpacked in the test cache. */
async function environmentModules(): Promise<string> {
  const dir = path.join(fixtureCacheDir(), 'environment-modules');
  const cmd = path.join(dir, 'root', 'usr', 'lib', 'x86_64-linux-gnu', 'modulecmd.tcl');
  if (existsSync(cmd)) return cmd;
  await fs.mkdir(dir, { recursive: true });
  const sandbox = process.getuid?.() === 0 ? ['-o', 'APT::Sandbox::User=root'] : [];
  await run('apt-get', [...sandbox, '-q', 'download', 'environment-modules'], { cwd: dir });
  const deb = (await fs.readdir(dir)).find((f) => /^environment-modules_.*\.deb$/.test(f));
  if (!deb) throw new Error(`apt-get download environment-modules left no .deb in ${dir}`);
  await fs.rm(path.join(dir, 'root.tmp'), { recursive: true, force: true });
  await run('dpkg-deb', ['-x', path.join(dir, deb), path.join(dir, 'root.tmp')]);
  await fs.rename(path.join(dir, 'root.tmp'), path.join(dir, 'root'));
  return cmd;
}

let work: string;
let modulecmd: string;

beforeAll(async () => {
  work = await fs.mkdtemp(path.join(tmpdir(), 'xpu-modules-'));
  modulecmd = await environmentModules();
}, 120_000);
afterAll(() => fs.rm(work, { recursive: true, force: true }));

/** Two prefixes' modulefiles in a fresh module directory: xpu-setup/1.8.12 and, under another name, other/1. */
async function moduleDir(kind: ModuleShell, prefixes: [string, string]): Promise<string> {
  const dir = await fs.mkdtemp(path.join(work, `${kind}-`));
  const ext = kind === 'lmod' ? '.lua' : '';
  for (const [name, prefix] of [['xpu-setup/1.8.12', prefixes[0]], ['other/1', prefixes[1]]] as const) {
    await fs.mkdir(path.join(dir, path.dirname(name)), { recursive: true });
    const text = renderModulefile(envVars(prefix, 'linux-x64'), kind, { prefix, platform: 'linux-x64', components: [{ name: 'level-zero', version: '1.8.12' }, { name: 'unified-runtime', version: '0.12.0' }] });
    await fs.writeFile(path.join(dir, name + ext), text);
  }
  return dir;
}

type ModuleSystem = 'Lmod' | 'Environment Modules';

/** Runs a bash script with `module` defined by the given system, in an environment that already holds some of our variables. */
async function bash(system: ModuleSystem, script: string): Promise<{ stdout: string; stderr: string }> {
  const setup = system === 'Lmod' ? `. ${LMOD_INIT}` : `module() { eval "$(tclsh '${modulecmd}' bash "$@")"; }`;
  const env = { PATH: process.env.PATH, HOME: work, CPATH: '/usr/local/include:/opt/x', LEVEL_ZERO_V1_SDK_PATH: '/old/sdk' };
  return run('bash', ['-c', `${setup}\n${script}`], { env, cwd: work });
}

/** The environment minus each system's own bookkeeping (Lmod keeps reference counts and stacks after an unload). */
const snapshot = (file: string) => `env | grep -v -E '^(__LMOD_|_ModuleTable|LMOD_|__MODULES_|_LMFILES_|LOADEDMODULES|MODULEPATH|_=)' | sort > ${file}`;

// Lmod reads Tcl modulefiles too (a site's module tree often mixes both).
describe.each([
  ['lmod', 'Lmod'],
  ['tcl', 'Environment Modules'],
  ['tcl', 'Lmod'],
] as const)('%s modulefile under %s', (kind, system) => {
  it('module load puts the prefix first, module unload leaves the environment as it was', async () => {
    const prefix = path.join(work, `prefix with 'quote' $x [y]`);
    const dir = await moduleDir(kind, [prefix, '/opt/b']);
    const r = await bash(system, [
      `module use '${dir}'`,
      snapshot('before'),
      'module load xpu-setup',
      'printf "CPATH=%s\\nSDK=%s\\nLD=%s\\nPKG=%s\\n" "$CPATH" "$LEVEL_ZERO_V1_SDK_PATH" "$LD_LIBRARY_PATH" "$PKG_CONFIG_PATH"',
      'module unload xpu-setup',
      snapshot('after'),
      'diff before after && echo SAME',
    ].join('\n'));
    expect(r.stdout).toContain(`CPATH=${prefix}/include:/usr/local/include:/opt/x\n`);
    expect(r.stdout).toContain(`SDK=${prefix}\n`);
    expect(r.stdout).toContain(`LD=${prefix}/lib\n`);
    expect(r.stdout).toContain(`PKG=${prefix}/lib/pkgconfig\n`);
    expect(r.stdout).toMatch(/SAME\n$/);
  });

  it('two xpu-setup prefixes are never loaded at once, whatever the modules are named', async () => {
    const dir = await moduleDir(kind, ['/opt/a', '/opt/b']);
    const r = await bash(system, [`module use '${dir}'`, 'module load xpu-setup', 'module load other', 'echo "SDK=$LEVEL_ZERO_V1_SDK_PATH CPATH=$CPATH"'].join('\n'));
    // Lmod swaps the family's member; Environment Modules refuses the second one.
    const sdk = system === 'Lmod' ? '/opt/b' : '/opt/a';
    expect(r.stdout).toContain(`SDK=${sdk} CPATH=${sdk}/include:/usr/local/include:/opt/x\n`);
    if (system !== 'Lmod') expect(r.stderr).toMatch(/conflict/i);
  });

  it('whatis names the versions and the prefix', async () => {
    const dir = await moduleDir(kind, ['/opt/a', '/opt/b']);
    const r = await bash(system, `module use '${dir}'\nmodule whatis xpu-setup 2>&1`);
    expect(r.stdout + r.stderr).toMatch(/level-zero 1\.8\.12, unified-runtime 0\.12\.0/);
    expect(r.stdout + r.stderr).toContain('/opt/a');
  });
});
