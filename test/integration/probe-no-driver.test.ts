// The real Debian loader with no Level Zero driver: probe must say why there is no device and exit 1.
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { realDeps } from '../../src/cli/real-deps.js';
import { isXpuError } from '../../src/base/errors.js';
import { Output } from '../../src/cli/output.js';
import { probeCommand } from '../../src/cli/commands/probe.js';
import { probeStack } from '../../src/probe/probe.js';
import { systemPrefix } from './probe-helpers.js';

const prefix = systemPrefix();
afterAll(() => fs.rmSync(prefix, { recursive: true, force: true }));
const root = path.join(__dirname, '..', '..');

describe('probe with no driver', () => {
  it('reports zeInit = ZE_RESULT_ERROR_UNINITIALIZED and distrusts the blank loader component rows', async () => {
    const r = await probeStack(prefix, { deps: realDeps() });
    expect(r.zeInit).toBe(0x78000001);
    expect(r.devices).toEqual([]);
    expect(r.loader.file).toBe('libze_loader.so.1.8.0');
    expect(r.loader.componentsTrusted).toBe(false);
  });

  it('the probe command fails with NO_DEVICE naming the driver libraries the loader looks for', async () => {
    const deps = { ...realDeps(), env: { ...process.env, ZE_ENABLE_ALT_DRIVERS: undefined } };
    const out = new Output({ json: false, quiet: true, verbose: false }, {});
    const err = await probeCommand.run({ deps, out, values: { prefix }, positionals: [] }).catch((e: unknown) => e);
    expect(isXpuError(err, 'NO_DEVICE')).toBe(true);
    const e = err as Error & { hints: string[] };
    expect(e.message).toBe('no Level Zero driver was found: zeInit returned ZE_RESULT_ERROR_UNINITIALIZED (0x78000001)');
    expect(e.hints.join('\n')).toContain('libze_intel_gpu.so.1: not on the library search path; libze_intel_vpu.so.1: not on the library search path');
  });

  it('rejects an unknown --format', async () => {
    const out = new Output({ json: false, quiet: true, verbose: false }, {});
    const err = await probeCommand.run({ deps: realDeps(), out, values: { prefix, format: 'yaml' }, positionals: [] }).catch((e: unknown) => e);
    expect(isXpuError(err, 'USAGE')).toBe(true);
  });

  // The CLI as a process (dist/ is built by `npm test`).
  it('`xpu-setup probe --prefix` exits 1 and explains why on stderr', () => {
    const env = { ...process.env };
    delete env.ZE_ENABLE_ALT_DRIVERS;
    const r = spawnSync(process.execPath, [path.join(root, 'bin', 'xpu-setup.js'), 'probe', '--prefix', prefix], { encoding: 'utf8', env });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('no Level Zero driver was found');
    expect(r.stderr).toContain('libze_intel_gpu.so.1');
    const j = spawnSync(process.execPath, [path.join(root, 'bin', 'xpu-setup.js'), 'probe', '--prefix', prefix, '--json'], { encoding: 'utf8', env });
    expect(j.status).toBe(1);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: false, error: { code: 'NO_DEVICE' } });
  });
});
