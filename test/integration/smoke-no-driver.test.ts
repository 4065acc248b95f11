// The smoke test against the real loader with no driver, and the result checker it relies on.
import * as fs from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { realDeps } from '../../src/cli/real-deps.js';
import { isXpuError } from '../../src/base/errors.js';
import { silentReporter } from '../../src/base/reporter.js';
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
  const n = 1024;
  const a = Float32Array.from({ length: n }, (_, i) => i * 0.5);
  const b = Float32Array.from({ length: n }, (_, i) => 1000 - i);
  const exact = () => Float32Array.from(a, (x, i) => x + b[i]!);

  it('accepts exact sums and counts every compared value', () => {
    expect(checkVectorAdd(a, b, exact())).toEqual({ checked: 1024, wrong: 0, first: undefined });
  });

  it('reports the first wrong index with both values, and how many are wrong', () => {
    const c = exact();
    c[37] = c[37]! + 1;
    c[50] = 0;
    expect(checkVectorAdd(a, b, c)).toEqual({ checked: 1024, wrong: 2, first: { index: 37, got: 1000 - 37 + 18.5 + 1, expected: 1000 - 37 + 18.5 } });
  });

  it('finds an error in the last element', () => {
    const c = exact();
    c[n - 1] = c[n - 1]! + 1;
    expect(checkVectorAdd(a, b, c)).toMatchObject({ checked: 1024, wrong: 1, first: { index: 1023, got: 1023 * 0.5 + 1000 - 1023 + 1 } });
  });

  it('finds the unwritten half of a kernel that wrote only part of the buffer, and a NaN', () => {
    const c = exact();
    c.fill(-1, n / 2);
    expect(checkVectorAdd(a, b, c)).toMatchObject({ checked: 1024, wrong: 512, first: { index: 512, got: -1, expected: 744 } });
    const d = exact();
    d[700] = Number.NaN;
    expect(checkVectorAdd(a, b, d)).toMatchObject({ wrong: 1, first: { index: 700 } });
  });

  it('takes the median of an even and odd count', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    // `runs: 0` times no steady launches: the median is 0, not NaN.
    expect(median([])).toBe(0);
  });
});
