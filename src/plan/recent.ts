// A plan made moments ago for the same request is reused instead of asking every index again, the way pip and conda
// keep index answers for a while; `--refresh` asks again.
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { InstallPlan } from '../records/plan.js';

/** How long a plan is reused: PyPI's simple index itself answers with `Cache-Control: max-age=600`. */
export const PLAN_REUSE_MS = 10 * 60 * 1000;

interface Stored {
  key: string;
  madeAt: number;
  plan: InstallPlan;
}

/** The key of a request: everything a plan is computed from except the indexes' answers. */
export function planRequestKey(parts: unknown): string {
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex');
}

/** The cache's directory of recent plans. */
export const PLANS_DIR = 'plans';

function fileOf(cacheDir: string, key: string): string {
  return path.join(cacheDir, PLANS_DIR, `${key.slice(0, 32)}.json`);
}

/** The plan stored for `key` when it is younger than maxAgeMs; anything unreadable counts as absent. */
export async function recentPlan(cacheDir: string, key: string, now: number, maxAgeMs = PLAN_REUSE_MS): Promise<InstallPlan | undefined> {
  try {
    const s = JSON.parse(await fs.readFile(fileOf(cacheDir, key), 'utf8')) as Stored;
    // The key includes the tool's version, so a plan of another shape never matches.
    if (s.key !== key || !s.plan) return undefined;
    const age = now - s.madeAt;
    return age >= 0 && age < maxAgeMs ? { ...s.plan, reusedFrom: new Date(s.madeAt).toISOString() } : undefined;
  } catch {
    return undefined;
  }
}

/** Stores a plan for reuse; a failure to store costs only the next run's time, so it is not an error. */
export async function rememberPlan(cacheDir: string, key: string, plan: InstallPlan, now: number): Promise<void> {
  const file = fileOf(cacheDir, key);
  const tmp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(tmp, JSON.stringify({ key, madeAt: now, plan } satisfies Stored));
    await fs.rename(tmp, file);
  } catch {
    await fs.rm(tmp, { force: true }).catch(() => undefined);
  }
}
