// The typed error a promise rejects with; anything else (a resolve, an untyped error) fails the test.
import { XpuError } from '../../src/base/errors.js';

export async function failure(p: Promise<unknown>): Promise<XpuError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof XpuError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}

/** The USAGE error a call throws; anything else (a return, another error) fails the test. */
export function usage(f: () => unknown): XpuError {
  try {
    f();
  } catch (e) {
    if (e instanceof XpuError && e.code === 'USAGE') return e;
    throw e;
  }
  throw new Error('no usage error');
}
