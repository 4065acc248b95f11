// A re-run of an installed prefix as a process: what it trusts (receipt, recorded probe), what makes it look again
// (a driver library appearing, an edited file, --probe, --verify), and that the no-op starts no program.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, DEBIAN_12_STACK, runCli } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('noop', { require: DEBIAN_12_STACK });
let args: string[];
let prefix: string;

const REPLAYED = /build, probe and smoke: nothing they depend on changed since/;

beforeAll(async () => {
  prefix = fx.at('prefix');
  args = ['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm')];
  const first = await fx.run(args);
  expect(first.exitCode, first.stderr).toBe(0);
  expect(first.stderr).not.toMatch(REPLAYED);
}, 600_000);

describe('setup run again on an installed prefix', () => {
  it('changes nothing, reports the recorded probe, and starts no program (strace: one execve, node itself)', async () => {
    const receipt = path.join(prefix, 'xpu-setup.receipt.json');
    const before = await fs.stat(receipt);
    const log = fx.at('execve.log');
    const r = await execa('strace', ['-f', '-qq', '-e', 'trace=execve', '-o', log, process.execPath, BIN, ...args], { env: fx.env, extendEnv: false, reject: false });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    expect(r.stderr).toMatch(/is up to date \(\d+ files match the receipt\)/);
    expect(r.stderr).toMatch(REPLAYED);
    const execs = (await fs.readFile(log, 'utf8')).split('\n').filter((l) => /execve\(/.test(l));
    expect(execs).toHaveLength(1);
    expect(execs[0]).toContain(process.execPath);
    expect((await fs.stat(receipt)).mtimeMs).toBe(before.mtimeMs);
  });

  it('probes again when a driver library appears on the library path', async () => {
    const drivers = fx.at('drivers');
    await fs.mkdir(drivers, { recursive: true });
    // Not a loadable library: the loader skips it, but its arrival is a change of the probe's inputs.
    await fs.writeFile(path.join(drivers, 'libze_intel_gpu.so.1'), 'xpu-setup test double: not a driver\n');
    const withDriver = { ...fx.env, LD_LIBRARY_PATH: drivers };
    const r = await runCli(args, withDriver);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(REPLAYED);
    expect(r.stderr).toMatch(/nothing could be run/);
    // The answer under these inputs is recorded now, so the next run reports it.
    expect((await runCli(args, withDriver)).stderr).toMatch(REPLAYED);
    await fs.appendFile(path.join(drivers, 'libze_intel_gpu.so.1'), 'upgraded\n');
    expect((await runCli(args, withDriver)).stderr).not.toMatch(REPLAYED);
  });

  it('probes again when asked with --probe', async () => {
    const r = await fx.run([...args, '--probe']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toMatch(REPLAYED);
  });

  it('reinstalls when an installed file changed size; --verify finds an edit that kept size and mtime', async () => {
    const header = path.join(prefix, 'include', 'level_zero', 'ze_api.h');
    const original = await fs.readFile(header);
    await fs.appendFile(header, '/* edited */\n');
    const changed = await fx.run(args);
    expect(changed.exitCode, changed.stderr).toBe(0);
    expect(changed.stderr).toMatch(/installed \d+ files into/);
    expect(await fs.readFile(header)).toEqual(original);

    // touch -r copies the timestamp to the nanosecond, which fs.utimes cannot promise.
    const stamp = fx.at('stamp');
    await execa('touch', ['-r', header, stamp]);
    const edited = Buffer.from(original);
    edited[0] = edited[0] === 0x2f ? 0x23 : 0x2f;
    await fs.writeFile(header, edited);
    await execa('touch', ['-r', stamp, header]);
    const trusted = await fx.run(args);
    expect(trusted.stderr).toMatch(/is up to date/);
    const verified = await fx.run([...args, '--verify']);
    expect(verified.exitCode, verified.stderr).toBe(0);
    expect(verified.stderr).toMatch(/installed \d+ files into/);
    expect(await fs.readFile(header)).toEqual(original);
  });
});
