// The run's indexes: made once where a command starts, shared by every plan, lock and fetch of the run.
import type { Deps } from '../base/deps.js';
import type { Reporter } from '../base/reporter.js';
import type { CachePolicy, Gateway } from '../index/gateway.js';
import type { PlanSetupOptions } from './options.js';

/**
 * The run's indexes as a command holds them, made once where it starts: the run's cache policy, and its one gateway
 * (one HTTP client, one index cache) that every plan, lock and fetch of the run reads through. The gateway is built
 * when first asked for, so a run that reuses a plan and finds the prefix up to date loads no index client.
 */
export interface RunIndex {
  readonly policy: CachePolicy;
  gateway(): Promise<Gateway>;
}

export function openRunIndex(opts: Pick<PlanSetupOptions, 'plan' | 'cachePolicy'>, deps: Deps, reporter: Reporter): RunIndex {
  const policy = opts.cachePolicy ?? 'use-cache';
  let made: Promise<Gateway> | undefined;
  return {
    policy,
    gateway: () => (made ??= import('../index/gateway.js').then((m) => m.openGateway(deps, { cacheDir: opts.plan.cacheDir, policy, reporter }))),
  };
}
