// conda-forge's level-zero with its build prefix compiled into libze_loader.so (test/support/level-zero-baked.ts: a
// loader TEST DOUBLE compiled here that keeps the feedstock's ZE_LOADER_EXTRA_DRIVER_DIR string and looks for drivers
// there, as the patched loader does), installed by the built CLI: the binary placeholder is rewritten to the prefix as
// conda rewrites it (the prefix, then NULs to the string's old end; the file keeps its size), and a program linked
// against the prefix's loader, started with no LD_LIBRARY_PATH, finds the driver in the prefix's lib.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BAKED_LOADER, buildBakedLevelZero, driverDouble } from '../support/level-zero-baked.js';
import { compileElf } from '../support/packages.js';
import type { CliRun } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('l0-baked', { more: buildBakedLevelZero });
let prefix: string;
let setup: CliRun;

beforeAll(async () => {
  prefix = fx.at('p');
  setup = await fx.run(['--component', 'level-zero', '--source', 'conda', '--conda-channel', fx.index.condaChannelUrl('level-zero-baked'), '--prefix', prefix, '--cache-dir', fx.at('cache'), '--no-probe', '--verbose']);
}, 600_000);

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
    await fs.writeFile(path.join(prefix, 'lib', driverDouble.soname), await compileElf(driverDouble, fx.at('driver')));
    const src = fx.at('zeinit.c');
    await fs.writeFile(src, '#include <stdio.h>\nextern int zeInit(int);\nint main(void) { printf("zeInit=0x%x\\n", (unsigned)zeInit(0)); return 0; }\n');
    await execa('cc', [src, '-o', fx.at('zeinit'), `-L${prefix}/lib`, '-l:libze_loader.so.1', `-Wl,-rpath,${prefix}/lib`]);
    const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' };
    const r = await execa(fx.at('zeinit'), [], { env, extendEnv: false, reject: false });
    expect(r.stdout, r.stderr).toBe('zeInit=0x0');
    // Without the driver there, the same program gets what the loader says with no driver.
    await fs.rm(path.join(prefix, 'lib', driverDouble.soname));
    const none = await execa(fx.at('zeinit'), [], { env, extendEnv: false, reject: false });
    expect(none.stdout).toBe('zeInit=0x78000001');
  });
});
