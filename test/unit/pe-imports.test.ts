// The PE import reader and the DLL check, on DLLs cross-built here with mingw-w64 and on PE files written byte by byte.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isXpuError } from '../../src/base/errors.js';
import { readPeImports } from '../../src/formats/pe.js';
import { describeUnmet, unmetDllImports } from '../../src/machine/library-needs.js';
import { realDeps } from '../../src/cli/real-deps.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';
import { compileL0WindowsDouble, compilePe, compileTcmWindows, compileUmfWindows, compileUrWindowsDouble } from '../support/packages.js';

const run = promisify(execFile);
let work: string;
let ur: Map<string, Buffer>;
let umf: Buffer;
let tcm: Map<string, Buffer>;
let zeLoader: Buffer;

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'xpu-pe-'));
  ur = await compileUrWindowsDouble('2025.3.1', join(work, 'build-ur'), '1.0.2');
  umf = await compileUmfWindows('1.0.2', join(work, 'build-umf'));
  tcm = await compileTcmWindows('1.5.0', join(work, 'build-tcm'));
  zeLoader = (await compileL0WindowsDouble('1.8.12', join(work, 'build-l0'))).get('ze_loader.dll')!;
});

afterAll(async () => {
  await rm(work, { recursive: true, force: true });
});

interface PeShape {
  imports?: string[];
  delayImports?: string[];
  pe32?: boolean;
  machine?: number;
  characteristics?: number;
  dirCount?: number;
  optSize?: number;
  sections?: number;
}

const SECTION_RVA = 0x1000;
const RAW = 0x200;
const OPT = 0x58;

/**
 * A PE file written byte by byte: headers, one section holding the DLL names, then the delay-import and import
 * descriptors (the import table's end marker ends the file). mingw's linker never fills the delay-import directory, so
 * this is how a delay-loading DLL is made here. Returns the bytes and where things are.
 */
function peFile(shape: PeShape = {}): { b: Buffer; nameRva: number[]; importRva: number; sectionEnd: number } {
  const imports = shape.imports ?? [];
  const delay = shape.delayImports ?? [];
  const names: Buffer[] = [];
  const nameRva: number[] = [];
  let at = 0;
  for (const n of [...imports, ...delay]) {
    nameRva.push(SECTION_RVA + at);
    names.push(Buffer.from(n + '\0', 'latin1'));
    at += n.length + 1;
  }
  const delayAt = at;
  const importAt = delayAt + (delay.length + 1) * 32;
  const section = Buffer.alloc(importAt + (imports.length + 1) * 20);
  Buffer.concat(names).copy(section, 0);
  delay.forEach((_, i) => {
    section.writeUInt32LE(1, delayAt + i * 32); // attributes: RVAs
    section.writeUInt32LE(nameRva[imports.length + i]!, delayAt + i * 32 + 4);
  });
  imports.forEach((_, i) => section.writeUInt32LE(nameRva[i]!, importAt + i * 20 + 12));
  const b = Buffer.alloc(RAW + section.length);
  b.write('MZ', 0, 'latin1');
  b.writeUInt32LE(0x40, 0x3c);
  b.write('PE\0\0', 0x40, 'latin1');
  const sections = shape.sections ?? 1;
  b.writeUInt16LE(shape.machine ?? (shape.pe32 ? 0x14c : 0x8664), 0x44);
  b.writeUInt16LE(sections, 0x46);
  const dirs = OPT + (shape.pe32 ? 96 : 112);
  const optSize = shape.optSize ?? dirs - OPT + 16 * 8;
  b.writeUInt16LE(optSize, 0x54);
  b.writeUInt16LE(shape.characteristics ?? 0x2022, 0x56);
  b.writeUInt16LE(shape.pe32 ? 0x10b : 0x20b, OPT);
  b.writeUInt32LE(shape.dirCount ?? 16, OPT + (shape.pe32 ? 92 : 108));
  b.writeUInt32LE(SECTION_RVA + importAt, dirs + 1 * 8);
  if (delay.length) b.writeUInt32LE(SECTION_RVA + delayAt, dirs + 13 * 8);
  const table = OPT + optSize;
  if (sections) {
    b.write('.idata', table, 'latin1');
    b.writeUInt32LE(section.length, table + 8);
    b.writeUInt32LE(SECTION_RVA, table + 12);
    b.writeUInt32LE(section.length, table + 16);
    b.writeUInt32LE(RAW, table + 20);
  }
  section.copy(b, RAW);
  return { b, nameRva, importRva: SECTION_RVA + importAt, sectionEnd: SECTION_RVA + section.length };
}
const peBytes = (imports: string[], delayImports: string[] = []): Buffer => peFile({ imports, delayImports }).b;

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
const why = (bytes: Buffer): string => failure(bytes)[1].replace('bin/umf.dll is not a valid Windows DLL or EXE: ', '');

describe('readPeImports', () => {
  it('reads the import table of mingw-built DLLs as objdump does', async () => {
    const adapter = readPeImports(ur.get('ur_adapter_level_zero.dll')!, 'ur_adapter_level_zero.dll')!;
    expect(adapter).toMatchObject({ machine: 0x8664, dll: true, imports: ['KERNEL32.dll', 'msvcrt.dll', 'umf.dll', 'ze_loader.dll'], delayImports: [] });
    // What it takes from each, by name, as objdump lists them (mingw imports by name, never by ordinal).
    expect(adapter.importedSymbols.filter((i) => /umf|ze_loader/.test(i.dll))).toEqual([
      { dll: 'umf.dll', delayed: false, names: ['umfInit'], ordinals: [] },
      { dll: 'ze_loader.dll', delayed: false, names: ['zeDriverGet'], ordinals: [] },
    ]);
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

  it('reads PE32 files and their COFF Machine, and tells a DLL from an EXE', () => {
    expect(readPeImports(peFile({ pe32: true, imports: ['KERNEL32.dll'], delayImports: ['umf.dll'] }).b, 'x.dll')).toMatchObject({
      machine: 0x14c, dll: true, imports: ['KERNEL32.dll'], delayImports: ['umf.dll'],
    });
    expect(readPeImports(peFile({ machine: 0xaa64 }).b, 'x.dll')!.machine).toBe(0xaa64);
    expect(readPeImports(peFile({ machine: 0x1c4 }).b, 'x.dll')!.machine).toBe(0x1c4);
    expect(readPeImports(peFile({ characteristics: 0x0022, imports: ['a.dll'] }).b, 'x.exe')).toMatchObject({ dll: false, imports: ['a.dll'] });
  });

  it('reads only the data directories the optional header has', () => {
    expect(readPeImports(peFile({ imports: ['a.dll'], delayImports: ['b.dll'], dirCount: 13 }).b, 'x.dll')).toMatchObject({ imports: ['a.dll'], delayImports: [] });
    expect(readPeImports(peFile({ imports: ['a.dll'], delayImports: ['b.dll'], optSize: 112 + 2 * 8 }).b, 'x.dll')).toMatchObject({ imports: ['a.dll'], delayImports: [] });
    expect(readPeImports(peFile({ imports: ['a.dll'], dirCount: 1 }).b, 'x.dll')!.imports).toEqual([]);
    // A header that ends inside the delay-import entry (its RVA in, its size out) does not have it.
    expect(readPeImports(peFile({ imports: ['a.dll'], delayImports: ['b.dll'], optSize: 112 + 13 * 8 + 4 }).b, 'x.dll')!.delayImports).toEqual([]);
  });

  it('takes DLL names of up to 260 bytes', () => {
    expect(readPeImports(peBytes(['a'.repeat(260)]), 'x.dll')!.imports).toEqual(['a'.repeat(260)]);
    expect(why(peBytes(['a'.repeat(261)]))).toBe('the DLL name of import entry 1 at RVA 0x1000 has no end within 260 bytes');
  });

  it('says undefined for what does not start like a PE file', () => {
    expect(readPeImports(Buffer.from('xpu-setup test double: not a real umf.dll'), 'umf.dll')).toBeUndefined();
    expect(readPeImports(Buffer.from('M'), 'umf.dll')).toBeUndefined();
    expect(readPeImports(Buffer.alloc(0), 'umf.dll')).toBeUndefined();
  });

  it('refuses a damaged file with BAD_LIBRARY, naming it, what is wrong, and what to do', () => {
    let error: unknown;
    try {
      readPeImports(Buffer.from('MZ'), 'bin/umf.dll');
    } catch (e) {
      error = e;
    }
    expect(isXpuError(error) && error.toJSON()).toMatchObject({
      code: 'BAD_LIBRARY',
      message: 'bin/umf.dll is not a valid Windows DLL or EXE: the PE header offset lies beyond the end of the file (2 bytes)',
      details: { file: 'bin/umf.dll' },
      hints: ['the package that brought it is damaged or not a Windows build: download it again (--refresh), or choose another version or source'],
    });
  });

  it('names the header field that lies beyond the end of a cut file', () => {
    const good = peBytes(['umf.dll']);
    const cut = (n: number) => why(good.subarray(0, n));
    expect(cut(0x44)).toBe('the COFF header lies beyond the end of the file (68 bytes)');
    expect(cut(0x47)).toBe('the section count lies beyond the end of the file (71 bytes)');
    expect(cut(0x55)).toBe('the optional header size lies beyond the end of the file (85 bytes)');
    expect(cut(0x57)).toBe('the characteristics lies beyond the end of the file (87 bytes)');
    expect(cut(0x59)).toBe('the optional header lies beyond the end of the file (89 bytes)');
    expect(cut(0x5a)).toBe('the data directory count lies beyond the end of the file (90 bytes)');
    expect(cut(OPT + 240 + 20)).toBe('section header 1 of 1 lies beyond the end of the file (348 bytes)');
    // PE32 keeps the directory count 16 bytes earlier: a file that ends right after it fails at the section table.
    expect(why(peFile({ pe32: true }).b.subarray(0, OPT + 96))).toBe('section header 1 of 1 lies beyond the end of the file (184 bytes)');
    // Without sections nothing bounds the directories but the file.
    expect(why(peFile({ sections: 0 }).b.subarray(0, OPT + 112 + 11))).toBe('the data directory table lies beyond the end of the file (211 bytes)');
  });

  it('names a bad signature, magic, or a table or name outside the sections', () => {
    const good = peFile({ imports: ['umf.dll'] });
    const edit = (at: number, value: number, size: 2 | 4 = 4) => {
      const b = Buffer.from(good.b);
      if (size === 2) b.writeUInt16LE(value, at);
      else b.writeUInt32LE(value, at);
      return why(b);
    };
    expect(edit(0x3c, 0x100)).toBe('no PE signature at offset 0x100');
    expect(edit(0x3c, 0xfffffff0)).toBe('the PE signature lies beyond the end of the file (' + good.b.length + ' bytes)');
    expect(edit(OPT, 0x107, 2)).toBe('unknown optional header magic 0x107');
    expect(edit(OPT + 112 + 8, 0x10)).toBe("the import directory (RVA 0x10) lies outside every section's data");
    expect(edit(OPT + 112 + 8, good.sectionEnd)).toBe(`the import directory (RVA 0x${good.sectionEnd.toString(16)}) lies outside every section's data`);
    expect(edit(OPT + 112 + 13 * 8, 0x9000)).toBe("the delay-import directory (RVA 0x9000) lies outside every section's data");
    const nameField = RAW + (good.importRva - SECTION_RVA) + 12;
    expect(edit(nameField, 0x7000)).toBe("the DLL name of import entry 1 (RVA 0x7000) lies outside every section's data");
    expect(edit(nameField, good.importRva + 4)).toBe(`the DLL name of import entry 1 at RVA 0x${(good.importRva + 4).toString(16)} is empty`);
  });

  it('names the entry a cut table ends in, and a table that never ends', () => {
    const two = peFile({ imports: ['a.dll', 'b.dll'] });
    const cutAt = RAW + (two.importRva - SECTION_RVA) + 20 + 10;
    expect(why(two.b.subarray(0, cutAt))).toBe(`entry 2 of the import directory lies beyond the end of the file (${cutAt} bytes)`);
    // 4096 entries and the end marker: more than any real import table.
    expect(why(peFile({ imports: Array.from({ length: 4096 }, () => 'a.dll') }).b)).toBe('the import directory has no end');
    expect(readPeImports(peFile({ imports: Array.from({ length: 4095 }, () => 'a.dll') }).b, 'x.dll')!.imports).toHaveLength(4095);
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
    const root = await tree('whole', { ...Object.fromEntries(ur), 'umf.dll': umf, ...Object.fromEntries(tcm), 'ze_loader.dll': zeLoader });
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

  it('names the functions an adapter imports by name that the ze_loader.dll found does not export, and the loader release that has them', async () => {
    // Linked against a ze_loader.dll that exports zeDeviceSynchronize (built here only to link against), then laid
    // beside the fixture's ze_loader.dll, which exports zeInit and zeDriverGet only.
    const link = join(work, 'build-new-calls');
    await compilePe({ name: 'ze_loader.dll', source: '__declspec(dllexport) int zeDriverGet(void *a, void *b) { return 0; }\n__declspec(dllexport) int zeDeviceSynchronize(void *d) { return 0; }\n' }, link);
    const adapter = await compilePe(
      {
        name: 'ur_adapter_level_zero.dll',
        source: 'int xpu_setup_marker(void) { return 1; }\n',
        imports: ['ze_loader.dll'],
        uses: '__declspec(dllimport) int zeDriverGet(void *, void *);\n__declspec(dllimport) int zeDeviceSynchronize(void *);\nint xpu_setup_uses(void) { return zeDriverGet(0, 0) + zeDeviceSynchronize(0); }\n',
      },
      link,
    );
    expect(readPeImports(adapter, 'a.dll')!.importedSymbols.find((i) => i.dll === 'ze_loader.dll')).toEqual({ dll: 'ze_loader.dll', delayed: false, names: ['zeDeviceSynchronize', 'zeDriverGet'], ordinals: [] });
    expect([...readPeImports(zeLoader, 'ze_loader.dll')!.exports.names].sort()).toEqual(['xpu_setup_fixture_ze_loader', 'zeDriverGet', 'zeInit']);
    const root = await tree('old-loader-dll', { 'ur_adapter_level_zero.dll': adapter, 'ze_loader.dll': zeLoader });
    const r = await unmetDllImports(linux(), root, ['bin']);
    expect(r.unmet.map(describeUnmet)).toEqual([
      expect.stringMatching(
        /^bin\/ur_adapter_level_zero\.dll imports zeDeviceSynchronize from ze_loader\.dll, which the copy at bin\/ze_loader\.dll does not export, so it does not load: zeDeviceSynchronize first appears in the Level Zero loader 1\.25\.0 \(.*\): install level-zero >= 1\.25\.0/,
      ),
    ]);
  });

  it('checks only the files named, in any case, when told', async () => {
    const root = await tree('no-umf-only', { ...Object.fromEntries(ur), ...Object.fromEntries(tcm) });
    const r = await unmetDllImports(linux(), root, ['bin'], ['UR_ADAPTER_LEVEL_ZERO_V2.DLL']);
    expect(r.unmet.map((u) => u.file)).toEqual(['bin/ur_adapter_level_zero_v2.dll']);
  });

  it("names umf.dll's libhwloc-15.dll when tcmlib is left out, matching names without regard to case", async () => {
    const root = await tree('no-hwloc', { 'UMF.DLL': umf, 'ur_adapter_level_zero.dll': ur.get('ur_adapter_level_zero.dll')!, 'ZE_LOADER.dll': zeLoader });
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
