// The search over components, their candidates and their needs, against tables written here.
import { describe, expect, it } from 'vitest';
import { XpuError } from '../../src/base/errors.js';
import { settle } from '../../src/versions/settle.js';
import { tableProvider, type Cand } from '../support/settle-table.js';

const versions = (chosen: Map<string, Cand>) => Object.fromEntries([...chosen].map(([k, c]) => [k, c.version]));

describe('settle', () => {
  it('takes every component\'s first candidate when nothing conflicts', async () => {
    const s = await settle(['ur', 'l0'], tableProvider({ ur: [{ version: '2026.2', source: 'pypi', needs: ['l0>=1.25'] }], l0: [{ version: '1.26', source: 'conda' }] }));
    expect(versions(s.chosen)).toEqual({ ur: '2026.2', l0: '1.26' });
    expect(s.rejected.get('ur')).toEqual([]);
  });

  it('turns away a candidate whose need no candidate of the other component meets, saying the newest reachable', async () => {
    const s = await settle(['ur', 'l0'], tableProvider({
      ur: [{ version: '2026.2.0', source: 'pypi', needs: ['l0>=1.25'] }, { version: '2025.3.2', source: 'pypi' }],
      l0: [{ version: '1.8.12', source: 'apt' }],
    }));
    expect(versions(s.chosen)).toEqual({ ur: '2025.3.2', l0: '1.8.12' });
    expect(s.rejected.get('ur')).toEqual([{ candidate: '2026.2.0 (pypi)', why: 'needs l0>=1.25; the newest reachable is 1.8.12 (apt)' }]);
  });

  it('moves the needed component to a later source rather than the needer to an older version', async () => {
    const s = await settle(['ur', 'l0'], tableProvider({
      ur: [{ version: '2026.2.0', source: 'pypi', needs: ['l0>=1.25'] }, { version: '2025.3.2', source: 'pypi' }],
      l0: [{ version: '1.8.12', source: 'apt' }, { version: '1.26.0', source: 'conda' }],
    }));
    expect(versions(s.chosen)).toEqual({ ur: '2026.2.0', l0: '1.26.0' });
  });

  it('goes back two steps when the conflict shows only at the third component', async () => {
    // a's first two candidates each pick a b whose needs of c no c meets together with a's own need of c.
    const s = await settle(['a', 'b', 'c'], tableProvider({
      a: [{ version: '3', source: 's', needs: ['c>=3'] }, { version: '2', source: 's', needs: ['c>=2'] }, { version: '1', source: 's' }],
      b: [{ version: '3', source: 's', needs: ['c<2'] }, { version: '2', source: 's', needs: ['c<2'] }, { version: '1', source: 's', needs: ['c<2'] }],
      c: [{ version: '3', source: 's' }, { version: '2', source: 's' }, { version: '1', source: 's' }],
    }));
    expect(versions(s.chosen)).toEqual({ a: '1', b: '3', c: '1' });
    expect(s.rejected.get('a')!.map((r) => r.candidate)).toEqual(['3 (s)', '2 (s)']);
    // b's candidates tried under a 3 and a 2 are not about the choice that held.
    expect(s.rejected.get('b')).toEqual([]);
  });

  it('fails only when nothing works, listing every component\'s candidates turned away and why', async () => {
    const e = await settle(['ur', 'l0'], tableProvider({
      ur: [{ version: '2026.2.0', source: 'pypi', needs: ['l0>=1.25'] }, { version: '2026.1.0', source: 'conda', needs: ['l0>=1.25'] }],
      l0: [{ version: '1.8.12', source: 'apt' }],
    })).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(XpuError);
    expect((e as XpuError).code).toBe('RESOLUTION_CONFLICT');
    expect((e as XpuError).message).toBe('no choice of ur works together here');
    expect((e as XpuError).hints).toEqual([
      'tried ur 2026.2.0 (pypi): needs l0>=1.25; the newest reachable is 1.8.12 (apt)',
      'tried ur 2026.1.0 (conda): needs l0>=1.25; the newest reachable is 1.8.12 (apt)',
    ]);
  });

  it('leaves out a component with no candidate, and a need on it binds nothing', async () => {
    const s = await settle(['ur', 'l0'], tableProvider({ ur: [{ version: '2026.2.0', source: 'pypi', needs: ['l0>=1.25'] }], l0: [] }));
    expect(versions(s.chosen)).toEqual({ ur: '2026.2.0' });
  });

  it('is deterministic: the same tables give the same choices and reasons', async () => {
    const table = {
      a: [{ version: '3', source: 's', needs: ['c>=3'] }, { version: '2', source: 's', needs: ['c>=2'] }, { version: '1', source: 's' }],
      b: [{ version: '2', source: 's', needs: ['c<2'] }, { version: '1', source: 's' }],
      c: [{ version: '3', source: 's' }, { version: '1', source: 's' }],
    };
    const runs = await Promise.all([1, 2, 3].map(() => settle(['a', 'b', 'c'], tableProvider(table))));
    const shown = runs.map((s) => JSON.stringify({ chosen: versions(s.chosen), rejected: [...s.rejected] }));
    expect(new Set(shown).size).toBe(1);
  });
});
