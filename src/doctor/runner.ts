// Runs checks in parallel, each under a time limit; a check that throws or hangs becomes "error" and the rest still report.
import type { Check, CheckResult, CheckStatus, DoctorContext, DoctorSummary } from './types.js';

export const DEFAULT_CHECK_TIMEOUT_MS = 15_000;

class CheckTimeout extends Error {}

async function withLimit<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CheckTimeout(`did not finish within ${ms / 1000} s`)), ms);
    timer.unref?.();
  });
  try {
    return await Promise.race([p, limit]);
  } finally {
    clearTimeout(timer);
  }
}

export async function runCheck(check: Check, ctx: DoctorContext, defaultTimeoutMs = DEFAULT_CHECK_TIMEOUT_MS): Promise<CheckResult> {
  const start = ctx.deps.now();
  const base = { id: check.id, title: check.title, group: check.group };
  try {
    // Promise.resolve().then() turns a synchronous throw inside run() into a rejection too.
    const out = await withLimit(Promise.resolve().then(() => check.run(ctx)), check.timeoutMs ?? defaultTimeoutMs);
    const r: CheckResult = { ...base, status: out.status, duration_ms: ctx.deps.now() - start, message: out.message };
    if (out.fix) r.fix = out.fix;
    if (out.details && Object.keys(out.details).length) r.details = out.details;
    return r;
  } catch (e) {
    const err = e as Error;
    const timedOut = e instanceof CheckTimeout;
    const r: CheckResult = {
      ...base,
      status: 'error',
      duration_ms: ctx.deps.now() - start,
      message: timedOut ? `the check ${err.message}` : `the check itself failed: ${err?.message ?? String(e)}`,
      fix: timedOut
        ? 'something it asked (a command, a file, the network) hangs; run again with --verbose --check ' + check.id
        : 'this is a bug in xpu-setup; please report it with the output of `xpu-setup doctor --json`',
    };
    if (!timedOut && err?.stack) r.details = { stack: err.stack.split('\n').slice(0, 6) };
    return r;
  }
}

export async function runChecks(checks: Check[], ctx: DoctorContext, defaultTimeoutMs?: number): Promise<CheckResult[]> {
  return Promise.all(checks.map((c) => runCheck(c, ctx, defaultTimeoutMs)));
}

/** 0 when nothing failed (warnings allowed unless strict), 1 otherwise. */
export function exitCodeFor(results: Pick<CheckResult, 'status'>[], strict: boolean): number {
  const bad: CheckStatus[] = strict ? ['fail', 'error', 'warn'] : ['fail', 'error'];
  return results.some((r) => bad.includes(r.status)) ? 1 : 0;
}

export function summarize(results: CheckResult[], strict: boolean): DoctorSummary {
  const count = (s: CheckStatus): number => results.filter((r) => r.status === s).length;
  return {
    total: results.length,
    ok: count('ok'),
    warn: count('warn'),
    fail: count('fail'),
    skip: count('skip'),
    error: count('error'),
    exit_code: exitCodeFor(results, strict),
  };
}
