// The mutation groups (stryker/groups.mjs) still name files, functions and tests that exist, so a move breaks this
// suite instead of the next `npm run test:mutation`.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GROUPS, resolveEntry, resolveGroup } from '../../stryker/groups.mjs';

const ROOT = path.resolve(__dirname, '../..');

describe('mutation groups', () => {
  for (const name of Object.keys(GROUPS)) {
    it(`${name}: every file, declaration and test file it names exists`, () => {
      const group = resolveGroup(name);
      for (const f of group.testFiles) expect(fs.existsSync(path.join(ROOT, f)), f).toBe(true);
      for (const [i, entry] of GROUPS[name]!.mutate.entries()) {
        const resolved = group.mutate[i]!;
        if (typeof entry === 'string') continue;
        const m = /^(.*):(\d+)-(\d+)$/.exec(resolved)!;
        const lines = fs.readFileSync(path.join(ROOT, m[1]!), 'utf8').split('\n');
        const [start, end] = [Number(m[2]), Number(m[3])];
        // The range opens on the declaration itself and, for a function, closes on its last line.
        expect(lines[start - 1], resolved).toMatch(new RegExp(`\\b${entry.fn ?? entry.from}\\b`));
        if (entry.fn) expect(lines[end - 1], resolved).toMatch(/^}/);
        else expect(end, resolved).toBe(lines.length);
      }
    });
  }

  it('a declaration that moved to another file is an error saying where it is now', () => {
    expect(() => resolveEntry('install', { file: 'src/install/install.ts', fn: 'recoverInterruptedSwap' })).toThrow(
      'stryker/groups.mjs: group "install" names recoverInterruptedSwap in src/install/install.ts, which declares no recoverInterruptedSwap at its top level (it is now in src/prefix/prefix-state.ts): fix the group',
    );
  });

  it('a file or pattern that names nothing is an error', () => {
    expect(() => resolveEntry('cache', 'src/no-such-dir/*.ts')).toThrow('group "cache" mutates src/no-such-dir/*.ts, which names no file');
    expect(() => resolveEntry('cache', { file: 'src/gone.ts', from: 'contentRange' })).toThrow('group "cache" names src/gone.ts, which does not exist; contentRange is now in src/net/download.ts');
    expect(() => resolveGroup('nope')).toThrow('no mutation group "nope"; groups: caps, smoke, safe-path, archive, pe, resolver, cache, install');
  });
});
