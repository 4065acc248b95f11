// Whether a tree's libraries are built for the target's CPU: the ELF e_machine and PE Machine read from the headers.
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { elfMachine } from '../../src/formats/elf.js';
import { peMachine } from '../../src/formats/pe.js';
import { foreignBinaries } from '../../src/machine/binary-arch.js';
import { layoutFor } from '../../src/platform/index.js';

const work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-binary-arch-'));
afterAll(() => fs.rm(work, { recursive: true, force: true }));

/** This machine's own C library: a real x86-64 ELF file. */
const HOST_LIBC = '/lib/x86_64-linux-gnu/libc.so.6';

/** The same header with another e_machine (EM_AARCH64, EM_INTEL_GEN): what a file built for that machine starts with. */
async function withMachine(machine: number): Promise<Buffer> {
  const b = Buffer.from((await fs.readFile(HOST_LIBC)).subarray(0, 4096));
  b.writeUInt16LE(machine, 18);
  return b;
}

describe('the CPU a binary is built for', () => {
  it('reads e_machine from an ELF header and Machine from a PE header, and nothing from other files', async () => {
    expect(elfMachine(await fs.readFile(HOST_LIBC))).toBe(62);
    expect(elfMachine(await withMachine(183))).toBe(183);
    expect(elfMachine(Buffer.from('#!/bin/sh\n'))).toBeUndefined();
    const pe = Buffer.alloc(0x100);
    pe.write('MZ', 0);
    pe.writeUInt32LE(0x80, 0x3c);
    pe.writeUInt32LE(0x4550, 0x80);
    pe.writeUInt16LE(0xaa64, 0x84);
    expect(peMachine(pe)).toBe(0xaa64);
    expect(peMachine(pe.subarray(0, 0x82))).toBeUndefined();
  });

  it('names each library built for another CPU of the table, in a tree for linux-x64 and for linux-aarch64', async () => {
    const root = path.join(work, 'tree');
    await fs.mkdir(path.join(root, 'lib', 'intel-opencl'), { recursive: true });
    await fs.mkdir(path.join(root, 'bin'), { recursive: true });
    await fs.copyFile(HOST_LIBC, path.join(root, 'lib', 'libx.so.1'));
    await fs.writeFile(path.join(root, 'lib', 'intel-opencl', 'liba.so'), await withMachine(183));
    // A GPU binary is no library of the host, whatever CPU the plan is for; a text file is no binary.
    await fs.writeFile(path.join(root, 'lib', 'kernel.bin'), await withMachine(205));
    await fs.writeFile(path.join(root, 'bin', 'tool'), '#!/bin/sh\n');
    await fs.symlink('libx.so.1', path.join(root, 'lib', 'libx.so'));
    const dirs = ['lib', 'lib64', 'bin'];
    expect(await foreignBinaries(root, dirs, layoutFor('linux-x64'))).toEqual([
      'lib/intel-opencl/liba.so is built for AArch64 (ELF e_machine 183), not for x86-64 (ELF e_machine 62): the package is for another CPU',
    ]);
    expect(await foreignBinaries(root, dirs, layoutFor('linux-aarch64'))).toEqual([
      'lib/libx.so.1 is built for x86-64 (ELF e_machine 62), not for AArch64 (ELF e_machine 183): the package is for another CPU',
    ]);
  });
});
