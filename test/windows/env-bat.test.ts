// env.bat in Wine's cmd: switching from a --refdriver prefix to a plain one leaves nothing of the first behind,
// `call env.bat deactivate` puts back what was there before either, and paths holding `%`, `!`, `^` and `&` arrive
// as they are, with and without delayed expansion.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { envVars, renderEnv } from '../../src/shells/env.js';
import { reportSkip } from '../support/skips.js';
import { WIN_CACHE, holdWinePrefix, missingPackages, prepare, runCmd, winPath } from './wine.js';

let dir: string;
let release: (() => Promise<void>) | undefined;
/** Why this machine cannot run Wine at all (its root cannot be built here), when that is so. */
let cannotRun: string | undefined;

beforeAll(async () => {
  const missing = await missingPackages();
  if (missing) throw new Error(`the Windows suite cannot run: ${missing}`);
  cannotRun = await prepare();
  if (cannotRun) {
    reportSkip('env.bat under Wine', cannotRun);
    return;
  }
  release = await holdWinePrefix();
  dir = await fs.mkdtemp(path.join(WIN_CACHE, 'env-bat-'));
});

beforeEach((ctx) => {
  if (cannotRun) ctx.skip(cannotRun);
});

afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
  await release?.();
});

describe('env.bat in wine cmd', () => {
  it('a plain prefix after a --refdriver one drops ZE_ENABLE_ALT_DRIVERS; deactivate restores INCLUDE and unsets the rest', async () => {
    const ref = renderEnv(envVars('C:\\ref', 'win-x64', { ZE_ENABLE_ALT_DRIVERS: 'C:\\ref\\bin\\ze_xpu_setup_refdriver.dll' }), 'cmd', 'win-x64');
    // A path with parentheses, as under C:\Program Files (x86): cmd's blocks must not end at its ")".
    const plain = renderEnv(envVars('C:\\plain (x86)', 'win-x64'), 'cmd', 'win-x64');
    await fs.writeFile(path.join(dir, 'ref.bat'), ref);
    await fs.writeFile(path.join(dir, 'plain.bat'), plain);
    const a = winPath(path.join(dir, 'ref.bat'));
    const b = winPath(path.join(dir, 'plain.bat'));
    const show = (tag: string) => `echo ${tag} ALT=[%ZE_ENABLE_ALT_DRIVERS%] INCLUDE=[%INCLUDE%] SDK=[%LEVEL_ZERO_V1_SDK_PATH%]`;
    const r = await runCmd([
      'set "INCLUDE=C:\\msvc\\include"',
      `call "${a}"`, show('ref'),
      `call "${b}"`, `call "${b}"`, show('plain'),
      `call "${b}" deactivate`, show('deactivated'),
      'set _XPU_SETUP',
    ].join('\n'));
    expect(r.stdout.split(/\r?\n/).filter((l) => l.startsWith('ref ') || l.startsWith('plain ') || l.startsWith('deactivated ') || l.startsWith('_XPU'))).toEqual([
      'ref ALT=[C:\\ref\\bin\\ze_xpu_setup_refdriver.dll] INCLUDE=[C:\\ref\\include;C:\\msvc\\include] SDK=[C:\\ref]',
      'plain ALT=[] INCLUDE=[C:\\plain (x86)\\include;C:\\msvc\\include] SDK=[C:\\plain (x86)]',
      'deactivated ALT=[] INCLUDE=[C:\\msvc\\include] SDK=[]',
    ]);
  });

  // Wine's cmd differs from Windows' in three ways that decide what can be run here: it reads again what `%VAR%`
  // inserts (a `%` in a variable's value is lost when the value is read back), it has no `!VAR:~n,m!`, and its
  // delayed expansion has no caret step (`^!` stays `^` plus an expansion). So each case below keeps to what Wine
  // does as Windows does; the lines for the rest (a `!` with delayed expansion on) are checked as text in
  // test/unit/env-render.test.ts against cmd's documented reading.
  it('a path with `%`, `!`, `^`, `&` and (x86): exact values, once when called twice, restored by deactivate, with and without delayed expansion', async () => {
    const files: Record<string, string> = { bang: 'C:\\x!y^z & w (x86)', pct: 'C:\\p%q', dpct: 'C:\\p%q^r (x86)', dcaret: 'C:\\q^r & s (x86)' };
    const bat: Record<string, string> = {};
    for (const [name, prefix] of Object.entries(files)) {
      await fs.writeFile(path.join(dir, `${name}.bat`), renderEnv(envVars(prefix, 'win-x64'), 'cmd', 'win-x64'));
      bat[name] = winPath(path.join(dir, `${name}.bat`));
    }
    // `set NAME` prints the value itself (echo would read it again).
    const show = (tag: string) => [`echo ${tag}`, 'if defined LEVEL_ZERO_V1_SDK_PATH (set LEVEL_ZERO_V1_SDK_PATH) else (echo LEVEL_ZERO_V1_SDK_PATH unset)', 'set INCLUDE'];
    const r = await runCmd([
      'set "INCLUDE=C:\\msvc\\include"',
      `call "${bat.bang}"`, `call "${bat.bang}"`, ...show('bang'),
      `call "${bat.bang}" deactivate`,
      `call "${bat.pct}"`, ...show('pct'),
      `call "${bat.pct}" deactivate`, ...show('plain-restored'),
      'setlocal EnableDelayedExpansion',
      `call "${bat.dpct}"`, ...show('delayed-pct'),
      `call "${bat.dpct}" deactivate`,
      `call "${bat.dcaret}"`, `call "${bat.dcaret}"`, ...show('delayed-caret'),
      `call "${bat.dcaret}" deactivate`, ...show('delayed-restored'),
    ].join('\n'));
    const out = r.stdout.split(/\r?\n/).filter((l) => /^(bang|pct|plain-restored|delayed-\w+)$|^(LEVEL_ZERO_V1_SDK_PATH|INCLUDE)[= ]/.test(l));
    expect(out).toEqual([
      'bang', 'LEVEL_ZERO_V1_SDK_PATH=C:\\x!y^z & w (x86)', 'INCLUDE=C:\\x!y^z & w (x86)\\include;C:\\msvc\\include',
      'pct', 'LEVEL_ZERO_V1_SDK_PATH=C:\\p%q', 'INCLUDE=C:\\p%q\\include;C:\\msvc\\include',
      'plain-restored', 'LEVEL_ZERO_V1_SDK_PATH unset', 'INCLUDE=C:\\msvc\\include',
      'delayed-pct', 'LEVEL_ZERO_V1_SDK_PATH=C:\\p%q^r (x86)', 'INCLUDE=C:\\p%q^r (x86)\\include;C:\\msvc\\include',
      'delayed-caret', 'LEVEL_ZERO_V1_SDK_PATH=C:\\q^r & s (x86)', 'INCLUDE=C:\\q^r & s (x86)\\include;C:\\msvc\\include',
      'delayed-restored', 'LEVEL_ZERO_V1_SDK_PATH unset', 'INCLUDE=C:\\msvc\\include',
    ]);
  });
});
