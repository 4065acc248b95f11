// Which files a run includes, as the suite-wide setups read it: the Wine head start only for runs of the Windows suite.
import { describe, expect, it } from 'vitest';
import { runIncludes } from '../support/run-files.js';

const selectsWindowsSuite = (filters: string[] | undefined) => runIncludes(filters, 'test/windows/wine.test.ts');

describe('the Windows suite head start', () => {
  it('starts for the whole suite and for filters that name the Windows suite', () => {
    expect(selectsWindowsSuite(undefined)).toBe(true);
    expect(selectsWindowsSuite(['test/windows/wine.test.ts'])).toBe(true);
    expect(selectsWindowsSuite(['test/windows'])).toBe(true);
    expect(selectsWindowsSuite(['wine'])).toBe(true);
    expect(selectsWindowsSuite(['test/unit/map.test.ts', 'test/windows/'])).toBe(true);
    expect(selectsWindowsSuite(['/home/me/xpu-setup/test/windows/wine.test.ts'])).toBe(true);
  });

  it('does not start for runs of other files', () => {
    expect(selectsWindowsSuite(['test/unit/map.test.ts'])).toBe(false);
    expect(selectsWindowsSuite(['test/e2e', 'test/faults/network.test.ts'])).toBe(false);
    expect(selectsWindowsSuite(['test/windows/env-bat.test.ts'])).toBe(false);
  });
});
