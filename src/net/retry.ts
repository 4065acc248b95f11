// When to try a request again and how long to wait: backoff with jitter, Retry-After, bounded attempts and time.
import { XpuError } from '../base/errors.js';
import { NET_ENV } from './config.js';

export interface RetryPolicy {
  attempts: number;
  retryBudgetMs: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

export interface RetryClock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** In [0, 1). */
  random(): number;
}

export const realClock: RetryClock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
    }),
  random: Math.random,
};

/** Retry-After is either delay-seconds or an HTTP date. */
export function parseRetryAfter(value: string | undefined, now: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isFinite(at) ? Math.max(0, at - now) : undefined;
}

/** Half the exponential step plus a random half, so many clients that failed together do not return together. */
export function backoffMs(attempt: number, p: Pick<RetryPolicy, 'baseDelayMs' | 'maxDelayMs'>, random: () => number): number {
  const step = Math.min(p.maxDelayMs, p.baseDelayMs * 2 ** attempt);
  return Math.round(step / 2 + (random() * step) / 2);
}

/**
 * 408, 429 and 5xx (but 501) are worth another try; so are broken connections and short bodies. A host that cannot
 * be reached at all is retried only when asked: while planning, the next source is the better next step.
 */
export function isRetryable(e: unknown, unreachableToo = false): boolean {
  if (!(e instanceof XpuError)) return false;
  // A redirect loop or a refused downgrade answers the same way every time.
  if (e.details.retryable === false) return false;
  if (e.code === 'HTTP_STATUS') {
    const s = Number(e.details.status);
    return s === 408 || s === 429 || (s >= 500 && s !== 501);
  }
  if (e.code === 'NETWORK' || e.code === 'PROXY') return e.details.unreachable !== true || unreachableToo;
  return e.details.retryable === true;
}

/**
 * Runs attempt until it succeeds, fails for good, or the policy's attempts or time run out. The last error is
 * thrown with the number of attempts added, so the user sees that retrying already happened.
 */
export async function withRetries<T>(
  policy: RetryPolicy,
  clock: RetryClock,
  attempt: (n: number) => Promise<T>,
  opts: { signal?: AbortSignal; unreachableToo?: boolean; onRetry?: (e: XpuError, waitMs: number, n: number) => void } = {},
): Promise<T> {
  const start = clock.now();
  for (let n = 0; ; n++) {
    try {
      return await attempt(n);
    } catch (e) {
      if (!isRetryable(e, opts.unreachableToo) || opts.signal?.aborted) throw e;
      const err = e as XpuError;
      const asked = typeof err.details.retryAfterMs === 'number' ? err.details.retryAfterMs : undefined;
      const wait = asked ?? backoffMs(n, policy, clock.random);
      const spent = clock.now() - start;
      if (n + 1 >= policy.attempts || spent + wait > policy.retryBudgetMs) {
        err.details.attempts = n + 1;
        err.details.retriedMs = spent;
        if (n > 0 || asked !== undefined) {
          const why = n + 1 >= policy.attempts ? `${n + 1} attempts` : `${n + 1} attempt(s) in ${Math.round(spent / 100) / 10} s`;
          err.hints.push(
            asked !== undefined && spent + asked > policy.retryBudgetMs
              ? `the server asked to wait ${Math.round(asked / 1000)} s (Retry-After), beyond the retry time (${NET_ENV.retrySeconds})`
              : `gave up after ${why} (${NET_ENV.attempts}, ${NET_ENV.retrySeconds})`,
          );
        }
        throw err;
      }
      opts.onRetry?.(err, wait, n + 1);
      await clock.sleep(wait, opts.signal);
    }
  }
}
