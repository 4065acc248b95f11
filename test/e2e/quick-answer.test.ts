// The quick answer of a setup run that changes nothing (src/cache/quick-answers.ts): the record a no-op keeps, the
// same command answered from it without the bundle, and each kind of change that sends the run back to the CLI.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BIN, DEBIAN_12_STACK, REPO } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('quick-answer', { require: DEBIAN_12_STACK });
/** Written into the record's first line by the tests: a run that prints it was answered from the record. */
const MARK = ' [answered from the record]';
/** The command line without --no-probe. */
let probing: string[];
let args: string[];
let env: Record<string, string>;
let prefix: string;
let answers: string;
let manifests: string;
/** An empty directory first on PATH: what the run looks for there (an `xpu-setup` command) is part of its answer. */
let onPath: string;

const run = (extra: string[] = [], more: Record<string, string> = {}) => fx.run([...args, ...extra], { env: { ...env, ...more } });

async function recordFile(): Promise<string> {
  const names = await fs.readdir(answers);
  expect(names).toHaveLength(1);
  return path.join(answers, names[0]!);
}

/** A fresh record from a full no-op run (of `args`, else of the file's own), its first write marked. */
async function markedRecord(noop: () => ReturnType<typeof run> = () => run()): Promise<void> {
  await fs.rm(answers, { recursive: true, force: true });
  const full = await noop();
  expect(full.exitCode, full.stderr).toBe(0);
  expect(full.stderr).toMatch(/is up to date/);
  const file = await recordFile();
  const record = JSON.parse(await fs.readFile(file, 'utf8'));
  record.writes[0][1] = record.writes[0][1].replace(/\n$/, `${MARK}\n`);
  await fs.writeFile(file, JSON.stringify(record));
}

beforeAll(async () => {
  prefix = fx.at('prefix');
  answers = fx.at('cache', 'answers');
  manifests = fx.at('manifests');
  onPath = fx.at('bin');
  await fs.mkdir(onPath, { recursive: true });
  await fs.cp(path.join(REPO, 'manifests'), manifests, { recursive: true });
  env = { ...fx.env, PATH: `${onPath}:${fx.env.PATH}` };
  probing = ['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--manifests', manifests];
  args = [...probing, '--no-probe'];
  const first = await run();
  expect(first.exitCode, first.stderr).toBe(0);
  expect(first.stderr).toMatch(/installed \d+ files into/);
}, 600_000);

beforeEach(async () => {
  await fs.rm(onPath, { recursive: true, force: true });
  await fs.mkdir(onPath, { recursive: true });
});

describe('a setup run that changes nothing', () => {
  it('keeps a record; the same command is answered from it without loading the CLI, as the CLI answered it', async () => {
    await fs.rm(answers, { recursive: true, force: true });
    const full = await run();
    expect(full.exitCode, full.stderr).toBe(0);
    await recordFile();
    const log = fx.at('open.log');
    const r = await execa('strace', ['-f', '-qq', '-e', 'trace=openat,execve', '-o', log, process.execPath, BIN, ...args], { env, extendEnv: false, reject: false, cwd: REPO });
    expect(r.exitCode, String(r.stderr)).toBe(0);
    const opened = await fs.readFile(log, 'utf8');
    expect(opened).toContain('xpu-setup-quick.cjs');
    // Neither the bundle's code cache nor any dependency file: the CLI was not loaded.
    expect(opened).not.toMatch(/\.v8cache|xpu-setup-vendor-/);
    expect(opened.split('\n').filter((l) => /execve\(/.test(l))).toHaveLength(1);
    const withoutSeconds = (s: string) => s.replace(/done in \d+\.\d s\./, 'done in N s.');
    expect(withoutSeconds(String(r.stderr))).toBe(withoutSeconds(full.stderr));
    expect(r.stdout).toBe(full.stdout);
  });

  it('answers from the record while nothing it read changed', async () => {
    await markedRecord();
    const r = await run();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toContain(MARK);
    // XPU_SETUP_QUICK=0 is another environment as well; the CLI answers and records nothing over the record.
    const off = await run([], { XPU_SETUP_QUICK: '0' });
    expect(off.stderr).not.toContain(MARK);
    expect(JSON.parse(await fs.readFile(await recordFile(), 'utf8')).writes[0][1]).toContain(MARK);
  });

  it('runs the CLI when the environment differs, which keeps a record of its own beside the first', async () => {
    await markedRecord();
    const r = await run([], { XPU_SETUP_TEST_UNRELATED: '1' });
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(MARK);
    expect(r.stderr).toMatch(/is up to date/);
    expect(await fs.readdir(answers)).toHaveLength(2);
    expect((await run()).stderr).toContain(MARK);
  });

  it('runs the CLI, which reinstalls, when an installed file changed', async () => {
    await markedRecord();
    const header = path.join(prefix, 'include', 'level_zero', 'ze_api.h');
    const original = await fs.readFile(header);
    await fs.appendFile(header, '/* edited */\n');
    const r = await run();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(MARK);
    expect(r.stderr).toMatch(/installed \d+ files into/);
    expect(await fs.readFile(header)).toEqual(original);
  });

  it('runs the CLI when something the run looked at through the machine changed (a command on PATH)', async () => {
    await markedRecord();
    await fs.writeFile(path.join(onPath, 'xpu-setup'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    const r = await run();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(MARK);
  });

  it('keeps no record when an installed file was only touched: the CLI finds its bytes unchanged, the record could not', async () => {
    const header = path.join(prefix, 'include', 'level_zero', 'ze_api.h');
    // touch -r copies the timestamp to the nanosecond, which fs.utimes cannot promise.
    const stamp = fx.at('stamp');
    await execa('touch', ['-r', header, stamp]);
    await execa('touch', [header]);
    try {
      await fs.rm(answers, { recursive: true, force: true });
      const r = await run();
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).toMatch(/is up to date/);
      expect(await fs.readdir(answers).catch(() => [])).toEqual([]);
    } finally {
      await execa('touch', ['-r', stamp, header]);
    }
  });

  it('runs the CLI when a manifest changed', async () => {
    await markedRecord();
    const file = path.join(manifests, 'level-zero.json');
    await fs.appendFile(file, '\n');
    try {
      const r = await run();
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stderr).not.toContain(MARK);
    } finally {
      await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace(/\n\n$/, '\n'));
    }
  });

  it('runs the CLI once the plan it reused is past its reuse time', async () => {
    await markedRecord();
    const file = await recordFile();
    const record = JSON.parse(await fs.readFile(file, 'utf8'));
    record.planMadeAt = Date.now() - record.reuseMs - 1;
    await fs.writeFile(file, JSON.stringify(record));
    const r = await run();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(MARK);
  });

  it('answers --json with the document the CLI wrote, its seconds this run\'s', async () => {
    await fs.rm(answers, { recursive: true, force: true });
    const full = await run(['--json']);
    expect(full.exitCode, full.stderr).toBe(0);
    const quick = await run(['--json']);
    expect(quick.exitCode, quick.stderr).toBe(0);
    const [a, b] = [JSON.parse(full.stdout), JSON.parse(quick.stdout)];
    expect(typeof b.seconds).toBe('number');
    expect({ ...b, seconds: 0 }).toEqual({ ...a, seconds: 0 });
    expect(a.changed).toBe(false);
  });
});

describe('a run that gives the receipt\'s probe answer again', () => {
  it('is answered from the record until a driver library appears on the library path', async () => {
    const REPLAYED = /build, probe and smoke: nothing they depend on changed since/;
    const drivers = fx.at('drivers');
    await fs.mkdir(drivers, { recursive: true });
    const probeEnv = { ...env, LD_LIBRARY_PATH: drivers };
    const again = () => fx.run(probing, { env: probeEnv });
    const probed = await again();
    expect(probed.exitCode, probed.stderr).toBe(0);
    expect(probed.stderr).not.toMatch(REPLAYED);
    await markedRecord(async () => {
      const r = await again();
      expect(r.stderr).toMatch(REPLAYED);
      return r;
    });
    const quick = await again();
    expect(quick.stderr).toContain(MARK);
    expect(quick.stderr).toMatch(REPLAYED);
    // Not a loadable library: the loader skips it, but its arrival is a change of what the answer rests on.
    await fs.writeFile(path.join(drivers, 'libze_intel_gpu.so.1'), 'xpu-setup test double: not a driver\n');
    const r = await again();
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).not.toContain(MARK);
    expect(r.stderr).not.toMatch(REPLAYED);
  });
});
