// The PEP 440 engine (@renovatebot/pep440, a dependency file beside the bundle) loads only in a run that plans:
// `--version`, `env` and `doctor` never load it. Seen through the code cache, which bin/xpu-setup.js writes for each
// dependency file a run loads, named by that file's content hash.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { packageCopy, withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('version-engines', { require: 'level-zero>=1.8' });
/** The start of the code cache names of the PEP 440 engine's file: `.xpu-setup-vendor-<its content hash>-`. */
let engineCache: string;

/** A copy of the package as npm would install it, so its dist/ and the code caches there are this test's own. */
beforeAll(async () => {
  await packageCopy(fx.work);
  const first = (await fs.readFile(fx.at('dist', 'xpu-setup-vendor-renovatebot-pep440.cjs'), 'utf8')).split('\n', 1)[0]!;
  engineCache = `.xpu-setup-vendor-${/^\/\/ xpu-setup vendor ([0-9a-f]{16})$/.exec(first)![1]}-`;
});

const run = (args: string[]) => execa(process.execPath, [fx.at('bin', 'xpu-setup.js'), ...args], { env: fx.env, extendEnv: false, reject: false });
const engineLoaded = async () => (await fs.readdir(fx.at('dist'))).some((f) => f.startsWith(engineCache));

describe('the PEP 440 engine', () => {
  it('is not loaded by --version, env or doctor, and is by a run that plans UR from PyPI', async () => {
    const prefix = fx.at('prefix');
    await fs.mkdir(prefix);
    for (const args of [['--version'], ['env', '--prefix', prefix], ['doctor', '--prefix', prefix, '--check', 'prefix']]) {
      const r = await run(args);
      // Each ran to its own answer (doctor finds the empty prefix lacking: exit 1), not into an internal error.
      expect(r.exitCode, `${args.join(' ')}: ${r.stderr}`).toBeLessThanOrEqual(1);
      expect(r.stderr, args.join(' ')).not.toMatch(/PEP 440|loadPep440/);
      expect(await engineLoaded(), args.join(' ')).toBe(false);
    }
    const plan = await run(['plan', '--prefix', fx.at('planned'), '--component', 'unified-runtime']);
    expect(plan.exitCode, plan.stderr).toBe(0);
    expect(plan.stdout + plan.stderr).toMatch(/intel-cmplr-lib-ur/);
    expect(await engineLoaded()).toBe(true);
  });
});
