// After install: the environment probe and smoke of a prefix run with (the loader reads it when it is loaded).
import type { Deps } from '../base/deps.js';
import type { Receipt } from '../records/receipt.js';

/**
 * `deps` with the variables the prefix's env files set for the runtime (the reference driver's choice) added where
 * its environment lacks them, so probe and smoke see what a user who sourced env.sh would see. The caller's
 * environment is left as it was: the loader is handed this one when it is loaded (bindings/ze.ts).
 */
export function withPrefixEnv<D extends Pick<Deps, 'env'>>(receipt: Receipt | undefined, deps: D): D {
  const added = Object.entries(receipt?.extraEnv ?? {}).filter(([k]) => deps.env[k] === undefined);
  return added.length ? { ...deps, env: { ...deps.env, ...Object.fromEntries(added) } } : deps;
}
