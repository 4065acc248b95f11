// Fault matrix, a prefix from two sources: a component added from one source (`--source github`) to a prefix whose
// other component came from another (conda); the installed one is kept from its own source, not planned again with
// the new run's kinds. The CLI as a process against a conda channel and a GitHub-shaped API on 127.0.0.1.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, scrubbedEnv } from '../e2e/cli.js';
import { CR_TAG, startGithubServer, type GithubServer } from '../support/github-releases.js';
import { FaultTable } from './matrix.js';
import { withFixtureRun } from '../support/fixture-run.js';

const table = new FaultTable('fault matrix: a prefix from two sources (CLI as a process)');
const fx = withFixtureRun('faults-mixed');
let github: GithubServer;

beforeAll(async () => {
  github = await startGithubServer();
}, 600_000);

afterAll(async () => {
  table.print();
  await github?.close();
});

describe('fault matrix: a prefix from two sources', () => {
  it('--source github adds gpu-driver beside a level-zero from conda, which stays as it was', async () => {
    const prefix = fx.at('prefix');
    const env = scrubbedEnv(fx.home, { XPU_SETUP_INDEX_URL: fx.index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' });
    const cache = ['--cache-dir', fx.at('cache')];
    const first = await runCli(['--prefix', prefix, ...cache, '--component', 'level-zero', '--source', 'conda', '--conda-channel', fx.index.condaChannelUrl('bookworm'), '--no-probe', '--no-smoke'], env);
    expect(first.exitCode, first.stderr).toBe(0);
    const before = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')) as { components: { name: string; version: string; source: string }[] };
    const t0 = Date.now();
    const r = await runCli(['--prefix', prefix, ...cache, '--component', 'gpu-driver', '--source', 'github', '--github-url', github.api('good'), '--no-probe', '--no-smoke', '--json'], env);
    const doc = JSON.parse(r.stdout || '{}') as { ok?: boolean; error?: { code?: string } };
    table.add({ case: 'add gpu-driver (github) to a prefix with level-zero (conda)', exit: r.exitCode, code: doc.ok ? '-' : (doc.error?.code ?? '?'), ms: Date.now() - t0, outside: 'unchanged' });
    expect(r.exitCode, r.stderr).toBe(0);
    const after = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8')) as typeof before;
    const l0 = before.components.find((c) => c.name === 'level-zero')!;
    expect(after.components.find((c) => c.name === 'level-zero')).toMatchObject({ version: l0.version, source: l0.source });
    expect(after.components.find((c) => c.name === 'gpu-driver')).toMatchObject({ version: CR_TAG, source: `github ${github.api('good')}` });
  });
});
