// The streaming placeholder rewrite gives what a whole-file replace gives, wherever the pieces are cut.
import { describe, expect, it } from 'vitest';
import { textReplacer } from '../../src/install/relocate.js';

function streamed(data: Buffer, cuts: number[], search: string, replacement: string): { out: string; hits: number; changed: boolean } {
  let hits = 0;
  const edit = textReplacer(Buffer.from(search), Buffer.from(replacement), (n) => void (hits += n));
  const out: Buffer[] = [];
  let from = 0;
  for (const c of [...cuts, data.length]) {
    out.push(edit.step(data.subarray(from, c)));
    from = c;
  }
  out.push(edit.flush());
  return { out: Buffer.concat(out).toString(), hits, changed: edit.changed };
}

describe('textReplacer', () => {
  it('matches a whole-file replace for every single cut and for cuts at each byte', () => {
    const text = '/opt/ph/lib:/opt/ph/opt/ph//opt/p/opt/phX/opt/ph';
    const whole = text.split('/opt/ph').join('/usr/local/prefix');
    const hits = text.split('/opt/ph').length - 1;
    for (let c = 0; c <= text.length; c++) expect(streamed(Buffer.from(text), [c], '/opt/ph', '/usr/local/prefix'), `cut at ${c}`).toEqual({ out: whole, hits, changed: true });
    expect(streamed(Buffer.from(text), Array.from({ length: text.length }, (_, i) => i), '/opt/ph', '/usr/local/prefix')).toEqual({ out: whole, hits, changed: true });
  });

  it('overlapping candidates are taken left to right, as indexOf does', () => {
    expect(streamed(Buffer.from('aaaaa'), [1, 3], 'aa', 'b')).toEqual({ out: 'bba', hits: 2, changed: true });
  });

  it('says unchanged when the placeholder is not there, and passes the bytes through', () => {
    expect(streamed(Buffer.from('no placeholder here'), [3, 9], '/opt/ph', '/x')).toEqual({ out: 'no placeholder here', hits: 0, changed: false });
  });
});
