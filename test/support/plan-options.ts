// The planner's input as tests write it: the request's fields and the run's side by side, split into PlanOptions.
import type { PlanOptions } from '../../src/plan/plan.js';
import type { SetupRequest } from '../../src/records/plan.js';

export type PlanInput = Partial<SetupRequest> & Omit<PlanOptions, 'request'>;

/** An empty request (every component, the manifests' sources and indexes) with what `o` says in place. */
export function planOptions(o: PlanInput): PlanOptions {
  const { components = [], sources = [], indexes = {}, requires = [], refdriver = false, matchTorch, includeLoaderDll, gpus, ...run } = o;
  const request: SetupRequest = { components, sources, indexes, requires, refdriver };
  if (matchTorch) request.matchTorch = matchTorch;
  if (includeLoaderDll) request.includeLoaderDll = includeLoaderDll;
  if (gpus) request.gpus = gpus;
  return { ...run, request };
}
