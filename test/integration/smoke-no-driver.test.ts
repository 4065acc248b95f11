// The smoke test against the real loader with no driver, and the result checker it relies on.
import * as fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { realDeps } from '../../src/real-deps.js';
import { isXpuError } from '../../src/errors.js';
import { silentReporter } from '../../src/reporter.js';
import { checkVectorAdd, median, runSmoke } from '../../src/smoke/index.js';
import { systemPrefix } from './probe-helpers.js';

const prefix = systemPrefix();
afterAll(() => fs.rmSync(prefix, { recursive: true, force: true }));

describe('smoke without a driver', () => {
  it('fails with NO_DEVICE and names libze_intel_gpu.so.1', async () => {
    const deps = { ...realDeps(), env: { ...process.env, ZE_ENABLE_ALT_DRIVERS: undefined } };
    const err = await runSmoke(prefix, { deps, reporter: silentReporter }).catch((e: unknown) => e);
    expect(isXpuError(err, 'NO_DEVICE')).toBe(true);
    expect((err as { hints: string[] }).hints[0]).toContain('libze_intel_gpu.so.1');
  });

  it('fails clearly when the prefix has no loader', async () => {
    const err = await runSmoke('/nonexistent-prefix', { deps: realDeps(), reporter: silentReporter }).catch((e: unknown) => e);
    expect(isXpuError(err, 'NOT_FOUND')).toBe(true);
  });
});

describe('result checker', () => {
  const a = Float32Array.from({ length: 64 }, (_, i) => i * 0.5);
  const b = Float32Array.from({ length: 64 }, (_, i) => 1000 - i);
  it('accepts exact sums and reports the first wrong index with both values', () => {
    const c = Float32Array.from(a, (x, i) => x + b[i]!);
    expect(checkVectorAdd(a, b, c)).toBeUndefined();
    c[37] = c[37]! + 1;
    c[50] = 0;
    expect(checkVectorAdd(a, b, c)).toEqual({ index: 37, got: 1000 - 37 + 18.5 + 1, expected: 1000 - 37 + 18.5, wrong: 2 });
  });
  it('takes the median of an even and odd count', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});
