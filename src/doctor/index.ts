// The doctor: picks the checks, runs them against shared detection facts, and builds the versioned report.
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import { nearest } from '../base/spelling.js';
import { defaultPrefix, runningPlatform } from '../platform/index.js';
import type { Receipt } from '../records/receipt.js';
import { VERSION } from '../base/version.js';
import { compilerCheck } from './checks/compiler.js';
import { driverVersionCheck } from './checks/driver-version.js';
import { envCheck } from './checks/env.js';
import { firmwareCheck } from './checks/firmware.js';
import { gpuCheck } from './checks/gpu.js';
import { headersCheck } from './checks/headers.js';
import { kernelDriverCheck } from './checks/kernel-driver.js';
import { networkCheck } from './checks/network.js';
import { oclocCheck } from './checks/ocloc.js';
import { platformCheck } from './checks/platform.js';
import { librariesCheck } from './checks/libraries.js';
import { prefixCheck } from './checks/prefix.js';
import { probeCheck } from './checks/probe.js';
import { rebarCheck } from './checks/rebar.js';
import { renderNodeCheck } from './checks/render-node.js';
import { sdkPathCheck } from './checks/sdk-path.js';
import { smokeCheck } from './checks/smoke.js';
import { tracingLayerCheck } from './checks/tracing-layer.js';
import { tritonEnvCheck } from './checks/triton-env.js';
import { urCheck } from './checks/ur.js';
import { userDriverCheck } from './checks/user-driver.js';
import { wslCheck } from './checks/wsl.js';
import { zeLoaderCheck } from './checks/ze-loader.js';
import { Facts } from './facts.js';
import { runChecks, summarize } from './runner.js';
import { DOCTOR_SCHEMA, type Check, type DoctorContext, type DoctorReport, type IndexList } from './types.js';

export * from './types.js';
export { renderHuman, shouldColor } from './render.js';
export { exitCodeFor } from './runner.js';

/** In report order. */
export const ALL_CHECKS: readonly Check[] = [
  platformCheck,
  gpuCheck,
  kernelDriverCheck,
  firmwareCheck,
  rebarCheck,
  wslCheck,
  renderNodeCheck,
  userDriverCheck,
  driverVersionCheck,
  zeLoaderCheck,
  tracingLayerCheck,
  headersCheck,
  sdkPathCheck,
  urCheck,
  envCheck,
  compilerCheck,
  oclocCheck,
  prefixCheck,
  librariesCheck,
  networkCheck,
  probeCheck,
  tritonEnvCheck,
  smokeCheck,
];

/** The checks to run: all (smoke ones only with --smoke), or exactly the named ones. Unknown ids are a usage error. */
export function selectChecks(ids: string[], smoke: boolean, checks: readonly Check[] = ALL_CHECKS): Check[] {
  if (ids.length === 0) return checks.filter((c) => smoke || !c.smokeOnly);
  const known = new Set(checks.map((c) => c.id));
  const unknown = ids.filter((i) => !known.has(i));
  if (unknown.length) {
    throw new XpuError('USAGE', `unknown check ${unknown.map((u) => `"${u}"`).join(', ')}`, {
      hints: [
        ...unknown.flatMap((u) => {
          const guess = nearest(u, checks.map((c) => c.id));
          return guess ? [`did you mean ${guess}?`] : [];
        }),
        `checks: ${checks.map((c) => c.id).join(', ')}`,
      ],
    });
  }
  return checks.filter((c) => ids.includes(c.id));
}

export interface DoctorOptions {
  prefix?: string;
  strict?: boolean;
  smoke?: boolean;
  verbose?: boolean;
  only?: string[];
  /** The index URLs setup would use here, for the network check when the prefix records none. */
  indexes?: IndexList;
  /** Tests: a fake filesystem root, a fake receipt reader, other checks. */
  root?: string;
  readReceipt?: (prefix: string) => Promise<Receipt | undefined>;
  checks?: readonly Check[];
  timeoutMs?: number;
}

export async function runDoctor(deps: Deps, opts: DoctorOptions = {}): Promise<DoctorReport> {
  const checks = selectChecks(opts.only ?? [], !!opts.smoke, opts.checks);
  const prefix = opts.prefix ?? defaultPrefix(deps);
  const root = opts.root ?? '/';
  const ctx: DoctorContext = {
    deps,
    root,
    prefix,
    prefixExplicit: opts.prefix !== undefined,
    verbose: !!opts.verbose,
    ...(opts.indexes ? { indexes: opts.indexes } : {}),
    facts: new Facts(deps, { root, prefix, readReceipt: opts.readReceipt }),
  };
  const results = await runChecks(checks, ctx, opts.timeoutMs);
  const strict = !!opts.strict;
  return {
    schema: DOCTOR_SCHEMA,
    kind: 'xpu-setup.doctor',
    tool: { name: 'xpu-setup', version: VERSION },
    platform: runningPlatform(deps) ?? `${deps.platform}-${deps.arch}`,
    prefix,
    strict,
    checks: results,
    summary: summarize(results, strict),
  };
}
