// The layering check in scripts/import-graph.mjs, run as a process on small made-up source trees.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BASE, PLANTS } from '../support/import-graph-plants.mjs';

const SCRIPT = path.resolve(__dirname, '../../scripts/import-graph.mjs');
const dirs: string[] = [];

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-graph-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, rel)), { recursive: true });
    await fs.writeFile(path.join(dir, rel), text);
  }
  return dir;
}

/** Exit code, stdout and stderr of the script on `dir`; the rules alone unless `withExceptions`. */
function run(dir: string, withExceptions = false): { code: number; out: string; err: string } {
  const args = [SCRIPT, '--src', dir, ...(withExceptions ? [] : ['--no-exceptions'])];
  try {
    const out = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return { code: 0, out, err: '' };
  } catch (e) {
    const x = e as { status: number; stdout: string; stderr: string };
    return { code: x.status, out: x.stdout, err: x.stderr };
  }
}

afterEach(async () => {
  for (const d of dirs.splice(0)) await fs.rm(d, { recursive: true, force: true });
});

describe('import-graph', () => {
  it('passes a tree that keeps the layers and prints its edges', async () => {
    const dir = await tree({ 'pipeline/plan.ts': "import { makePlan } from '../plan/plan.js';\n", 'plan/plan.ts': "import { XpuError } from '../base/errors.js';\n", 'base/errors.ts': '' });
    const r = run(dir);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^pipeline\s+-> plan$/m);
    expect(r.out).toMatch(/^plan\s+-> base$/m);
  });

  it('fails on a library importing the CLI', async () => {
    const r = run(await tree({ 'formats/zip.ts': "import { main } from '../cli/main.js';\n", 'cli/main.ts': '' }));
    expect(r.code).toBe(1);
    expect(r.err).toContain('forbidden edge: formats -> cli: nothing imports the CLI');
  });

  it('lets a stage import another stage\'s types but not its code', async () => {
    const types = run(await tree({ 'fetch/fetch.ts': "import type { InstallPlan } from '../plan/plan.js';\n", 'plan/plan.ts': '' }));
    expect(types.code).toBe(0);
    const inline = run(await tree({ 'fetch/fetch.ts': "import { type InstallPlan } from '../plan/plan.js';\n", 'plan/plan.ts': '' }));
    expect(inline.code).toBe(0);
    const code = run(await tree({ 'smoke/index.ts': "import { buildAddon } from '../build/addon.js';\n", 'build/addon.ts': '' }));
    expect(code.code).toBe(1);
    expect(code.err).toContain('forbidden edge: smoke -> build: stages meet only in pipeline/');
  });

  it('fails on a library importing a stage, and on a folder in no layer', async () => {
    const r = run(await tree({ 'caps/model.ts': "import { probeStack } from '../probe/probe.js';\n", 'misc/x.ts': "import { a } from '../base/errors.js';\n", 'base/errors.ts': '' }));
    expect(r.code).toBe(1);
    expect(r.err).toContain('forbidden edge: caps -> probe: a library does not import the stage probe');
    expect(r.err).toContain('misc is in no layer');
  });

  it('says when a known exception no longer exists', async () => {
    type Exception = { from: string; to: string; typeOnly: boolean; why: string };
    const { check } = (await import(SCRIPT)) as { check: (edges: Map<string, boolean>, exceptions: Exception[]) => string[] };
    const stale = { from: 'inspect', to: 'install', typeOnly: true, why: 'types of the receipt' };
    expect(check(new Map(), [stale])).toEqual(['inspect -> install is listed in KNOWN_EXCEPTIONS but no longer breaks a rule: remove it from the list']);
    expect(check(new Map([['inspect->install', true]]), [stale])).toEqual([]);
  });

  it('lets only prefix/prefix-state.ts read the receipt; any other module that does fails the check', async () => {
    const format = "export async function readReceipt(prefix: string) { return undefined; }\n";
    const reader = "import { readReceipt } from './receipt.js';\nexport const readPrefixState = async (p: string) => ({ prefix: p, receipt: await readReceipt(p) });\n";
    const one = run(await tree({ 'prefix/receipt.ts': format, 'prefix/prefix-state.ts': reader }));
    expect(one.err).toBe('');
    expect(one.code).toBe(0);
    const second = run(await tree({
      'prefix/receipt.ts': format,
      'prefix/prefix-state.ts': reader,
      'probe/probe.ts': "import { readReceipt } from '../prefix/receipt.js';\nexport const v = () => readReceipt('/p');\n",
      'cli/main.ts': "export const v = async () => (await import('../prefix/receipt.js')).readReceipt('/p');\n",
    }));
    expect(second.code).toBe(1);
    expect(second.err).toContain('receipt read outside prefix/prefix-state.ts: probe/probe.ts reads it itself');
    expect(second.err).toContain('receipt read outside prefix/prefix-state.ts: cli/main.ts reads it itself');
  });

  it('lets only pipeline/ use more than one stage\'s code; a listed composer that no longer does is reported', async () => {
    const stages = { 'plan/plan.ts': '', 'fetch/fetch.ts': '', 'smoke/index.ts': '', 'probe/probe.ts': '' };
    const ok = run(await tree({ ...stages, 'pipeline/setup.ts': "import { makePlan } from '../plan/plan.js';\nimport { fetchPlan } from '../fetch/fetch.js';\n" }));
    expect(ok.err).toBe('');
    expect(ok.code).toBe(0);
    const cli = run(await tree({
      ...stages,
      'cli/commands/smoke.ts': "import type { ProbeReport } from '../../probe/probe.js';\nimport { findSystemLoader } from '../../probe/probe.js';\nexport const r = () => import('../../smoke/index.js');\n",
      'cli/commands/plan.ts': "import type { Fetching } from '../../fetch/fetch.js';\nimport { makePlan } from '../../plan/plan.js';\n",
    }));
    expect(cli.code).toBe(1);
    expect(cli.err).toContain('stages composed outside pipeline/: cli/commands/smoke.ts uses the stages probe, smoke: only pipeline/ composes stages');
    // Types of a second stage are data handed over, not composition.
    expect(cli.err).not.toContain('cli/commands/plan.ts');
    const stale = run(await tree({ 'base/errors.ts': '' }), true);
    expect(stale.code).toBe(1);
    expect(stale.err).toContain('bundle/bundle.ts is listed in KNOWN_COMPOSERS but uses one stage or none: remove it from the list');
  });

  it('forbids cache/ importing net/ (tolerated in the real tree only while it is listed as an exception)', async () => {
    const r = run(await tree({ 'cache/store.ts': "import { download } from '../net/http.js';\n", 'net/http.ts': '' }));
    expect(r.code).toBe(1);
    expect(r.err).toContain('forbidden edge: cache -> net: cache must not import net');
  });

  it('fails on files that import each other round a circle, through types and import() too', async () => {
    const r = run(await tree({
      'cli/command.ts': "import type { Values } from './options.js';\n",
      'cli/options.ts': "import type { CommandContext } from './command.js';\n",
      'cli/registry.ts': "export const COMMANDS = [{ load: () => import('./commands/env.js') }];\n",
      'cli/commands/env.ts': "import { SHELL_NAMES } from '../registry.js';\n",
      'cli/main.ts': "import { COMMANDS } from './registry.js';\n",
    }));
    expect(r.code).toBe(1);
    expect(r.err).toContain('import cycle: cli/command.ts, cli/options.ts import each other round a circle');
    expect(r.err).toContain('import cycle: cli/commands/env.ts, cli/registry.ts import each other round a circle');
    expect(r.err).not.toContain('main.ts');
  });

  it('passes a tree without circles', async () => {
    const clean = run(await tree({ 'cli/command.ts': "import type { Values } from './types.js';\n", 'cli/options.ts': "import type { Values } from './types.js';\n", 'cli/types.ts': '' }));
    expect(clean.err).toBe('');
    expect(clean.code).toBe(0);
  });

  it('fails on a platform name compared outside platform/, and names the line', async () => {
    const r = run(await tree({
      'platform/index.ts': "export const nodeLayout = (p: string) => (p === 'win32' ? 1 : 2);\n",
      'machine/gpu.ts': "import { nodeLayout } from '../platform/index.js';\nexport const a = (deps: { platform: string }) => deps.platform === 'win32';\n",
      'plan/closure.ts': "export const b = (host: { platform: string }) => 'linux-x64' !== host.platform;\n",
      'sources/apt.ts': "export const c = (host: { os: string }) => host.os !== 'linux';\n",
      'build/compile.ts': "export function d(p: string) {\n  switch (p) {\n    case 'win32': return 1;\n  }\n  return nodeLayout(p);\n}\n",
      'cli/registry.ts': "export const e = (v: { platform?: string }) => v.platform !== undefined;\n",
    }));
    expect(r.code).toBe(1);
    const flagged = [...r.err.matchAll(/^platform branch: (\S+) /gm)].map((m) => m[1]);
    expect(flagged).toEqual(['build/compile.ts:3', 'machine/gpu.ts:2', 'plan/closure.ts:1', 'sources/apt.ts:1']);
  });

  it('passes the clean tree the violations are planted in', async () => {
    const r = run(await tree(BASE));
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });

  it.each(PLANTS.map((p) => [p.what, p] as const))('goes red on %s', async (_what, p) => {
    const r = run(await tree({ ...BASE, ...p.files }));
    expect(r.code).toBe(1);
    expect(r.err).toContain(p.says);
  });
});
