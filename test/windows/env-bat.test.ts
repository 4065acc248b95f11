// env.bat in Wine's cmd: switching from a --refdriver prefix to a plain one leaves nothing of the first behind, and
// `call env.bat deactivate` puts back what was there before either.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envVars, renderEnv } from '../../src/install/env.js';
import { WIN_CACHE, missingPackages, prepare, runCmd, winPath } from './wine.js';

let dir: string;

beforeAll(async () => {
  const missing = await missingPackages();
  if (missing) throw new Error(`the Windows suite cannot run: ${missing}`);
  await prepare();
  dir = await fs.mkdtemp(path.join(WIN_CACHE, 'env-bat-'));
});

afterAll(async () => {
  if (dir) await fs.rm(dir, { recursive: true, force: true });
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
});
