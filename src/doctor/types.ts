// The doctor's data: checks, their results, the versioned JSON report, and what the probe and smoke children answer.
import type { Deps } from '../base/deps.js';
import type { Facts } from './facts.js';

export type CheckStatus = 'ok' | 'warn' | 'fail' | 'skip' | 'error';

export type CheckGroup = 'system' | 'driver' | 'toolchain' | 'runtime';

export const GROUP_TITLES: Record<CheckGroup, string> = {
  system: 'System and GPU',
  driver: 'Drivers, loaders and headers',
  toolchain: 'Environment, compiler, prefix and network',
  runtime: 'Runtime (--smoke)',
};

export interface CheckOutcome {
  status: CheckStatus;
  message: string;
  /** What to do, when the status is not ok. */
  fix?: string;
  details?: Record<string, unknown>;
}

export interface CheckResult {
  id: string;
  title: string;
  group: CheckGroup;
  status: CheckStatus;
  duration_ms: number;
  message: string;
  fix?: string;
  details?: Record<string, unknown>;
}

export interface Check {
  id: string;
  title: string;
  group: CheckGroup;
  /** Runs only with --smoke (or when named with --check). */
  smokeOnly?: boolean;
  /** Overrides the runner's per-check limit. */
  timeoutMs?: number;
  run(ctx: DoctorContext): Promise<CheckOutcome>;
}

export interface ProbeSummary {
  loaderPath?: string;
  /** zeInit's result by name, e.g. ZE_RESULT_SUCCESS or ZE_RESULT_ERROR_UNINITIALIZED. */
  init?: string;
  devices: { name: string; type: string; vendorId?: number; deviceId?: number }[];
  notes?: string[];
  /** What the Triton variables should say for the device probe chose (`probe --json`'s tritonEnv). */
  tritonEnv?: { arch?: string; extensions: string[]; sycl?: string };
}

export interface SmokeSummary {
  ok: boolean;
  message: string;
  details?: Record<string, unknown>;
}

export type { ReachAnswer } from '../base/deps.js';

export interface RuntimeRequest {
  deps: Deps;
  prefix: string;
  /** The environment the stack should run with (the prefix's extra variables applied). */
  env: Record<string, string | undefined>;
}

/** The index URLs setup would use on this machine (the CLI knows its option and manifest rules). */
export type IndexList = (deps: Deps) => Promise<string[]>;

export interface DoctorContext {
  deps: Deps;
  /** Filesystem root for /sys, /dev, /etc ("/" except in tests). */
  root: string;
  prefix: string;
  /** True when the user named the prefix with --prefix. */
  prefixExplicit: boolean;
  verbose: boolean;
  /** Absent: the network check has no default indexes to try. */
  indexes?: IndexList;
  facts: Facts;
}

export const DOCTOR_SCHEMA = 1;

export interface DoctorSummary {
  total: number;
  ok: number;
  warn: number;
  fail: number;
  skip: number;
  error: number;
  exit_code: number;
}

export interface DoctorReport {
  schema: typeof DOCTOR_SCHEMA;
  kind: 'xpu-setup.doctor';
  tool: { name: 'xpu-setup'; version: string };
  platform: string;
  prefix: string;
  strict: boolean;
  checks: CheckResult[];
  summary: DoctorSummary;
}
