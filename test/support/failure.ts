// The typed error a promise rejects with; anything else (a resolve, an untyped error) fails the test.
import { XpuError } from '../../src/errors.js';

export async function failure(p: Promise<unknown>): Promise<XpuError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof XpuError) return e;
    throw e;
  }
  throw new Error('expected a failure');
}
