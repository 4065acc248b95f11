// Network and index limits (retries, retry time, deadlines, minimum throughput, redirects to http, the most an index
// document may be as sent and decoded), read from XPU_SETUP_* variables.
import { EnvVars } from '../base/env-names.js';
import { XpuError } from '../base/errors.js';

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
  /** One index read, all attempts and waits included, must finish within this. */
  indexDeadlineMs: number;
  limits: IndexLimits;
}

/** The most an index document may be: each limit is an error naming the document, its size and the limit. */
export interface IndexLimits {
  /** One index body as sent (repodata, compressed or not; a project page; a shard index or shard). */
  indexBytes: number;
  /** A repodata document decompressed. */
  repodataDecoded: number;
  shardIndexDecoded: number;
  shardDecoded: number;
  metadataBytes: number;
  /** One JSON index document (a GitHub release list), as sent and as text. */
  jsonBytes: number;
  /** Releases of one GitHub source tried, newest first. */
  candidates: number;
  /** Arrays and maps inside each other in a msgpack or JSON document. */
  nesting: number;
  /** Requirements one dependency closure follows. */
  requirements: number;
}

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

/**
 * Room for conda-forge at its real size (linux-64 repodata.json about 363 MB, 47 MB as .zst in Jan 2026; a shard index
 * 0.4-0.9 MB; a shard a few KB to a few MB), several times over, and far below what would exhaust a machine.
 */
export const DEFAULT_INDEX_LIMITS: IndexLimits = {
  indexBytes: 1 * GiB,
  repodataDecoded: 1 * GiB,
  shardIndexDecoded: 64 * MiB,
  shardDecoded: 64 * MiB,
  metadataBytes: 8 * MiB,
  jsonBytes: 64 * MiB,
  candidates: 30,
  nesting: 32,
  requirements: 10_000,
};

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
  indexDeadlineMs: 10 * 60_000,
  limits: DEFAULT_INDEX_LIMITS,
};

/** Every variable this module reads; seconds may be fractional. */
export const NET_ENV = {
  attempts: EnvVars.XPU_SETUP_HTTP_ATTEMPTS,
  retrySeconds: EnvVars.XPU_SETUP_HTTP_RETRY_SECONDS,
  backoffSeconds: EnvVars.XPU_SETUP_HTTP_BACKOFF_SECONDS,
  deadlineSeconds: EnvVars.XPU_SETUP_DOWNLOAD_DEADLINE_SECONDS,
  minBytesPerSecond: EnvVars.XPU_SETUP_DOWNLOAD_MIN_BYTES_PER_SECOND,
  rateWindowSeconds: EnvVars.XPU_SETUP_DOWNLOAD_RATE_WINDOW_SECONDS,
  allowHttpRedirect: EnvVars.XPU_SETUP_ALLOW_HTTP_REDIRECT,
  indexDeadlineSeconds: EnvVars.XPU_SETUP_INDEX_DEADLINE_SECONDS,
} as const;

/** The variable of each index limit (sizes as bytes or with a unit: 64MiB, 2GiB). */
export const LIMIT_ENV: Record<keyof IndexLimits, string> = {
  indexBytes: EnvVars.XPU_SETUP_MAX_INDEX_BYTES,
  repodataDecoded: EnvVars.XPU_SETUP_MAX_REPODATA_DECODED,
  shardIndexDecoded: EnvVars.XPU_SETUP_MAX_SHARD_INDEX_DECODED,
  shardDecoded: EnvVars.XPU_SETUP_MAX_SHARD_DECODED,
  metadataBytes: EnvVars.XPU_SETUP_MAX_METADATA_BYTES,
  jsonBytes: EnvVars.XPU_SETUP_MAX_JSON_BYTES,
  candidates: EnvVars.XPU_SETUP_MAX_CANDIDATES,
  nesting: EnvVars.XPU_SETUP_MAX_NESTING,
  requirements: EnvVars.XPU_SETUP_MAX_REQUIREMENTS,
};

/** "64MiB", "2G", "1048576" -> bytes (or a plain count); undefined when unset. */
function size(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return undefined;
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b)?\s*$/i.exec(raw);
  if (!m || Number(m[1]) <= 0) {
    throw new XpuError('USAGE', `${name}=${raw} is not a size above 0`, { details: { variable: name, value: raw }, hints: [`unset ${name}, or give it a size (64MiB, 2GiB, 1048576)`] });
  }
  return Math.round(Number(m[1]) * { '': 1, k: 1024, m: MiB, g: GiB, t: 1024 * GiB }[m[2]!.toLowerCase() as '' | 'k' | 'm' | 'g' | 't']);
}

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
  const indexDeadline = num(env, NET_ENV.indexDeadlineSeconds, 0.001);
  if (indexDeadline !== undefined) c.indexDeadlineMs = indexDeadline * 1000;
  c.limits = { ...base.limits };
  for (const [k, name] of Object.entries(LIMIT_ENV) as [keyof IndexLimits, string][]) {
    const v = size(env, name);
    if (v !== undefined) c.limits[k] = v;
  }
  return c;
}

/** The limits that count things rather than bytes. */
const COUNTS = new Set<keyof IndexLimits>(['nesting', 'requirements', 'candidates']);

/** An index document past one of its limits: named with its size where known, the limit, and how to raise it. */
export function overLimit(url: string, what: string, limit: number, key: keyof IndexLimits, size?: number): XpuError {
  const variable = LIMIT_ENV[key];
  const shown = COUNTS.has(key) ? String(limit) : `${limit} bytes (${(limit / MiB).toFixed(limit < MiB ? 3 : 0)} MiB)`;
  return new XpuError('TOO_LARGE', `${url} ${what} more than ${shown}${size !== undefined ? ` (${size} bytes as sent)` : ''}; stopped there`, {
    details: { url, limit, variable, ...(size !== undefined ? { size } : {}), retryable: false },
    hints: [`a real index is far smaller (a decompression bomb, or not an index at all); if you trust it, raise the limit: ${variable}=SIZE`],
  });
}

/**
 * Pure: a JSON index document parsed within the limits: at most `jsonBytes` bytes and `nesting` arrays and objects deep,
 * both checked in one pass over the bytes before `JSON.parse` sees them (the depth outside strings is counted).
 */
export function parseBoundedJson(bytes: Buffer, url: string, limits: IndexLimits): unknown {
  if (bytes.length > limits.jsonBytes) throw overLimit(url, 'is', limits.jsonBytes, 'jsonBytes', bytes.length);
  let depth = 0;
  let inString = false;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (inString) {
      if (b === 0x5c) i++;
      else if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x5b || b === 0x7b) {
      if (++depth > limits.nesting) throw overLimit(url, 'nests arrays and objects', limits.nesting, 'nesting');
    } else if (b === 0x5d || b === 0x7d) depth--;
  }
  return JSON.parse(bytes.toString('utf8'));
}
