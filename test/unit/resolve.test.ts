// The dependency resolver over provider tables written here: newest that fits, backtracking, constraints, conflict chains.
import { describe, expect, it } from 'vitest';
import { XpuError } from '../../src/base/errors.js';
import { resolve, resolveFromChoice, type Candidate, type Provider, type Requirement } from '../../src/versions/resolve.js';
import { matchesVersion } from '../../src/versions/match-spec.js';
import { compareConda } from '../../src/versions/order.js';

/** An index as a table: name -> version -> what it depends on (conda version specs, `name spec`). */
type Table = Record<string, Record<string, { depends?: string[]; constrains?: string[] }>>;

function tableProvider(table: Table): Provider<Candidate> & { asked: string[] } {
  const asked: string[] = [];
  const reqs = (name: string, version: string, lines: string[] = []): Requirement[] =>
    lines.map((l) => {
      const [n = '', ...spec] = l.split(' ');
      return { name: n, spec: spec.join(' '), by: `${name} ${version}`, byName: name };
    });
  return {
    asked,
    async candidates(name) {
      asked.push(name);
      return Object.keys(table[name] ?? {})
        .sort((a, b) => compareConda(b, a))
        .map((version) => ({ name, version }));
    },
    satisfies: (r, c) => matchesVersion(c.version, r.spec),
    async dependencies(c) {
      return reqs(c.name, c.version, table[c.name]![c.version]!.depends);
    },
    constraints(c) {
      return reqs(c.name, c.version, table[c.name]![c.version]!.constrains);
    },
  };
}

const root = (name: string, spec = ''): Requirement => ({ name, spec, by: 'unified-runtime' });
const versions = (m: Map<string, { candidate: Candidate }>) => Object.fromEntries([...m].map(([k, v]) => [k, v.candidate.version]));

describe('resolve', () => {
  const real: Table = {
    'intel-cmplr-lib-ur': {
      '2025.3.1': { depends: ['umf ==1.0.*'] },
      '2026.1.0': { depends: ['umf ==1.1.*'] },
    },
    umf: {
      '1.0.2': { depends: ['tcmlib >=1.4'] },
      '1.1.0': { depends: ['tcmlib >=1.5'] },
    },
    tcmlib: { '1.4.1': {}, '1.5.0': {} },
  };

  it('takes the newest of each that fits every pin: UR 2025.3.1 gets umf 1.0.2 (not 1.1.0) and the newest tcmlib', async () => {
    const out = await resolve([root('intel-cmplr-lib-ur', '==2025.3.1')], tableProvider(real));
    expect(versions(out)).toEqual({ 'intel-cmplr-lib-ur': '2025.3.1', umf: '1.0.2', tcmlib: '1.5.0' });
    expect(out.get('umf')!.requiredBy).toEqual([{ name: 'umf', spec: '==1.0.*', by: 'intel-cmplr-lib-ur 2025.3.1', byName: 'intel-cmplr-lib-ur' }]);
  });

  it('goes back to an older root when the newest cannot be completed', async () => {
    const t: Table = { ...real, tcmlib: { '1.4.1': {} } };
    const out = await resolve([root('intel-cmplr-lib-ur')], tableProvider(t));
    expect(versions(out)).toEqual({ 'intel-cmplr-lib-ur': '2025.3.1', umf: '1.0.2', tcmlib: '1.4.1' });
  });

  it('backtracks over an earlier choice that a later requirement rules out', async () => {
    // a 2 takes the newest b (2), then c 1 wants b <2: only a 1 with b 1 works, or a 2 with b 1.
    const t: Table = {
      a: { '1': { depends: ['b', 'c'] }, '2': { depends: ['b', 'c'] } },
      b: { '1': {}, '2': {} },
      c: { '1': { depends: ['b <2'] } },
    };
    const out = await resolve([root('a')], tableProvider(t));
    expect(versions(out)).toEqual({ a: '2', b: '1', c: '1' });
  });

  it('reports a dead end as the chain of requirements that led there, and what the index has', async () => {
    const t: Table = { ...real, tcmlib: { '1.4.1': {} } };
    const err = await resolve([root('intel-cmplr-lib-ur', '==2026.1.0')], tableProvider(t)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(XpuError);
    const x = err as XpuError;
    expect(x.code).toBe('RESOLUTION_CONFLICT');
    expect(x.message).toBe('cannot satisfy umf 1.1.0: tcmlib >=1.5: only tcmlib 1.4.1 can be had');
    expect(x.details.chain).toEqual([
      'unified-runtime requires intel-cmplr-lib-ur ==2026.1.0',
      'intel-cmplr-lib-ur 2026.1.0 requires umf ==1.1.*',
      'umf 1.1.0 requires tcmlib >=1.5',
    ]);
  });

  it('applies a constraint only to a package something requires, and then holds it', async () => {
    const t: Table = {
      ur: { '1': { depends: ['umf'], constrains: ['level-zero >=1.20.2,<2.0a0'] } },
      umf: { '1': {} },
      'level-zero': { '1.8.12': {}, '1.29.0': {} },
    };
    const alone = await resolve([root('ur')], tableProvider(t));
    expect(alone.has('level-zero')).toBe(false);
    const both = await resolve([root('level-zero', '==1.8.12'), root('ur')], tableProvider(t)).catch((e: unknown) => e);
    expect((both as XpuError).message).toMatch(/ur 1: level-zero >=1\.20\.2,<2\.0a0/);
  });

  it('asks the provider for each name once per decision, in the order names were asked for', async () => {
    const p = tableProvider(real);
    await resolve([root('intel-cmplr-lib-ur', '==2025.3.1')], p);
    expect(p.asked).toEqual(['intel-cmplr-lib-ur', 'umf', 'tcmlib']);
  });
});

describe('resolve: every requirement, limit and conflict counts', () => {
  const ur2025: Table = { 'intel-cmplr-lib-ur': { '2025.3.1': { depends: ['umf ==1.0.*'] } }, umf: { '1.0.2': { depends: ['tcmlib >=1.4'] } }, tcmlib: { '1.4.1': {}, '1.5.0': {} } };
  const conflictOf = async (t: Table, roots: Requirement[]) => (await resolve(roots, tableProvider(t)).catch((e: unknown) => e)) as XpuError;

  it('takes a candidate only when it meets every requirement on its name, not just one', async () => {
    const t: Table = { umf: { '1.0.2': {}, '1.1.0': {} } };
    expect(versions(await resolve([root('umf', '>=1'), root('umf', '<1.1')], tableProvider(t)))).toEqual({ umf: '1.0.2' });
  });

  it('holds the limits it is given (a user\'s PyTorch pins) on whatever requires that name, at any depth', async () => {
    const t: Table = { ur: { '1': { depends: ['umf'] } }, umf: { '1.0.2': {}, '1.0.3': {}, '1.1.0': {} } };
    const torch = (spec: string): Requirement => ({ name: 'umf', spec, by: 'torch 2.9.0' });
    expect(versions(await resolve([root('ur')], tableProvider(t), [torch('>=1.0.3'), torch('<1.1')]))).toEqual({ ur: '1', umf: '1.0.3' });
    expect(versions(await resolve([root('ur')], tableProvider(t)))).toEqual({ ur: '1', umf: '1.1.0' });
  });

  it('works with a provider that knows no constraints', async () => {
    const { constraints: _none, ...p } = tableProvider(ur2025);
    expect(versions(await resolve([root('intel-cmplr-lib-ur', '==2025.3.1')], p))).toEqual({ 'intel-cmplr-lib-ur': '2025.3.1', umf: '1.0.2', tcmlib: '1.5.0' });
  });

  it('holds a constraint on a package asked for after it, and one on a package chosen before it', async () => {
    const t: Table = {
      ur: { '1': { depends: ['adapter'], constrains: ['level-zero <1.20'] } },
      adapter: { '1': { depends: ['level-zero'] } },
      'level-zero': { '1.8.12': {}, '1.29.0': {} },
    };
    expect(versions(await resolve([root('ur')], tableProvider(t)))).toEqual({ ur: '1', adapter: '1', 'level-zero': '1.8.12' });
    const err = await conflictOf(t, [root('level-zero', '>=1.20'), root('ur')]);
    expect(err.details).toEqual({
      package: 'level-zero',
      requirements: [
        { by: 'unified-runtime', requires: 'level-zero >=1.20' },
        { by: 'ur 1', requires: 'level-zero <1.20' },
      ],
      available: ['1.29.0'],
      chain: ['unified-runtime requires ur', 'ur 1 requires level-zero <1.20'],
    });
  });

  it('names a package already chosen that a later requirement rules out, with every requirement on it and the chain through the asker', async () => {
    const t: Table = { a: { '1': { depends: ['b'] } }, b: { '1': { depends: ['a >=2'] } } };
    const err = await conflictOf(t, [root('a')]);
    expect(err.message).toBe('cannot satisfy unified-runtime: a and b 1: a >=2: only a 1 can be had');
    expect(err.details).toMatchObject({ package: 'a', available: ['1'] });
    expect(err.details.chain).toEqual(['unified-runtime requires a', 'a 1 requires b', 'b 1 requires a >=2']);
    expect(err.hints).toEqual([
      'unified-runtime requires a',
      'a 1 requires b',
      'b 1 requires a >=2',
      'pin versions that fit together with --require, or choose another source with --source',
    ]);
  });

  it('reports the deepest conflict met, the latest of equally deep ones, and says when the source has none of a name', async () => {
    const deepFirst: Table = { x: { '2': { depends: ['y'] }, '1': { depends: ['w >=9'] } }, y: { '1': { depends: ['z >=9'] } } };
    const deepLast: Table = { x: { '2': { depends: ['w >=9'] }, '1': { depends: ['y'] } }, y: { '1': { depends: ['z >=9'] } } };
    const level: Table = { x: { '2': { depends: ['w >=9'] }, '1': { depends: ['v >=9'] } } };
    expect((await conflictOf(deepFirst, [root('x')])).message).toBe('cannot satisfy y 1: z >=9: no z can be had from this source');
    expect((await conflictOf(deepLast, [root('x')])).details.package).toBe('z');
    expect((await conflictOf(level, [root('x')])).details.package).toBe('v');
  });

  it('lists every version the index has and every requirement that ruled them out', async () => {
    const t: Table = { a: { '1': { depends: ['b', 'c ==1'] } }, b: { '1': { depends: ['c ==2'] } }, c: { '1': {}, '2': {}, '3': {} } };
    const err = await conflictOf(t, [root('a')]);
    expect(err.message).toBe('cannot satisfy a 1: c ==1 and b 1: c ==2: only c 3, c 2, c 1 can be had');
  });

  it('names a candidate by version and build in a conflict', async () => {
    const p = tableProvider({ 'level-zero': { '1.29.0': {} } });
    const built: Provider<Candidate> = { ...p, candidates: async (n) => (await p.candidates(n)).map((c) => ({ ...c, build: 'h84d6215_0' })) };
    const err = await resolve([root('level-zero', '==1.20.6')], built).catch((e: unknown) => e);
    expect(err).toMatchObject({ message: 'cannot satisfy unified-runtime: level-zero ==1.20.6: only level-zero 1.29.0 h84d6215_0 can be had' });
  });

  it('passes on an error of the index itself, without trying wider roots', async () => {
    const p = tableProvider(ur2025);
    const broken: Provider<Candidate> = { ...p, candidates: async () => Promise.reject(new Error('index unreadable')) };
    await expect(resolveFromChoice([root('umf')], [root('umf')], broken)).rejects.toThrow(/^index unreadable$/);
  });

  it('decides each name once, however many packages ask for it', async () => {
    const t: Table = { a: { '1': { depends: ['c'] } }, b: { '1': { depends: ['c', 'a'] } }, c: { '1': {} } };
    const p = tableProvider(t);
    await resolve([root('a'), root('b')], p);
    expect(p.asked).toEqual(['a', 'b', 'c']);
  });

  it('gives up after 5000 attempts on an index whose every path dead-ends, and does not try wider roots then', async () => {
    // 13 names of two versions each, the last needing a package nobody has: 2^13 dead ends.
    const t: Table = {};
    for (let i = 0; i < 13; i++) t[`a${i}`] = { '1': { depends: [i < 12 ? `a${i + 1}` : 'z >=9'] }, '2': { depends: [i < 12 ? `a${i + 1}` : 'z >=9'] } };
    const p = tableProvider(t);
    const err = (await resolve([root('a0')], p).catch((e: unknown) => e)) as XpuError;
    expect(err).toMatchObject({ code: 'RESOLUTION_CONFLICT', message: expect.stringMatching(/^gave up resolving dependencies after 5000 attempts \(at a\d+\)$/) });
    expect(err.hints).toEqual(['pin the versions you want with --require, or name fewer packages']);
    expect(p.asked.length).toBe(5000);
    const wider = { ...t, ok: { '1': {} } };
    await expect(resolveFromChoice([root('a0')], [root('ok')], tableProvider(wider))).rejects.toThrow(/gave up resolving/);
  });
});

describe('resolveFromChoice: the roots a source chose, and older ones when their closure cannot hold', () => {
  // A mirror that has not synced umf 1.1 yet: the newest UR needs it, the one before does not.
  const mirror: Table = {
    'intel-cmplr-lib-ur': {
      '2025.3.1': { depends: ['umf ==1.0.*'] },
      '2025.3.2': { depends: ['umf ==1.0.*'] },
      '2026.1.0': { depends: ['umf ==1.1.*'] },
    },
    umf: { '1.0.2': { depends: ['tcmlib >=1.4'] } },
    tcmlib: { '1.4.1': {} },
  };
  const chosen = [root('intel-cmplr-lib-ur', '==2026.1.0')];

  it('goes back to the newest older root whose closure holds, and says why it left the chosen one', async () => {
    const out = await resolveFromChoice(chosen, [root('intel-cmplr-lib-ur', '<=2026.1.0')], tableProvider(mirror));
    expect(versions(out.solved)).toEqual({ 'intel-cmplr-lib-ur': '2025.3.2', umf: '1.0.2', tcmlib: '1.4.1' });
    expect(out.left).toBe('intel-cmplr-lib-ur 2026.1.0 needs umf ==1.1.*, which this index lacks');
  });

  it('says which requirements no single version meets together when it leaves the chosen roots', async () => {
    const t: Table = { a: { '1': {}, '2': { depends: ['c ==1', 'b'] } }, b: { '1': { depends: ['c ==2'] } }, c: { '1': {}, '2': {} } };
    const out = await resolveFromChoice([root('a', '==2')], [root('a')], tableProvider(t));
    expect(versions(out.solved)).toEqual({ a: '1' });
    expect(out.left).toBe('a 2 needs c ==1 and b 1 needs c ==2, which no c of this index meets together');
  });

  it("keeps within the component's constraints: with >=2025.3.2 ruled out, 2025.3.1", async () => {
    const out = await resolveFromChoice(chosen, [root('intel-cmplr-lib-ur', '<=2026.1.0,!=2025.3.2')], tableProvider(mirror));
    expect(versions(out.solved)['intel-cmplr-lib-ur']).toBe('2025.3.1');
  });

  it('takes the chosen roots as they are when their closure holds, asking nothing about older ones', async () => {
    const p = tableProvider({ ...mirror, umf: { ...mirror.umf, '1.1.0': { depends: ['tcmlib >=1.4'] } } });
    const out = await resolveFromChoice(chosen, [root('intel-cmplr-lib-ur', '<=2026.1.0')], p);
    expect(versions(out.solved)).toEqual({ 'intel-cmplr-lib-ur': '2026.1.0', umf: '1.1.0', tcmlib: '1.4.1' });
    expect(out.left).toBeUndefined();
    expect(p.asked).toEqual(['intel-cmplr-lib-ur', 'umf', 'tcmlib']);
  });

  it('a version the user pinned (no wider roots) stays: the conflict names it', async () => {
    const err = await resolveFromChoice(chosen, undefined, tableProvider(mirror)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'RESOLUTION_CONFLICT', message: 'cannot satisfy intel-cmplr-lib-ur 2026.1.0: umf ==1.1.*: only umf 1.0.2 can be had' });
  });

  it('when no older root within the constraints holds either, the conflict of the chosen one is the error', async () => {
    const err = await resolveFromChoice(chosen, [root('intel-cmplr-lib-ur', '<=2026.1.0,>=2026')], tableProvider(mirror)).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'RESOLUTION_CONFLICT', message: 'cannot satisfy intel-cmplr-lib-ur 2026.1.0: umf ==1.1.*: only umf 1.0.2 can be had' });
  });
});
