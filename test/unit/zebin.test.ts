// The zebin check on real ocloc output (Debian 12's 22.43): a zebin passes, the older patch-token container and cut or
// foreign files are told apart with what they are.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { checkZebin, EM_INTEL_GEN, readGpuBinary } from '../../src/formats/zebin.js';
import { findOcloc } from '../../src/machine/ocloc.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';

const dir = path.join(__dirname, '..', 'fixtures', 'ocloc');
const zebin = readFileSync(path.join(dir, 'vector_add-dg2-22.43.zebin'));
const patchTokens = readFileSync(path.join(dir, 'vector_add-dg2-22.43-patchtokens.bin'));

describe('zebin check', () => {
  it('reads the ELF header and section names of a real zebin', () => {
    expect(readGpuBinary(zebin)).toEqual({
      elfClass: 64,
      type: 1,
      machine: EM_INTEL_GEN,
      sections: ['.text.vector_add', '.symtab', '.spv', '.note.intelgt.metrics', '.ze_info', '.note.intelgt.compat', '.strtab'],
    });
    expect(checkZebin(zebin, 'vector_add')).toMatchObject({ ok: true });
  });

  it('names a missing kernel section', () => {
    expect(checkZebin(zebin, 'saxpy')).toMatchObject({ ok: false, why: expect.stringContaining('no .text.saxpy section (sections: .text.vector_add,') });
  });

  it('tells the patch-token container apart from a zebin', () => {
    expect(readGpuBinary(patchTokens)).toMatchObject({ type: 0xff04, machine: 0, sections: ['SPIRV Object', 'Intel(R) OpenCL Device Binary', '.shstrtab'] });
    expect(checkZebin(patchTokens, 'vector_add')).toMatchObject({ ok: false, why: 'a patch-token binary (ELF type 0xff04), not a zebin' });
  });

  it('refuses a cut file, a host ELF and bytes that are no ELF', () => {
    expect(checkZebin(zebin.subarray(0, 100), 'vector_add')).toMatchObject({ ok: false, why: expect.stringMatching(/^not an ELF file/) });
    expect(checkZebin(readFileSync(process.execPath).subarray(0, 1 << 20), 'vector_add').ok).toBe(false);
    expect(checkZebin(Buffer.from('#!/bin/sh\n'), 'vector_add')).toMatchObject({ ok: false, why: expect.stringContaining('starting 23212f62') });
    const otherMachine = Buffer.from(zebin);
    otherMachine.writeUInt16LE(62, 18);
    expect(checkZebin(otherMachine, 'vector_add')).toMatchObject({ ok: false, why: 'ELF e_machine 62, not EM_INTEL_GEN (205)' });
  });
});

describe('ocloc finder', () => {
  const files = (names: string[]) => fakeDeps({ files: Object.fromEntries(names.map((n) => [n, ''])), env: { PATH: '/opt/a:/usr/bin' } });

  it('takes the flag first, then the prefix, then PATH, listing where it looked', async () => {
    const deps = files(['/p/bin/ocloc', '/usr/bin/ocloc', '/x/ocloc']);
    expect((await findOcloc(deps, { given: '/x/ocloc', prefix: '/p' })).found).toEqual({ path: '/x/ocloc', via: 'flag' });
    expect((await findOcloc(deps, { prefix: '/p' })).found).toEqual({ path: '/p/bin/ocloc', via: 'prefix' });
    const onPath = await findOcloc(files(['/usr/bin/ocloc']), { prefix: '/p' });
    expect(onPath).toEqual({ found: { path: '/usr/bin/ocloc', via: 'PATH' }, tried: ['/p/bin/ocloc (prefix): not there', '/usr/bin/ocloc (PATH): found'] });
  });

  it('a flag naming a missing file finds nothing (no fallback), and the prefix-only search skips PATH', async () => {
    const deps = files(['/usr/bin/ocloc']);
    expect(await findOcloc(deps, { given: '/nope/ocloc' })).toEqual({ found: undefined, tried: ['/nope/ocloc (flag): not there'] });
    expect((await findOcloc(deps, { prefix: '/p', searchPath: false })).found).toBeUndefined();
  });
});
