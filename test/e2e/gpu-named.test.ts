// `--gpu`: a machine without the GPU (a login node, an image build, CI) plans the GPU driver for the GPUs it names, with
// Debian 12's real 22.43 driver packages through apt: a DG2 it drives, a BMG it predates; the request, the receipt and
// the lockfile record the names, a bare re-run repeats them, and doctor here says the prefix was planned for others.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { joined, type CliRun } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('gpu-named', { noIndex: true });
let prefix: string;
let cache: string;
let setup: CliRun;

beforeAll(async () => {
  prefix = fx.at('p');
  cache = fx.at('cache');
  setup = await fx.run(['--gpu', 'dg2', '--source', 'apt', '--prefix', prefix, '--cache-dir', cache, '--no-probe']);
}, 600_000);

describe('--gpu on a machine without an Intel GPU (Debian 12, apt)', () => {
  it('a bare setup for a DG2 adds the GPU driver that drives it, says why, and records the GPU in the receipt', async () => {
    expect(setup.exitCode, setup.stderr).toBe(0);
    expect(joined(setup.stderr)).toContain('gpu-driver: adding it for DG2 (Xe-HPG), named with --gpu; compute-runtime drives DG2 (Xe-HPG) from 21.48.21782');
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    expect(receipt.request.gpus).toEqual(['dg2']);
    expect(receipt.components.map((c: { name: string; version: string }) => `${c.name} ${c.version}`)).toEqual(expect.arrayContaining(['gpu-driver 22.43.24595.41']));
    await expect(fs.stat(path.join(prefix, 'lib/libze_intel_gpu.so.1'))).resolves.toBeTruthy();
  });

  it('a bare re-run repeats the recorded GPUs; --gpu host forgets them', async () => {
    const again = await fx.run(['plan', '--prefix', prefix, '--cache-dir', cache, '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    const plan = JSON.parse(again.stdout);
    expect(plan.request.gpus).toEqual(['dg2']);
    expect(plan.gpuDriver).toMatchObject({ decision: 'asked', host: { named: true, gpus: [{ family: 'dg2' }] } });
    const back = await fx.run(['plan', '--prefix', prefix, '--cache-dir', cache, '--gpu', 'host', '--json']);
    expect(back.exitCode, back.stderr).toBe(0);
    const mine = JSON.parse(back.stdout);
    expect(mine.request.gpus).toBeUndefined();
    expect(mine.gpuDriver.host.named).toBeUndefined();
  });

  it("doctor here says the prefix was planned for a GPU this machine does not have, as a warning, not a failure", async () => {
    const r = await fx.run(['doctor', '--prefix', prefix, '--check', 'gpu', '--json']);
    const gpu = JSON.parse(r.stdout).checks.find((c: { id: string }) => c.id === 'gpu');
    expect(gpu).toMatchObject({ status: 'warn', details: { plannedFor: ['dg2'], absent: ['dg2'] } });
    expect(gpu.message).toBe(`no Intel GPU found (no display device at all); the prefix ${prefix} was planned for GPUs this machine does not have (--gpu dg2): its GPU driver was chosen for them`);
  });

  it('a BMG, which no release reachable here drives: the plan stops naming the GPU, the release it needs and what was tried', async () => {
    const r = await fx.run(['plan', '--gpu', '0xe20b', '--source', 'apt', '--prefix', fx.at('q'), '--cache-dir', cache]);
    expect(r.exitCode).toBe(1);
    const err = joined(r.stderr);
    expect(err).toContain('error: gpu-driver: no source has a version that drives Arc B580 (BMG, 0xe20b), named with --gpu: gpu-driver>=24.31.30508.5 is needed (compute-runtime drives Arc B580 (BMG, 0xe20b) from 24.31.30508.5)');
    expect(err).toContain('hint: tried apt: apt has intel-opencl-icd 22.43.24595.41-1, which does not meet gpu-driver>=24.31.30508.5');
  });

  it('the lockfile records the GPUs, and an unknown name is a usage error with the nearest family', async () => {
    const lockfile = fx.at('xpu-setup.lock.json');
    const lock = await fx.run(['lock', '--gpu', 'DG2', '--source', 'apt', '--lockfile', lockfile, '--cache-dir', cache]);
    expect(lock.exitCode, lock.stderr).toBe(0);
    const doc = JSON.parse(await fs.readFile(lockfile, 'utf8'));
    expect(doc.request.gpus).toEqual(['dg2']);
    expect(doc.platforms['linux-x64'].components.map((c: { name: string }) => c.name)).toContain('gpu-driver');
    const bad = await fx.run(['plan', '--gpu', 'bmgg', '--prefix', fx.at('r'), '--cache-dir', cache]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('error: --gpu: "bmgg" is not a GPU family or PCI device id this tool knows');
    expect(bad.stderr).toContain('did you mean --gpu bmg?');
  });
});
