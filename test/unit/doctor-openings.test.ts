// The openings the doctor checks share (src/doctor/checks/shared.ts), each outcome to the letter: the skips on Windows'
// display driver and without an Intel GPU, and a probe or smoke run that fails to start.
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runDoctor, type DoctorReport } from '../../src/doctor/index.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { buildTree, NO_GPU } from '../fixtures/detect/sysfs-trees.js';

const outcomes = (r: DoctorReport) => Object.fromEntries(r.checks.map((c) => [c.id, { status: c.status, message: c.message }]));

describe('the checks that judge a GPU', () => {
  it("on Windows' display driver: firmware, rebar and ocloc skip first, each saying why; kernel-driver and driver-version ask for the GPU first", async () => {
    const deps = fakeDeps({ platform: 'win32', env: { SystemRoot: 'C:\\Windows', PATH: 'C:\\Windows\\System32' }, exists: () => false, files: {} });
    const r = await runDoctor({ ...deps, started: undefined }, { only: ['firmware', 'rebar', 'ocloc', 'kernel-driver', 'driver-version'], prefix: 'C:\\xpu' });
    expect(outcomes(r)).toEqual({
      firmware: { status: 'skip', message: 'the display driver carries its firmware' },
      rebar: { status: 'skip', message: 'Windows: see the GPU vendor tool for Resizable BAR' },
      ocloc: { status: 'skip', message: 'Windows: PyTorch Inductor builds SPIR-V kernels there, and the display driver carries the compiler' },
      'kernel-driver': { status: 'skip', message: 'no Intel GPU' },
      'driver-version': { status: 'skip', message: 'no Intel GPU' },
    });
  });

  it('on Linux without an Intel GPU: each skips with "no Intel GPU"', async () => {
    const root = buildTree(NO_GPU);
    try {
      const r = await runDoctor({ ...fakeDeps(), started: undefined }, { only: ['firmware', 'rebar', 'kernel-driver', 'driver-version'], prefix: path.join(root, 'prefix'), root });
      const skip = { status: 'skip', message: 'no Intel GPU' };
      expect(outcomes(r)).toEqual({ firmware: skip, rebar: skip, 'kernel-driver': skip, 'driver-version': skip });
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the checks that run the CLI', () => {
  it('a probe or smoke run that cannot start fails, naming what failed and why, with the fix each gives', async () => {
    const r = await runDoctor({ ...fakeDeps(), started: undefined }, { only: ['probe', 'smoke'], prefix: '/nonexistent/xpu' });
    const [probe, smoke] = ['probe', 'smoke'].map((id) => r.checks.find((c) => c.id === id)!);
    expect(probe).toMatchObject({ status: 'fail', message: expect.stringMatching(/^the probe failed: could not run \S+xpu-setup\.js: spawn \S+ ENOENT$/), fix: 'see the loader and driver checks above' });
    expect(smoke).toMatchObject({ status: 'fail', message: expect.stringMatching(/^the smoke test failed: could not run \S+xpu-setup\.js: spawn \S+ ENOENT$/), fix: 'see the device probe above' });
  });
});
