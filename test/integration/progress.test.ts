// Progress that tells the truth: sizes an index leaves out come from Content-Length, in the plan and while fetching.
import { describe, expect, it } from 'vitest';
import { realDeps } from '../../src/cli/real-deps.js';
import { fetchPlan } from '../../src/fetch/fetch.js';
import { planSetup } from '../../src/pipeline/plan.js';
import { openRunIndex } from '../../src/pipeline/run-index.js';
import type { Reporter } from '../../src/base/reporter.js';
import { silentReporter } from '../../src/base/reporter.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('progress');

const planOpts = () => ({
  plan: { prefix: fx.at('prefix'), cacheDir: fx.at('cache') },
  flags: { components: ['unified-runtime'], sources: ['pypi' as const], indexes: { pypi: [fx.index.htmlOnlySimpleUrl] } },
});

describe('sizes the index does not give (PEP 503 HTML)', () => {
  it('setup\'s plan has no size, and the fetch line still shows a total taken from Content-Length', async () => {
    const run = openRunIndex(planOpts(), realDeps(), silentReporter);
    const plan = await planSetup(planOpts(), realDeps(), silentReporter, { index: run });
    const archive = plan.components[0]!.archives[0]!;
    expect(archive.size).toBeUndefined();
    const updates: string[] = [];
    const reporter: Reporter = { ...silentReporter, task: () => ({ update: (t) => updates.push(t()), succeed() {}, fail() {} }) };
    await fetchPlan(plan, realDeps(), reporter, await run.gateway());
    expect(updates.length).toBeGreaterThan(0);
    // The total is every archive of the plan (UR and its closure), each size taken from its Content-Length.
    const urls = plan.components.flatMap((c) => c.archives.map((a) => a.url));
    const total = fx.index.packages.filter((p) => urls.includes(p.url)).reduce((sum, p) => sum + p.size, 0);
    expect(urls.length).toBeGreaterThan(1);
    const mib = (total / 1048576).toFixed(1);
    expect(updates.at(-1)).toBe(`${mib} MiB / ${mib} MiB`);
  });

  it('the printed plan asks the server (HEAD) for the size instead of saying "? B"', async () => {
    const plan = await planSetup(planOpts(), realDeps(), silentReporter, { withExisting: true, index: openRunIndex(planOpts(), realDeps(), silentReporter) });
    const archive = plan.components[0]!.archives[0]!;
    expect(archive.size).toBe(fx.index.packages.find((p) => p.url === archive.url)!.size);
    expect(fx.index.requests.some((r) => r.method === 'HEAD' && archive.url.endsWith(r.path))).toBe(true);
  });
});
