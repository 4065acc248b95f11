// `npm test` starts with scripts/test-prereqs.mjs: a missing system package stops it at once with the command that fixes it.
import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const script = join(import.meta.dirname, '..', '..', 'scripts', 'test-prereqs.mjs');
const run = (args: string[], env: Record<string, string> = {}) =>
  promisify(execFile)(process.execPath, [script, ...args], { env: { ...process.env, ...env } }).then(
    (r) => ({ code: 0, stderr: r.stderr }),
    (e: { code: number; stderr: string }) => ({ code: e.code, stderr: e.stderr }),
  );

describe('test prerequisites', () => {
  it('stops with the exact apt command when a package is missing and installing is not allowed', async () => {
    const list = join(await mkdtemp(join(tmpdir(), 'prereqs-')), 'packages.txt');
    await writeFile(list, '# a comment\nlibze1\nxpu-setup-no-such-package  # explained\n');
    const r = await run(['--list', list], { XPU_SETUP_TEST_NO_APT: '1' });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('missing Debian packages: xpu-setup-no-such-package\n');
    expect(r.stderr).toMatch(/fix: (sudo )?apt-get update && (sudo )?apt-get install -y --no-install-recommends xpu-setup-no-such-package\n/);
  });

  it('passes on this machine with the project lists', async () => {
    const r = await run([], { XPU_SETUP_TEST_NO_APT: '1' });
    expect(r).toEqual({ code: 0, stderr: '' });
  });
});
