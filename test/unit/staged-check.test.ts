// The staged tree's header check: the compiler on PATH is used as it is, and the finder is asked only after a failure.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkStagedComponent } from '../../src/build/staged-check.js';
import type { ExecResult } from '../../src/base/deps.js';
import type { InstallPlan, PlannedComponent } from '../../src/records/plan.js';
import { realDeps } from '../../src/cli/real-deps.js';
import { fakeDeps, ok } from '../fixtures/detect/fake-deps.js';

let tree: string;
beforeAll(async () => {
  tree = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-staged-check-'));
  await fs.mkdir(path.join(tree, 'include', 'level_zero'), { recursive: true });
  await fs.writeFile(path.join(tree, 'include', 'level_zero', 'ze_api.h'), '#pragma once\n');
});
afterAll(async () => {
  await fs.rm(tree, { recursive: true, force: true });
});

const component = {
  name: 'level-zero',
  status: 'planned',
  provides: [{ path: 'include/level_zero/ze_api.h', required: true }],
} as unknown as PlannedComponent;
const plan = { host: { native: true } } as unknown as InstallPlan;
const failed = (stderr: string): ExecResult => ({ exitCode: 1, stdout: '', stderr });
const isCompile = (args: string[]) => args[0] === '-fsyntax-only';

/** Machine with /usr/bin/cc and /usr/bin/gcc; `answer` scripts both. */
function machine(answer: (file: string, args: string[]) => ExecResult | undefined) {
  return fakeDeps({ env: { PATH: '/usr/bin' }, exists: (p) => p === '/usr/bin/cc' || p === '/usr/bin/gcc', exec: answer });
}

describe('staged header check', () => {
  it('compiles with the compiler on PATH without asking it anything first', async () => {
    const deps = machine((_f, args) => (isCompile(args) ? ok('') : undefined));
    expect(await checkStagedComponent(tree, component, plan, deps)).toEqual([]);
    expect(deps.calls.map((c) => c.split(' -')[0])).toEqual(['/usr/bin/cc']);
  });

  it('passes over a compiler that does not answer and compiles with the next one that does', async () => {
    const deps = machine((file, args) => {
      if (file === '/usr/bin/cc') return failed('cc: wrapper is broken\n');
      if (file === '/usr/bin/gcc') return args[0] === '--version' ? ok('gcc 12\n') : ok('');
      return undefined;
    });
    expect(await checkStagedComponent(tree, component, plan, deps)).toEqual([]);
    expect(deps.calls.map((c) => c.replace(/ -x .*/, ''))).toEqual(['/usr/bin/cc -fsyntax-only', '/usr/bin/cc --version', '/usr/bin/gcc --version', '/usr/bin/gcc -fsyntax-only']);
  });

  it('blames the headers when the compiler that failed answers, without compiling twice', async () => {
    const deps = machine((_f, args) => (isCompile(args) ? failed('ze_api.h:1:2: error: expected identifier\n') : ok('cc 12\n')));
    const problems = await checkStagedComponent(tree, component, plan, deps);
    expect(problems).toEqual(['include/level_zero/ze_api.h does not compile with /usr/bin/cc: ze_api.h:1:2: error: expected identifier']);
    expect(deps.calls.filter((c) => c.includes('-fsyntax-only'))).toHaveLength(1);
  });

  it('compiles headers under a path holding `"` and a newline (an #include line cannot name them; the check passes them as arguments)', async () => {
    const odd = path.join(tree, 'a"b\nc');
    await fs.mkdir(path.join(odd, 'include', 'level_zero'), { recursive: true });
    await fs.writeFile(path.join(odd, 'include', 'level_zero', 'ze_api.h'), '#pragma once\ntypedef int ze_result_t;\n');
    const deps = { ...realDeps(), env: { PATH: process.env.PATH } };
    expect(await checkStagedComponent(odd, component, plan, deps)).toEqual([]);
    // And the header is really compiled: one that does not compile there is reported.
    await fs.writeFile(path.join(odd, 'include', 'level_zero', 'ze_api.h'), '#error broken header\n');
    expect((await checkStagedComponent(odd, component, plan, deps)).join('')).toMatch(/ze_api\.h does not compile with .*broken header/);
  });

  it('says nothing when no compiler answers at all', async () => {
    const deps = machine(() => undefined);
    expect(await checkStagedComponent(tree, component, plan, deps)).toEqual([]);
  });
});
