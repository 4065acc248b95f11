// Matching the user's PyTorch: the torch table, which versions are pinned, the note when a plan would shadow torch's,
// the environment scan that needs no Python, the option, the request, and pins in the resolver.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandHelp, parseCommandArgs } from '../../src/cli/options.js';
import { findCommand } from '../../src/cli/registry.js';
import { parsePlanOptions } from '../../src/cli/setup-options.js';
import { isXpuError, XpuError } from '../../src/base/errors.js';
import { activeEnvDistributions, parseDistInfoName } from '../../src/machine/python-dists.js';
import { mergeRequest } from '../../src/plan/request.js';
import type { SetupRequest } from '../../src/records/plan.js';
import { resolve, type Candidate, type Provider } from '../../src/versions/resolve.js';
import { pinRequirements, pinsFor, torchMatchOf, torchMismatch, torchTableRow } from '../../src/plan/torch.js';
import { matchesVersion } from '../../src/versions/match-spec.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { installDists, intelRuntimeDists, torchXpuDist } from '../support/python-env.js';

const PY = { python: '/venv/bin/python3', pythonVersion: '3.11.2' };

describe('the torch table', () => {
  it('finds a release by major.minor, a nightly past the table by its last row, and nothing for a torch older than 2.7', () => {
    expect(torchTableRow('2.10.0+xpu')?.pins).toEqual({ 'intel-cmplr-lib-ur': '2025.3.1', 'intel-sycl-rt': '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' });
    expect(torchTableRow('2.1.0')).toBeUndefined();
    expect(torchTableRow('2.13.0.dev20261101+xpu')?.torch).toBe('2.12');
    expect(torchTableRow('2.6.0+xpu')).toBeUndefined();
    expect(torchTableRow('not a version')).toBeUndefined();
  });

  it('pins what is installed beside torch, else what its release pins', () => {
    expect(pinsFor({ torch: '2.10.0+xpu', umf: '1.0.2', 'intel-cmplr-lib-ur': '2025.3.1' })).toEqual({
      pins: [
        { name: 'intel-cmplr-lib-ur', version: '2025.3.1', from: 'installed' },
        { name: 'umf', version: '1.0.2', from: 'installed' },
      ],
    });
    expect(pinsFor({ torch: '2.9.1+xpu' })).toMatchObject({ row: '2.9', pins: expect.arrayContaining([{ name: 'tcmlib', version: '1.4.0', from: 'torch table' }]) });
    expect(pinsFor({})).toBeUndefined();
  });
});

describe('torchMatchOf', () => {
  it('says which interpreter answered and what it pins', () => {
    const m = torchMatchOf({ ...PY, versions: { torch: '2.10.0+xpu', 'intel-cmplr-lib-ur': '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' } }, []);
    expect(m.notes).toEqual(['torch 2.10.0+xpu in /venv/bin/python3 (Python 3.11.2), with intel-cmplr-lib-ur 2025.3.1, umf 1.0.2, tcmlib 1.4.1: the prefix gets exactly these']);
    expect(pinRequirements(m)).toContainEqual({ name: 'umf', spec: '==1.0.2', by: '--match-torch (torch 2.10.0+xpu in /venv/bin/python3)' });
  });

  it('refuses an interpreter with nothing to match, and a torch older than the table, with MATCH_TORCH', () => {
    const code = (f: () => unknown): string | undefined => {
      try {
        f();
      } catch (e) {
        return e instanceof XpuError ? `${e.code}: ${e.message}` : undefined;
      }
      return undefined;
    };
    expect(code(() => torchMatchOf({ ...PY, versions: {} }, ['python3 (PATH): Python 3.11.2']))).toBe(
      'MATCH_TORCH: --match-torch: /venv/bin/python3 (Python 3.11.2) has neither torch nor any of intel-cmplr-lib-ur, intel-sycl-rt, umf, tcmlib installed',
    );
    expect(code(() => torchMatchOf({ ...PY, versions: { torch: '2.5.1' } }, []))).toMatch(/^MATCH_TORCH: --match-torch: torch 2\.5\.1 in .* is older than any release/);
  });
});

describe('torchMismatch', () => {
  const plan = (ur: string, umf: string) => ({
    components: [
      { name: 'level-zero', status: 'planned' as const, archives: [{ package: 'level-zero', version: '1.20.6' }] },
      { name: 'unified-runtime', status: 'planned' as const, archives: [{ package: 'intel-cmplr-lib-ur', version: ur }, { package: 'umf', version: umf }] },
    ],
  }) as unknown as Parameters<typeof torchMismatch>[1];
  const env = { root: '/venv', from: 'VIRTUAL_ENV', versions: { torch: '2.10.0+xpu', 'intel-cmplr-lib-ur': '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' } };

  it('names only the packages the plan picks differently, and how to match', () => {
    expect(torchMismatch(env, plan('2026.1.0', '1.0.2'))).toBe(
      '/venv (VIRTUAL_ENV) has torch 2.10.0+xpu, installed with intel-cmplr-lib-ur 2025.3.1; this plan picks intel-cmplr-lib-ur 2026.1.0, and with the prefix on the library path torch may load those instead of its own (LIBUR_LOADER_0.x not found, crashes): to match it, add --match-torch',
    );
  });

  it('says nothing when the plan agrees, or the environment has no torch', () => {
    expect(torchMismatch(env, plan('2025.3.1', '1.0.2'))).toBeUndefined();
    expect(torchMismatch({ ...env, versions: { umf: '1.0.2' } }, plan('2026.1.0', '1.1.0'))).toBeUndefined();
  });

  it('goes by the torch table when the environment has torch alone', () => {
    expect(torchMismatch({ ...env, versions: { torch: '2.11.0+xpu' } }, plan('2026.1.0', '1.1.0'))).toMatch(/has torch 2\.11\.0\+xpu, which its release's wheels pin to intel-cmplr-lib-ur 2025\.3\.2, umf 1\.0\.3;/);
  });
});

describe('activeEnvDistributions (no Python started)', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'xpu-env-scan-'));
    const pins = { ur: '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' };
    await installDists(join(dir, 'venv', 'lib', 'python3.11', 'site-packages'), [torchXpuDist('2.10.0+xpu', pins), ...intelRuntimeDists(pins)]);
    await mkdir(join(dir, 'empty', 'lib'), { recursive: true });
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('reads a venv\'s site-packages by the names of its .dist-info directories', async () => {
    const deps = fakeDeps({ env: { VIRTUAL_ENV: join(dir, 'venv') } });
    const got = await activeEnvDistributions(deps, ['torch', 'intel-cmplr-lib-ur', 'umf', 'tcmlib', 'intel-sycl-rt']);
    expect(got).toEqual({
      root: join(dir, 'venv'),
      from: 'VIRTUAL_ENV',
      versions: { torch: '2.10.0+xpu', 'intel-cmplr-lib-ur': '2025.3.1', 'intel-sycl-rt': '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' },
    });
    expect(deps.calls).toEqual([]);
  });

  it('a Windows conda env keeps them in Lib\\site-packages; an env without them, or none active, gives nothing', async () => {
    const dirs: Record<string, string[]> = { 'C:\\envs\\xpu\\Lib\\site-packages': ['torch-2.11.0+xpu.dist-info', 'numpy-2.3.0.dist-info', 'torch'] };
    const win = { ...fakeDeps({ platform: 'win32', env: { VIRTUAL_ENV: 'C:\\venvs\\empty', CONDA_PREFIX: 'C:\\envs\\xpu' } }), readDir: async (p: string) => dirs[p] };
    expect(await activeEnvDistributions(win, ['torch'])).toEqual({ root: 'C:\\envs\\xpu', from: 'CONDA_PREFIX', versions: { torch: '2.11.0+xpu' } });
    expect(await activeEnvDistributions(fakeDeps({ env: { VIRTUAL_ENV: join(dir, 'empty') } }), ['torch'])).toBeUndefined();
    expect(await activeEnvDistributions(fakeDeps({ env: {} }), ['torch'])).toBeUndefined();
  });

  it('parses dist-info names as pip writes them', () => {
    expect(parseDistInfoName('intel_cmplr_lib_ur-2025.3.1.dist-info')).toEqual({ name: 'intel-cmplr-lib-ur', version: '2025.3.1' });
    expect(parseDistInfoName('torch-2.10.0+xpu.dist-info')).toEqual({ name: 'torch', version: '2.10.0+xpu' });
    expect(parseDistInfoName('torch')).toBeUndefined();
  });
});

describe('--match-torch[=PYTHON]', () => {
  const plan = findCommand('plan')!;

  it('takes no value bare, and a value only after =; help shows it so', () => {
    expect(parseCommandArgs(plan, ['--match-torch', '--json']).values['match-torch']).toBe('');
    expect(parseCommandArgs(plan, ['--match-torch=/venv/bin/python']).values['match-torch']).toBe('/venv/bin/python');
    expect(commandHelp(plan)).toContain('--match-torch[=PYTHON]');
    for (const name of ['setup', 'lock', 'bundle']) expect(findCommand(name)!.options.some((o) => o.name === 'match-torch'), name).toBe(true);
  });

  it('becomes the request\'s matchTorch: a path made absolute, a command name kept; --no-match-torch forgets', () => {
    const deps = fakeDeps();
    const flags = (args: string[]) => parsePlanOptions(parseCommandArgs(plan, args).values, deps).flags.matchTorch;
    expect(flags(['--match-torch'])).toEqual({});
    expect(flags(['--match-torch=python3.11'])).toEqual({ python: 'python3.11' });
    expect(flags(['--match-torch=venv/bin/python'])).toEqual({ python: join(process.cwd(), 'venv/bin/python') });
    expect(flags(['--no-match-torch'])).toBeNull();
    expect(flags([])).toBeUndefined();
  });

  it('is remembered like any flag and forgotten by --no-match-torch', () => {
    const recorded: SetupRequest = { components: [], sources: [], indexes: {}, requires: [], refdriver: false, matchTorch: { python: '/venv/bin/python' } };
    expect(mergeRequest(recorded, {}, [], []).request.matchTorch).toEqual({ python: '/venv/bin/python' });
    expect(mergeRequest(recorded, { matchTorch: {} }, [], []).request.matchTorch).toEqual({});
    expect('matchTorch' in mergeRequest(recorded, { matchTorch: null }, [], []).request).toBe(false);
  });
});

describe('pins in the resolver', () => {
  const table: Record<string, Record<string, string[]>> = {
    'intel-cmplr-lib-ur': { '2025.3.1': ['umf ==1.0.*'] },
    umf: { '1.0.2': ['tcmlib >=1.4'], '1.1.0': ['tcmlib >=1.5'] },
    tcmlib: { '1.4.1': [], '1.5.0': [] },
  };
  const provider: Provider<Candidate> = {
    candidates: async (name) => Object.keys(table[name] ?? {}).reverse().map((version) => ({ name, version })),
    satisfies: (r, c) => matchesVersion(c.version, r.spec),
    dependencies: async (c) =>
      table[c.name]![c.version]!.map((l) => ({ name: l.split(' ')[0]!, spec: l.split(' ')[1]!, by: `${c.name} ${c.version}`, byName: c.name })),
  };
  const root = { name: 'intel-cmplr-lib-ur', spec: '==2025.3.1', by: 'unified-runtime' };
  const by = '--match-torch (torch 2.10.0+xpu in /venv/bin/python3)';

  it('hold a package to the exact version (tcmlib 1.4.1, not the newest 1.5.0) and add no package the closure lacks', async () => {
    const out = await resolve([root], provider, [
      { name: 'tcmlib', spec: '==1.4.1', by },
      { name: 'intel-sycl-rt', spec: '==2025.3.1', by },
    ]);
    expect(Object.fromEntries([...out].map(([k, v]) => [k, v.candidate.version]))).toEqual({ 'intel-cmplr-lib-ur': '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' });
  });

  it('a pin against a requirement is a conflict naming both', async () => {
    const err = await resolve([root], provider, [{ name: 'umf', spec: '==1.1.0', by }]).catch((e: unknown) => e);
    expect(isXpuError(err, 'RESOLUTION_CONFLICT')).toBe(true);
    expect((err as XpuError).message).toBe(`cannot satisfy intel-cmplr-lib-ur 2025.3.1: umf ==1.0.* and ${by}: umf ==1.1.0: only umf 1.1.0, umf 1.0.2 can be had`);
  });
});
