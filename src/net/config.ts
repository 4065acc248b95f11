// Network limits (retries, retry time, per-download deadline, minimum throughput, redirects to http), read from XPU_SETUP_* variables.
import { XpuError } from '../errors.js';

export interface NetConfig {
  /** Attempts per request, the first included. */
  attempts: number;
  /** Total time spent retrying one request (waits included) before giving up. */
  retryBudgetMs: number;
  /** First backoff step; doubles each attempt, with jitter, up to maxDelayMs. */
  baseDelayMs: number;
  maxDelayMs: number;
  connectTimeoutMs: number;
  /** Wait for response headers. */
  headersTimeoutMs: number;
  /** Longest silence while reading a body. */
  idleTimeoutMs: number;
  /** One download, all attempts and waits included, must finish within this. */
  downloadDeadlineMs: number;
  /** A download slower than this over rateWindowMs is stopped (a server that drips bytes keeps no run alive). */
  minBytesPerSecond: number;
  rateWindowMs: number;
  /** Follow a redirect from https to plain http (refused unless asked: it would drop the connection's protection). */
  allowHttpRedirect: boolean;
}

export const DEFAULT_NET_CONFIG: NetConfig = {
  attempts: 6,
  retryBudgetMs: 120_000,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  connectTimeoutMs: 15_000,
  headersTimeoutMs: 30_000,
  idleTimeoutMs: 60_000,
  downloadDeadlineMs: 30 * 60_000,
  minBytesPerSecond: 1024,
  rateWindowMs: 60_000,
  allowHttpRedirect: false,
};

/** Every variable this module reads; seconds may be fractional. */
export const NET_ENV = {
  attempts: 'XPU_SETUP_HTTP_ATTEMPTS',
  retrySeconds: 'XPU_SETUP_HTTP_RETRY_SECONDS',
  backoffSeconds: 'XPU_SETUP_HTTP_BACKOFF_SECONDS',
  deadlineSeconds: 'XPU_SETUP_DOWNLOAD_DEADLINE_SECONDS',
  minBytesPerSecond: 'XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND',
  rateWindowSeconds: 'XPU_SETUP_DOWNLOAD_RATE_WINDOW_SECONDS',
  allowHttpRedirect: 'XPU_SETUP_ALLOW_HTTP_REDIRECT',
} as const;

function num(env: Record<string, string | undefined>, name: string, min: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const v = Number(raw);
  if (!Number.isFinite(v) || v < min) {
    throw new XpuError('USAGE', `${name}=${raw} is not a number >= ${min}`, { details: { variable: name, value: raw }, hints: [`unset ${name} or give it a number`] });
  }
  return v;
}

/** The defaults with whatever the environment overrides. */
export function netConfigFromEnv(env: Record<string, string | undefined>, base: NetConfig = DEFAULT_NET_CONFIG): NetConfig {
  const c = { ...base };
  const attempts = num(env, NET_ENV.attempts, 1);
  if (attempts !== undefined) c.attempts = Math.floor(attempts);
  const retry = num(env, NET_ENV.retrySeconds, 0);
  if (retry !== undefined) c.retryBudgetMs = retry * 1000;
  const backoff = num(env, NET_ENV.backoffSeconds, 0);
  if (backoff !== undefined) c.baseDelayMs = backoff * 1000;
  const deadline = num(env, NET_ENV.deadlineSeconds, 0.001);
  if (deadline !== undefined) c.downloadDeadlineMs = deadline * 1000;
  const rate = num(env, NET_ENV.minBytesPerSecond, 0);
  if (rate !== undefined) c.minBytesPerSecond = rate;
  const window = num(env, NET_ENV.rateWindowSeconds, 0.001);
  if (window !== undefined) c.rateWindowMs = window * 1000;
  if (env[NET_ENV.allowHttpRedirect] === '1') c.allowHttpRedirect = true;
  return c;
}
