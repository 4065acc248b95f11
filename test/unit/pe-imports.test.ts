// The PE import reader and the DLL check, on DLLs cross-built here with mingw-w64 and on PE files written byte by byte.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isXpuError } from '../../src/errors.js';
import { readPeImports } from '../../src/formats/pe.js';
import { describeUnmet, unmetDllImports } from '../../src/inspect/library-needs.js';
import { realDeps } from '../../src/real-deps.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { compileTcmWindows, compileUmfWindows, compileUrWindowsDouble } from '../support/packages.js';

const run = promisify(execFile);
let work: string;
let ur: Map<string, Buffer>;
let umf: Buffer;
let tcm: Map<string, Buffer>;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'xpu-pe-'));
  ur = await compileUrWindowsDouble('2025.3.1', join(work, 'build-ur'), '1.0.2');
  umf = await compileUmfWindows('1.0.2', join(work, 'build-umf'));
  tcm = await compileTcmWindows('1.5.0', join(work, 'build-tcm'));
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

/**
 * A PE32+ DLL written byte by byte: headers, one section holding the import and delay-import descriptors and the DLL
 * names. mingw's linker never fills the delay-import directory, so this is how a delay-loading DLL is made here.
 */
function peBytes(imports: string[], delayImports: string[] = []): Buffer {
  const SECTION_RVA = 0x1000;
  const RAW = 0x200;
  const importTable = (imports.length + 1) * 20;
  const delayTable = (delayImports.length + 1) * 32;
  const names: Buffer[] = [];
  const nameRva: number[] = [];
  let at = importTable + delayTable;
  for (const n of [...imports, ...delayImports]) {
    nameRva.push(SECTION_RVA + at);
    names.push(Buffer.from(n + '\0', 'latin1'));
    at += n.length + 1;
  }
  const section = Buffer.alloc(at);
  imports.forEach((_, i) => section.writeUInt32LE(nameRva[i]!, i * 20 + 12));
  delayImports.forEach((_, i) => {
    section.writeUInt32LE(1, importTable + i * 32); // attributes: RVAs
    section.writeUInt32LE(nameRva[imports.length + i]!, importTable + i * 32 + 4);
  });
  Buffer.concat(names).copy(section, importTable + delayTable);
  const b = Buffer.alloc(RAW + section.length);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(0x40, 0x3c);
  b.write('PE\0\0', 0x40, 'latin1');
  const coff = 0x44;
  b.writeUInt16LE(0x8664, coff);
  b.writeUInt16LE(1, coff + 2);
  b.writeUInt16LE(240, coff + 16);
  b.writeUInt16LE(0x2022, coff + 18);
  const opt = coff + 20;
  b.writeUInt16LE(0x20b, opt);
  b.writeUInt32LE(16, opt + 108);
  b.writeUInt32LE(SECTION_RVA, opt + 112 + 1 * 8);
  b.writeUInt32LE(importTable, opt + 112 + 1 * 8 + 4);
  if (delayImports.length) {
    b.writeUInt32LE(SECTION_RVA + importTable, opt + 112 + 13 * 8);
    b.writeUInt32LE(delayTable, opt + 112 + 13 * 8 + 4);
  }
  const sec = opt + 240;
  b.write('.idata', sec, 'latin1');
  b.writeUInt32LE(section.length, sec + 8);
  b.writeUInt32LE(SECTION_RVA, sec + 12);
  b.writeUInt32LE(section.length, sec + 16);
  b.writeUInt32LE(RAW, sec + 20);
  section.copy(b, RAW);
  return b;
}

/** What the reader throws for `bytes`, as [code, message]. */
function failure(bytes: Buffer, file = 'bin/umf.dll'): [string, string] {
  try {
    readPeImports(bytes, file);
  } catch (e) {
    if (isXpuError(e)) return [e.code, e.message];
    throw e;
  }
  throw new Error('no error');
}

describe('readPeImports', () => {
  it('reads the import table of mingw-built DLLs as objdump does', async () => {
    const adapter = readPeImports(ur.get('ur_adapter_level_zero.dll')!, 'ur_adapter_level_zero.dll')!;
    expect(adapter).toEqual({ machine: 'x64', dll: true, imports: ['KERNEL32.dll', 'msvcrt.dll', 'umf.dll', 'ze_loader.dll'], delayImports: [] });
    const file = join(work, 'umf.dll');
    await writeFile(file, umf);
    const { stdout } = await run('x86_64-w64-mingw32-objdump', ['-p', file]);
    expect(readPeImports(umf, 'umf.dll')!.imports).toEqual([...stdout.matchAll(/DLL Name: (\S+)/g)].map((m) => m[1]));
  });

  it('reads delay-load imports apart from the ones loaded with the file', () => {
    const pe = readPeImports(peBytes(['KERNEL32.dll', 'umf.dll'], ['tcm.dll', 'api-ms-win-core-synch-l1-2-0.dll']), 'x.dll')!;
    expect(pe.imports).toEqual(['KERNEL32.dll', 'umf.dll']);
    expect(pe.delayImports).toEqual(['tcm.dll', 'api-ms-win-core-synch-l1-2-0.dll']);
  });

  it('says undefined for what does not start like a PE file', () => {
    expect(readPeImports(Buffer.from('xpu-setup test double: not a real umf.dll'), 'umf.dll')).toBeUndefined();
    expect(readPeImports(Buffer.alloc(0), 'umf.dll')).toBeUndefined();
  });

  it('refuses a damaged file with BAD_LIBRARY, naming it and what is wrong', () => {
    const good = peBytes(['umf.dll']);
    expect(failure(good.subarray(0, 0x50))).toEqual(['BAD_LIBRARY', 'bin/umf.dll is not a valid Windows DLL or EXE: the COFF header lies beyond the end of the file (80 bytes)']);
    const noSig = Buffer.from(good);
    noSig.writeUInt32LE(0x100, 0x3c);
    expect(failure(noSig)).toEqual(['BAD_LIBRARY', 'bin/umf.dll is not a valid Windows DLL or EXE: no PE signature at offset 0x100']);
    const farLfanew = Buffer.from(good);
    farLfanew.writeUInt32LE(0xfffffff0, 0x3c);
    expect(failure(farLfanew)[1]).toMatch(/the PE signature lies beyond the end of the file/);
    const outside = Buffer.from(good);
    outside.writeUInt32LE(0x9000, 0x44 + 20 + 112 + 8);
    expect(failure(outside)).toEqual(['BAD_LIBRARY', "bin/umf.dll is not a valid Windows DLL or EXE: the import directory (RVA 0x9000) lies outside every section's data"]);
    const badName = Buffer.from(good);
    badName.writeUInt32LE(0x7000, 0x200 + 12);
    expect(failure(badName)[1]).toMatch(/the DLL name of import entry 1 \(RVA 0x7000\) lies outside every section's data$/);
    // One import entry and the end marker (40 bytes), the empty delay-import table (32), then the name, cut after 3 bytes.
    const unterminated = peBytes(['umf.dll']).subarray(0, 0x200 + 40 + 32 + 3);
    expect(failure(Buffer.from(unterminated))[1]).toMatch(/the DLL name of import entry 1 at RVA 0x1048 has no end$/);
    const magic = Buffer.from(good);
    magic.writeUInt16LE(0x107, 0x58);
    expect(failure(magic)[1]).toMatch(/unknown optional header magic 0x107$/);
  });
});

describe('unmetDllImports', () => {
  /** A prefix-shaped tree: `files` under bin/ (by file name). */
  const tree = async (name: string, files: Record<string, Buffer>) => {
    const root = join(work, name);
    await mkdir(join(root, 'bin'), { recursive: true });
    for (const [f, data] of Object.entries(files)) await writeFile(join(root, 'bin', f), data);
    return root;
  };
  const linux = () => fakeDeps({ platform: 'linux' });

  it('finds every import of the UR closure in the tree, and on Linux takes the Windows DLLs as present', async () => {
    const root = await tree('whole', { ...Object.fromEntries(ur), 'umf.dll': umf, ...Object.fromEntries(tcm), 'ze_loader.dll': ur.get('ur_loader.dll')! });
    expect(await unmetDllImports(linux(), root, ['bin', 'Library\\bin'])).toEqual({ unmet: [], damaged: [], assumed: ['KERNEL32.dll', 'msvcrt.dll', 'OpenCL.dll'] });
  });

  it('names umf.dll and the package that brings it when the adapters import it and the tree lacks it', async () => {
    const root = await tree('no-umf', { ...Object.fromEntries(ur), ...Object.fromEntries(tcm) });
    const r = await unmetDllImports(linux(), root, ['bin']);
    expect(r.unmet.map(describeUnmet)).toEqual([
      'bin/ur_adapter_level_zero.dll needs umf.dll, which is neither in the new tree nor on this system (it comes with umf (PyPI umf, conda umf))',
      'bin/ur_adapter_level_zero_v2.dll needs umf.dll, which is neither in the new tree nor on this system (it comes with umf (PyPI umf, conda umf))',
    ]);
  });

  it("names umf.dll's libhwloc-15.dll when tcmlib is left out, matching names without regard to case", async () => {
    const root = await tree('no-hwloc', { 'UMF.DLL': umf, 'ur_adapter_level_zero.dll': ur.get('ur_adapter_level_zero.dll')!, 'ZE_LOADER.dll': ur.get('ur_loader.dll')! });
    const r = await unmetDllImports(linux(), root, ['bin']);
    expect(r.unmet).toEqual([{ file: 'bin/UMF.DLL', library: 'libhwloc-15.dll', providedBy: 'hwloc (PyPI tcmlib, conda libhwloc)' }]);
  });

  it('on Windows looks in System32 for the system DLLs instead of taking them as present; API sets always resolve', async () => {
    const root = await tree('on-windows', { 'x.dll': peBytes(['KERNEL32.dll', 'api-ms-win-crt-runtime-l1-1-0.dll', 'VCRUNTIME140.dll'], ['dbghelp.dll']) });
    const has = new Set(['C:\\Windows\\System32\\KERNEL32.dll']);
    const deps = fakeDeps({ platform: 'win32', env: { SystemRoot: 'C:\\Windows', PATH: 'C:\\tools' }, exists: (p) => has.has(p) });
    const r = await unmetDllImports(deps, root, ['bin']);
    expect(r.assumed).toEqual([]);
    expect(r.unmet.map(describeUnmet)).toEqual([
      'bin/x.dll needs VCRUNTIME140.dll, which is neither in the new tree nor on this system (it comes with the Visual C++ runtime (conda vc14_runtime, or the Microsoft Visual C++ Redistributable))',
      'bin/x.dll delay-loads dbghelp.dll, which is neither in the new tree nor on this system, so its first call into it fails',
    ]);
  });

  it('reports a damaged DLL by name instead of passing over it', async () => {
    const root = await tree('damaged', { 'umf.dll': umf.subarray(0, 0x90), 'notes.dll': Buffer.from('not a DLL') });
    const r = await unmetDllImports(realDeps(), root, ['bin']);
    expect(r.damaged).toEqual([
      'bin/notes.dll is not a Windows DLL or EXE (it does not start with MZ)',
      expect.stringMatching(/^bin\/umf\.dll is not a valid Windows DLL or EXE: /),
    ]);
  });
});
