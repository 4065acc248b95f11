// The doctor on this real machine (no Intel GPU): a truthful report and exit code 1.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { doctorCommand } from '../../src/cli/commands/doctor.js';
import { Output } from '../../src/cli/output.js';
import { realDeps } from '../../src/cli/real-deps.js';
import type { DoctorReport } from '../../src/doctor/index.js';

const root = path.resolve(__dirname, '../..');
const emptyPrefix = mkdtempSync(path.join(tmpdir(), 'xpu-doctor-e2e-'));
afterAll(() => rmSync(emptyPrefix, { recursive: true, force: true }));

function byId(report: DoctorReport, id: string) {
  const c = report.checks.find((x) => x.id === id);
  if (!c) throw new Error(`no check ${id}`);
  return c;
}

// No network here except the npm registry: leave the reachability check out (it has its own unit tests).
const OFFLINE_CHECKS = ['platform', 'gpu', 'kernel-driver', 'render-node', 'user-driver', 'ze-loader', 'headers', 'sdk-path', 'ur', 'env', 'compiler', 'prefix'];

describe('doctor on this machine (Debian 12, no Intel GPU, Debian libze1 1.8.12)', () => {
  it('run() prints one JSON document that says there is no Intel GPU, and returns 1', async () => {
    const writes: string[] = [];
    const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      writes.push(String(chunk));
      return true;
    });
    let code: number;
    try {
      const deps = realDeps();
      const out = new Output({ json: true, quiet: false, verbose: false }, deps.env);
      code = await doctorCommand.run({ deps, out, values: { json: true, check: OFFLINE_CHECKS, prefix: emptyPrefix }, positionals: [] });
    } finally {
      spy.mockRestore();
    }
    expect(code).toBe(1);
    const report = JSON.parse(writes.join('')) as DoctorReport;
    expect(report.schema).toBe(1);
    expect(report.checks.map((c) => c.id)).toEqual(OFFLINE_CHECKS);
    expect(byId(report, 'platform').status).toBe('ok');
    expect(byId(report, 'gpu')).toMatchObject({ status: 'fail' });
    expect(byId(report, 'gpu').message).toMatch(/no Intel GPU found/);
    expect(byId(report, 'kernel-driver').status).toBe('skip');
    // The Debian loader is real and loads; the version comes from dpkg.
    const loader = byId(report, 'ze-loader');
    expect(loader.status).toBe('ok');
    expect(loader.message).toMatch(/libze_loader\.so\.1.*1\.8\.12-1 \(dpkg libze1\).*loads/);
    // Debian's 1.8.12 headers predate ze_device_ip_version_ext_t.
    expect(byId(report, 'headers')).toMatchObject({ status: 'warn' });
    expect(byId(report, 'headers').message).toMatch(/API 1\.4.*lack ze_device_ip_version_ext_t/);
    expect(byId(report, 'user-driver').message).toMatch(/libze_intel_gpu\.so\.1 not found/);
    expect(byId(report, 'prefix')).toMatchObject({ status: 'fail' });
    expect(report.summary.exit_code).toBe(1);
  });

  it('`node bin/xpu-setup.js doctor --json` exits 1 with a JSON report on stdout', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'bin/xpu-setup.js'), 'doctor', '--json', '--check', OFFLINE_CHECKS.join(',')], {
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout) as DoctorReport;
    expect(byId(report, 'gpu').status).toBe('fail');
  });
});
