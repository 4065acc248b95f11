import { describe, expect, it } from 'vitest';
import { prefixLoader } from '../../src/bindings/ze.js';
import { isXpuError } from '../../src/base/errors.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';

const winEnv = { SystemRoot: 'C:\\Windows' };
const errorOf = async (p: Promise<unknown>): Promise<unknown> => p.then(() => undefined, (e: unknown) => e);

describe('prefixLoader: the Level Zero loader a prefix runs on', () => {
  it("on Windows takes the prefix's own ze_loader.dll first", async () => {
    const deps = fakeDeps({ platform: 'win32', env: winEnv, files: { 'C:\\p\\bin\\ze_loader.dll': '', 'C:\\Windows\\System32\\ze_loader.dll': '' } });
    expect(await prefixLoader('C:\\p', deps)).toBe('C:\\p\\bin\\ze_loader.dll');
  });

  it("on Windows falls back to the driver's System32 copy for a prefix holding only the SDK", async () => {
    const deps = fakeDeps({ platform: 'win32', env: winEnv, files: { 'C:\\Windows\\System32\\ze_loader.dll': '' } });
    expect((await prefixLoader('C:\\p', deps)).toLowerCase()).toBe('c:\\windows\\system32\\ze_loader.dll');
  });

  it('on Windows with no loader anywhere says so as NO_DEVICE, with the two ways on and no circle back to plain setup', async () => {
    const e = await errorOf(prefixLoader('C:\\p', fakeDeps({ platform: 'win32', env: winEnv, files: {} })));
    expect(isXpuError(e, 'NO_DEVICE')).toBe(true);
    const err = e as { message: string; hints: string[]; details: Record<string, unknown> };
    expect(err.message).toMatch(/^no Level Zero loader is installed on this machine: the Intel GPU driver puts ze_loader\.dll in System32/);
    expect(err.details.noLoader).toBe(true);
    expect(err.hints[0]).toMatch(/^install the Intel GPU driver/);
    expect(err.hints[1]).toContain('`xpu-setup --prefix C:\\p --include-loader-dll`');
    expect(err.hints.join('\n')).not.toMatch(/`xpu-setup --prefix C:\\p`/);
  });

  it('on Linux a prefix without its loader is NOT_FOUND: the system never stands in', async () => {
    const e = await errorOf(prefixLoader('/opt/p', fakeDeps({ platform: 'linux', files: {} })));
    expect(isXpuError(e, 'NOT_FOUND')).toBe(true);
    expect((e as Error).message).toBe('no Level Zero loader in the prefix: /opt/p/lib/libze_loader.so.1 does not exist');
  });
});
