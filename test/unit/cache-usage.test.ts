// The cache's parts, their sizes and cleaning them (all, or what is unused), and the start-up lines that load a prefix.
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cacheParts, cleanPart, parseDuration, partUsage } from '../../src/cache/usage.js';
import { linesLoadingPrefix } from '../../src/prefix/uninstall.js';

const tmp = mkdtempSync(path.join(tmpdir(), 'xpu-cache-usage-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));
const DAY = 86_400_000;
const now = Date.parse('2026-12-01T00:00:00Z');

/** Writes a file whose last read and write were `ageDays` ago. */
function put(file: string, bytes: number, ageDays: number): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, Buffer.alloc(bytes));
  const t = (now - ageDays * DAY) / 1000;
  utimesSync(file, t, t);
}

function cacheWithEverything(): { cache: string; code: string } {
  const cache = mkdtempSync(path.join(tmp, 'cache-'));
  const code = mkdtempSync(path.join(tmp, 'dist-'));
  put(path.join(cache, 'sha256/ab/abcd'), 1000, 40);
  put(path.join(cache, 'sha256/cd/cdef'), 3000, 1);
  put(path.join(cache, 'tmp/ffff.part'), 50, 0);
  put(path.join(cache, 'tmp/eeee.part'), 70, 3);
  put(path.join(cache, 'index/entries/12/1234.json'), 200, 40);
  put(path.join(cache, 'index/bodies/56/5678'), 9000, 2);
  put(path.join(cache, 'plans/aaaa.json'), 300, 40);
  put(path.join(cache, 'answers/0123456789abcdef.json'), 700, 40);
  put(path.join(cache, 'notes.txt'), 10, 400);
  put(path.join(code, '.xpu-setup-0123456789abcdef-v20.20.2-x64-env.v8cache'), 500, 40);
  put(path.join(code, 'xpu-setup.cjs'), 4000, 400);
  return { cache, code };
}

describe('cache parts', () => {
  it('size: each part by files and bytes; the code cache counts only V8 cache files beside the bundle', async () => {
    const { cache, code } = cacheWithEverything();
    const rows = await Promise.all(cacheParts(cache, code).map(partUsage));
    expect(rows.map((r) => [r.id, r.files, r.bytes])).toEqual([
      ['downloads', 2, 4000],
      ['partial', 2, 120],
      ['index', 2, 9200],
      ['plans', 1, 300],
      ['answers', 1, 700],
      ['code', 1, 500],
    ]);
    expect(rows.find((r) => r.id === 'index')!.path).toBe(path.join(cache, 'index'));
  });

  it('clean --older-than removes only what was not used for that long, then the empty directories', async () => {
    const { cache, code } = cacheWithEverything();
    const rows = [];
    for (const p of cacheParts(cache, code)) rows.push(await cleanPart(p, { now, olderThanMs: 30 * DAY }));
    expect(rows.map((r) => [r.id, r.files, r.bytes])).toEqual([
      ['downloads', 1, 1000],
      ['partial', 0, 0],
      ['index', 1, 200],
      ['plans', 1, 300],
      ['answers', 1, 700],
      ['code', 1, 500],
    ]);
    expect(existsSync(path.join(cache, 'sha256/ab'))).toBe(false);
    expect(existsSync(path.join(cache, 'sha256/cd/cdef'))).toBe(true);
    expect(existsSync(path.join(cache, 'plans'))).toBe(false);
  });

  it('clean removes every part, keeps a partial download that is still being written, and nothing it does not own', async () => {
    const { cache, code } = cacheWithEverything();
    for (const p of cacheParts(cache, code)) await cleanPart(p, { now });
    expect(readdirSync(cache).sort()).toEqual(['notes.txt', 'tmp']);
    expect(readdirSync(path.join(cache, 'tmp'))).toEqual(['ffff.part']);
    expect(readdirSync(code)).toEqual(['xpu-setup.cjs']);
  });

  it('clean of a cache directory that does not exist removes nothing and does not fail', async () => {
    const rows = await Promise.all(cacheParts(path.join(tmp, 'none')).map((p) => cleanPart(p, { now })));
    expect(rows.every((r) => r.files === 0)).toBe(true);
  });

  it('ages: a number and a unit', () => {
    expect(parseDuration('30d')).toBe(30 * DAY);
    expect(parseDuration('12h')).toBe(DAY / 2);
    expect(parseDuration('2w')).toBe(14 * DAY);
    expect(parseDuration('1.5d')).toBe(1.5 * DAY);
    expect(parseDuration('90m')).toBe(90 * 60_000);
    for (const bad of ['30', 'd', '-1d', '3 days', '']) expect(parseDuration(bad)).toBeUndefined();
  });
});

describe('start-up lines that load a prefix', () => {
  const home = '/home/ada';
  const prefix = '/home/ada/.local/share/xpu-setup';

  it('finds the env file and env lines however the home directory is written, and not a longer path or a comment', () => {
    const bashrc = [
      'export EDITOR=vi',
      '. ~/.local/share/xpu-setup/env.sh',
      '# . ~/.local/share/xpu-setup/env.sh',
      'source "$HOME/.local/share/xpu-setup/env.sh"',
      '[ -f ${HOME}/.local/share/xpu-setup/env.sh ] && . ${HOME}/.local/share/xpu-setup/env.sh',
      '. ~/.local/share/xpu-setup-old/env.sh',
      `eval "$(xpu-setup env --prefix ${prefix})"`,
    ].join('\n');
    expect(linesLoadingPrefix(bashrc, prefix, home, false).map((l) => l.line)).toEqual([2, 4, 5, 7]);
  });

  it('for the default prefix, also `xpu-setup env` lines that name no prefix; fish and PowerShell spellings', () => {
    const fish = ['xpu-setup env fish | source', 'npx xpu-setup env --prefix /opt/other | source', 'source ~/.local/share/xpu-setup/env.fish'].join('\n');
    expect(linesLoadingPrefix(fish, prefix, home, true).map((l) => l.line)).toEqual([1, 3]);
    expect(linesLoadingPrefix(fish, prefix, home, false).map((l) => l.line)).toEqual([3]);
    const ps = ['. $env:USERPROFILE\\AppData\\Local\\xpu-setup\\prefix\\env.ps1', 'rem nothing'].join('\r\n');
    expect(linesLoadingPrefix(ps, 'C:\\Users\\ada\\AppData\\Local\\xpu-setup\\prefix', 'C:\\Users\\ada', false)).toEqual([
      { line: 1, text: '. $env:USERPROFILE\\AppData\\Local\\xpu-setup\\prefix\\env.ps1' },
    ]);
  });
});
