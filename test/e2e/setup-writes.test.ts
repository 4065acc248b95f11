// Setup decides, then acts once, seen from outside the process: strace counts every rename that lands the receipt or
// an env file (each write is a temp file renamed into place), and --verbose names every archive a fetch pass handles.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { BIN, DEBIAN_12_STACK } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('setup-writes', { require: 'level-zero>=1.8' });

const RECEIPT = 'xpu-setup.receipt.json';
const ENV_FILES = ['env.sh', 'env.fish', 'env.ps1', 'env.bat', 'env.json'];

interface Traced {
  exitCode: number;
  stderr: string;
  /** Renames onto each of the prefix's own files (in the staging tree or the prefix), by file name. */
  writes: Map<string, number>;
  /** How often a fetch pass handled each archive (downloaded it or found it in the cache), by file name. */
  fetched: Map<string, number>;
  /** Fetch passes: one progress line each. */
  passes: number;
  /** The renames and removals of the run, in order, by file name. */
  events: { op: 'write' | 'remove'; file: string }[];
}

async function traced(name: string, args: string[]): Promise<Traced> {
  const log = fx.at(`${name}.strace`);
  const r = await execa('strace', ['-f', '-qq', '-e', 'trace=rename,renameat,renameat2,unlink,unlinkat', '-o', log, process.execPath, BIN, '--verbose', ...args], {
    env: fx.env,
    extendEnv: false,
    reject: false,
    timeout: 300_000,
  });
  const stderr = String(r.stderr);
  const writes = new Map<string, number>();
  const events: Traced['events'] = [];
  for (const line of (await fs.readFile(log, 'utf8')).split('\n')) {
    // rename("/p/xpu-setup.receipt.json.1a2b3c4d.tmp", "/p/xpu-setup.receipt.json") = 0
    const m = /rename(?:at2?)?\(.*"([^"]+)"(?:, \w+)?\) = 0/.exec(line);
    const target = m ? path.basename(m[1]!) : undefined;
    if (target) events.push({ op: 'write', file: target });
    if (target && (target === RECEIPT || ENV_FILES.includes(target))) writes.set(target, (writes.get(target) ?? 0) + 1);
    // unlinkat(AT_FDCWD, "/p/lib/libze_xpu_setup_refdriver-1a2b.so", 0) = 0
    const u = /unlink(?:at)?\((?:\w+, )?"([^"]+)"(?:, \w+)?\) = 0/.exec(line);
    if (u) events.push({ op: 'remove', file: path.basename(u[1]!) });
  }
  const fetched = new Map<string, number>();
  for (const m of stderr.matchAll(/\b(?:cached|fetched) (\S+) sha256 [0-9a-f]{64}/g)) fetched.set(m[1]!, (fetched.get(m[1]!) ?? 0) + 1);
  const passes = [...stderr.matchAll(/fetched and verified \d+ archives?/g)].length;
  return { exitCode: r.exitCode ?? -1, stderr, writes, fetched, passes, events };
}

describe('one setup run writes the receipt and env files twice at most and fetches each archive once', () => {
  it('a fresh --refdriver setup that builds, probes and smoke-tests: the receipt at the swap and at the end', async () => {
    const prefix = fx.at('refdriver', 'prefix');
    const r = await traced('refdriver', ['--prefix', prefix, '--cache-dir', fx.at('cache'), '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--refdriver', '--require', DEBIAN_12_STACK]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/CPU reference driver/);
    console.log(`refdriver setup: writes ${JSON.stringify(Object.fromEntries(r.writes))}, fetch passes ${r.passes}, per archive ${JSON.stringify(Object.fromEntries(r.fetched))}`);
    expect(r.writes.get(RECEIPT)).toBe(2);
    for (const f of ENV_FILES) expect(r.writes.get(f), f).toBe(2);
    expect(r.passes).toBe(1);
    expect([...r.fetched.values()].every((n) => n === 1), JSON.stringify(Object.fromEntries(r.fetched))).toBe(true);
    // The receipt names the driver the run built and its choice, as the end of the run wrote it.
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, RECEIPT), 'utf8'));
    expect(receipt.builds.refdriver.length).toBeGreaterThan(0);
    expect(receipt.extraEnv.ZE_ENABLE_ALT_DRIVERS).toMatch(/libze_xpu_setup_refdriver-[0-9a-f]+\.so/);
    expect(await fs.readFile(path.join(prefix, 'env.sh'), 'utf8')).toContain(receipt.extraEnv.ZE_ENABLE_ALT_DRIVERS);
  }, 600_000);

  it('--no-refdriver after it: the driver library leaves the prefix only after the receipt that stops listing it is written', async () => {
    const prefix = fx.at('refdriver', 'prefix');
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, RECEIPT), 'utf8'));
    const library = path.basename(receipt.extraEnv.ZE_ENABLE_ALT_DRIVERS as string);
    const r = await traced('no-refdriver', ['--prefix', prefix, '--cache-dir', fx.at('cache'), '--no-refdriver']);
    expect(r.exitCode, r.stderr).toBe(0);
    const removed = r.events.findIndex((e) => e.op === 'remove' && e.file === library);
    const lastReceipt = r.events.findLastIndex((e) => e.op === 'write' && e.file === RECEIPT);
    expect(removed, JSON.stringify(r.events)).toBeGreaterThan(-1);
    // At every moment the receipt on disk lists only files that are there.
    expect(removed).toBeGreaterThan(lastReceipt);
    const after = JSON.parse(await fs.readFile(path.join(prefix, RECEIPT), 'utf8'));
    expect(after.builds?.refdriver).toBeUndefined();
    expect(after.files.map((f: { path: string }) => f.path).filter((p: string) => p.includes('refdriver'))).toEqual([]);
  }, 600_000);

  it('a setup that decides its runtime libraries from the fetched archives fetches each archive once', async () => {
    const prefix = fx.at('gcc14', 'prefix');
    // --no-probe: the fixture libstdc++ is a test double that no program may load.
    const r = await traced('gcc14', ['--prefix', prefix, '--cache-dir', fx.at('cache-gcc14'), '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('gcc14'), '--no-probe']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/runtime library libstdcxx .*: installed/);
    console.log(`runtime-library setup: writes ${JSON.stringify(Object.fromEntries(r.writes))}, fetch passes ${r.passes}, per archive ${JSON.stringify(Object.fromEntries(r.fetched))}`);
    expect(r.fetched.size).toBeGreaterThan(1);
    expect([...r.fetched.values()].every((n) => n === 1), JSON.stringify(Object.fromEntries(r.fetched))).toBe(true);
    // The runtime decision read the other archives from the run's one fetch, which then brought libstdcxx and went
    // on into the install: one pass.
    expect(r.passes).toBe(1);
    expect(r.writes.get(RECEIPT)).toBe(1);
  }, 600_000);

  it('a re-run over that prefix reads no archive: the receipt recorded the runtime decisions these very archives gave', async () => {
    const prefix = fx.at('gcc14', 'prefix');
    const cacheDir = fx.at('cache-gcc14');
    // Nothing of the archives is left to read: a run that looked one up would download it again, and say so.
    await fs.rm(path.join(cacheDir, 'sha256'), { recursive: true, force: true });
    const from = fx.index.requests.length;
    const r = await traced('gcc14-again', ['--prefix', prefix, '--cache-dir', cacheDir, '--component', 'level-zero', '--conda-channel', fx.index.condaChannelUrl('gcc14'), '--no-probe']);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/up to date/);
    expect(r.fetched.size, JSON.stringify(Object.fromEntries(r.fetched))).toBe(0);
    expect(r.passes).toBe(0);
    expect(fx.index.requests.slice(from).map((q) => q.path).filter((p) => /\.(conda|tar\.bz2|whl)$/.test(p))).toEqual([]);
    expect(await fs.readdir(cacheDir)).not.toContain('sha256');
    expect(r.writes.get(RECEIPT)).toBeUndefined();
  }, 600_000);
});
