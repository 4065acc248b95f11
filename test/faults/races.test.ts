// Fault matrix, runs against runs: a run that waits for the prefix lock, locks of earlier formats, a run interrupted by a signal.
import { spawn } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { execa } from 'execa';
import { afterAll, describe, expect, it } from 'vitest';
import { processStartTime } from '../../src/base/lock-owner.js';
import { BIN, DEBIAN_12_STACK } from '../e2e/cli.js';
import { FaultTable } from './matrix.js';
import { withFixtureRun } from '../support/fixture-run.js';

const table = new FaultTable('races between runs (CLI as a process, local index on 127.0.0.1)');
const fx = withFixtureRun('faults-races', { require: DEBIAN_12_STACK });

afterAll(async () => {
  table.print();
});

const receiptOf = async (prefix: string) => JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')) as { components: { name: string }[] };

/** A process that lives until killed, as a lock's owner. */
async function liveProcess(): Promise<{ pid: number; kill(): void }> {
  const p = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 120000)'], { stdio: 'ignore' });
  await new Promise((r) => p.once('spawn', r));
  return { pid: p.pid!, kill: () => void p.kill() };
}

/** Starts the CLI and resolves once its stderr matches `until` (or it ended), handing back the running process. */
function startCli(args: string[], until: RegExp) {
  const child = execa(process.execPath, [BIN, ...args], { env: fx.env, extendEnv: false, reject: false, timeout: 300_000 });
  let stderr = '';
  const seen = new Promise<void>((resolve) => {
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      if (until.test(stderr)) resolve();
    });
    void child.then(() => resolve());
  });
  return { child, seen, stderr: () => stderr };
}

describe('races between runs', () => {
  it('a run that waited for the lock while another removed a component plans again and does not put it back', async () => {
    const dir = await fs.mkdtemp(fx.at('wait-'));
    const prefix = path.join(dir, 'prefix');
    const cache = path.join(dir, 'cache');
    const channel = fx.index.condaChannelUrl('bookworm');
    const base = ['--prefix', prefix, '--cache-dir', cache, '--no-smoke', '--no-probe'];
    expect((await fx.run([...base, '--conda-channel', channel])).exitCode).toBe(0);
    // The state the other run leaves: unified-runtime removed, made here beforehand and put in place while this run waits.
    await fs.cp(prefix, `${prefix}.both`, { recursive: true, verbatimSymlinks: true });
    const removed = await fx.run([...base, '--remove', 'unified-runtime']);
    expect(removed.exitCode, removed.stderr).toBe(0);
    await fs.rename(prefix, `${prefix}.removed`);
    await fs.rename(`${prefix}.both`, prefix);
    expect((await receiptOf(prefix)).components.map((c) => c.name)).toEqual(['level-zero', 'unified-runtime']);

    const owner = await liveProcess();
    const lock = `${prefix}.xpu-setup.lock`;
    await fs.writeFile(lock, JSON.stringify({ host: os.hostname(), pid: owner.pid, startTime: processStartTime(owner.pid), since: new Date().toISOString() }));
    const t0 = Date.now();
    const run = startCli([...base, '--conda-channel', channel, '--json'], /waiting for another xpu-setup/);
    await run.seen;
    // The other run finishes: its prefix is in place, its lock gone.
    await fs.rm(prefix, { recursive: true, force: true });
    await fs.rename(`${prefix}.removed`, prefix);
    await fs.rm(lock);
    owner.kill();
    const r = await run.child;
    const names = (await receiptOf(prefix)).components.map((c) => c.name);
    table.add({ case: 'waited for the lock while another run removed a component', exit: r.exitCode ?? -1, code: r.exitCode === 0 ? '-' : '?', ms: Date.now() - t0, outside: names.includes('unified-runtime') ? 'UNIFIED-RUNTIME PUT BACK' : 'unchanged' });
    expect(r.exitCode, run.stderr()).toBe(0);
    expect(run.stderr()).toContain(`(lock file ${lock})`);
    expect(run.stderr()).toMatch(/changed while this run waited for another xpu-setup: planning again/);
    expect(names).toEqual(['level-zero']);
  });

  it.each([['SIGINT', 130], ['SIGTERM', 143]] as const)('%s while the staging tree fills: the tree and the lock are removed on the way out', async (signal, code) => {
    const dir = await fs.mkdtemp(fx.at('signal-'));
    const prefix = path.join(dir, 'prefix');
    const t0 = Date.now();
    const run = startCli(['--prefix', prefix, '--cache-dir', path.join(dir, 'cache'), '--no-smoke', '--no-probe', '--conda-channel', fx.index.condaChannelUrl('bookworm')], /$^/);
    // The staging tree appears once the first archive is in; the signal comes while it exists.
    let staging: string | undefined;
    for (let i = 0; i < 3000 && !staging; i++) {
      staging = (await fs.readdir(dir)).find((n) => n.startsWith('.prefix.xpu-setup-staging-'));
      if (!staging) await new Promise((r) => setTimeout(r, 5));
    }
    expect(staging).toBeDefined();
    const sent = Date.now();
    run.child.kill(signal);
    const r = await run.child;
    const ended = Date.now() - sent;
    // The run ends by the signal itself once it has cleaned up (a shell says 128 + its number), within a second.
    const exit = r.exitCode ?? (r.signal ? 128 + os.constants.signals[r.signal] : -1);
    const left = (await fs.readdir(dir)).filter((n) => n !== 'cache');
    table.add({ case: `${signal} during the install`, exit, code: '-', ms: Date.now() - t0, outside: left.length ? `LEFT: ${left.join(', ')}` : 'unchanged' });
    expect(exit).toBe(code);
    expect(ended).toBeLessThan(1000);
    expect(run.stderr()).toMatch(new RegExp(`interrupted \\(${signal}\\): removed .*xpu-setup-staging-.*the prefix was left as it was`));
    expect(left).toEqual([]);
  });

  it('a lock of the earlier format naming a live unrelated process is taken over, not waited for', async () => {
    const dir = await fs.mkdtemp(fx.at('old-lock-'));
    const prefix = path.join(dir, 'prefix');
    const owner = await liveProcess();
    try {
      await fs.writeFile(`${prefix}.xpu-setup.lock`, JSON.stringify({ pid: owner.pid, since: new Date(Date.now() - 3_600_000).toISOString() }));
      const t0 = Date.now();
      const r = await fx.run(['--prefix', prefix, '--cache-dir', path.join(dir, 'cache'), '--no-smoke', '--no-probe', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--component', 'level-zero', '--json']);
      const ms = Date.now() - t0;
      table.add({ case: 'lock {pid, since} naming a live process started later', exit: r.exitCode, code: r.exitCode === 0 ? '-' : JSON.parse(r.stdout).error?.code, ms, outside: 'unchanged' });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(ms).toBeLessThan(60_000);
    } finally {
      owner.kill();
    }
  });
});
