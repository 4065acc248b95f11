// Whether a tree's libraries and programs are built for the target's CPU: each ELF e_machine or PE Machine against its arch's.
import type { Dirent } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { elfMachine } from '../formats/elf.js';
import { peMachine } from '../formats/pe.js';
import { ARCHES, type ArchFacts, type PlatformLayout } from '../platform/index.js';

/** Both headers sit in a file's first bytes (a PE header's offset is a few hundred bytes in). */
const HEAD_BYTES = 4096;

async function head(file: string): Promise<Buffer> {
  const h = await fs.open(file, 'r');
  try {
    const b = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await h.read(b, 0, HEAD_BYTES, 0);
    return b.subarray(0, bytesRead);
  } finally {
    await h.close();
  }
}

async function* filesUnder(dir: string): AsyncGenerator<string> {
  const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => [] as Dirent[]);
  for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) yield* filesUnder(p);
    else if (e.isFile()) yield p;
  }
}

/**
 * The files under `dirs` of `root` built for another CPU than `layout`'s, each said with both machines: an x86-64
 * library in a prefix for AArch64 (or the other way) would be found by the loader and then refused by it. Only the
 * CPUs of the arch table count: a GPU binary (an ELF of Intel's GPU machine) is no library of the host.
 */
export async function foreignBinaries(root: string, dirs: readonly string[], layout: PlatformLayout): Promise<string[]> {
  const elf = layout.binaryFormat === 'elf';
  const machineOf = elf ? elfMachine : peMachine;
  const machineNo = (a: ArchFacts) => (elf ? a.elfMachine : a.peMachine);
  const said = (a: ArchFacts) => `${a.elfMachineName} (${elf ? `ELF e_machine ${a.elfMachine}` : `PE Machine 0x${a.peMachine.toString(16)}`})`;
  const out: string[] = [];
  for (const dir of dirs) {
    for await (const file of filesUnder(path.join(root, ...dir.split(/[\\/]/)))) {
      const m = machineOf(await head(file).catch(() => Buffer.alloc(0)));
      if (m === undefined || m === machineNo(layout.arch)) continue;
      const other = Object.values(ARCHES).find((a) => machineNo(a) === m);
      if (!other) continue;
      const rel = path.relative(root, file).split(path.sep).join('/');
      out.push(`${rel} is built for ${said(other)}, not for ${said(layout.arch)}: the package is for another CPU`);
    }
  }
  return out;
}
