// conda-forge's level-zero with its build prefix compiled into libze_loader.so (test/support/level-zero-baked.ts: a
// loader TEST DOUBLE compiled here that keeps the feedstock's ZE_LOADER_EXTRA_DRIVER_DIR string and looks for drivers
// there, as the patched loader does), installed by the built CLI: the binary placeholder is rewritten to the prefix as
// conda rewrites it (the prefix, then NULs to the string's old end; the file keeps its size), and a program linked
// against the prefix's loader, started with no LD_LIBRARY_PATH, finds the driver in the prefix's lib.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureIndex, type FixtureIndex } from '../support/index-server.js';
import { BAKED_LOADER, buildBakedLevelZero, driverDouble } from '../support/level-zero-baked.js';
import { buildFixturePackages, compileElf } from '../support/packages.js';
import { runCli, scrubbedEnv, tempDir, type CliRun } from './cli.js';

let index: FixtureIndex;
let work: string;
let prefix: string;
let setup: CliRun;

beforeAll(async () => {
  const [base, baked] = await Promise.all([buildFixturePackages(), buildBakedLevelZero()]);
  index = await startFixtureIndex({ fixtures: { ...base, artifacts: [...base.artifacts, ...baked] } });
  work = await tempDir('l0-baked');
  prefix = path.join(work, 'p');
  setup = await runCli(['--component', 'level-zero', '--source', 'conda', '--conda-channel', index.condaChannelUrl('level-zero-baked'), '--prefix', prefix, '--cache-dir', path.join(work, 'cache'), '--no-probe', '--verbose'], scrubbedEnv(path.join(work, 'home')));
}, 600_000);

afterAll(async () => {
  await index?.close();
  if (work) await fs.rm(work, { recursive: true, force: true });
});

describe("conda-forge's level-zero with its build prefix compiled into the loader (file_mode binary)", () => {
  it('rewrites the placeholder in libze_loader.so to the prefix, padded with NULs to its old length', async () => {
    expect(setup.exitCode, setup.stderr).toBe(0);
    const bytes = await fs.readFile(path.join(prefix, BAKED_LOADER.file));
    const { placeholder } = BAKED_LOADER;
    expect(bytes.includes(Buffer.from(placeholder))).toBe(false);
    const at = bytes.indexOf(Buffer.from(`${prefix}/lib\0`));
    expect(at).toBeGreaterThan(0);
    // The string's old end: the placeholder and "/lib", then its NUL; everything after the new text up to it is NUL.
    const oldLength = placeholder.length + '/lib'.length;
    expect(bytes.subarray(at + `${prefix}/lib`.length, at + oldLength + 1).every((b) => b === 0)).toBe(true);
  });

  it("a program linked against the prefix's loader, with no LD_LIBRARY_PATH, loads the driver in the prefix's lib through the compiled-in directory", async () => {
    expect(setup.exitCode, setup.stderr).toBe(0);
    // A driver where a GPU driver component would put it (the test double answers zeInit with 0).
    await fs.writeFile(path.join(prefix, 'lib', driverDouble.soname), await compileElf(driverDouble, path.join(work, 'driver')));
    const src = path.join(work, 'zeinit.c');
    await fs.writeFile(src, '#include <stdio.h>\nextern int zeInit(int);\nint main(void) { printf("zeInit=0x%x\\n", (unsigned)zeInit(0)); return 0; }\n');
    await execa('cc', [src, '-o', path.join(work, 'zeinit'), `-L${prefix}/lib`, '-l:libze_loader.so.1', `-Wl,-rpath,${prefix}/lib`]);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const r = await execa(path.join(work, 'zeinit'), [], { env, extendEnv: false, reject: false });
    expect(r.stdout, r.stderr).toBe('zeInit=0x0');
    // Without the driver there, the same program gets what the loader says with no driver.
    await fs.rm(path.join(prefix, 'lib', driverDouble.soname));
    const none = await execa(path.join(work, 'zeinit'), [], { env, extendEnv: false, reject: false });
    expect(none.stdout).toBe('zeInit=0x78000001');
  });
});
