// Reading of a shared library only what the dynamic linker's tables need (readElfTables): the same needs and symbols
// as the whole file, for the machine's real libraries, a copy without section headers and one whose section headers
// do not cover the tables; and the memory a 100 MB library costs is its tables', not its size.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LIBRARY_FILE, readSafelyWith } from '../../src/base/safe-read.js';
import { readElfNeeds, readElfSymbols, readElfTables, type ElfSymbols } from '../../src/formats/elf.js';

const LIBDIR = '/usr/lib/x86_64-linux-gnu';
const tmp = mkdtempSync(path.join(tmpdir(), 'xpu-elf-tables-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The texts of the undefined symbols a library takes from others. */
const takes = (sym: ElfSymbols | undefined): string[] | undefined => sym?.undefinedNames.map((n) => n.text);

/** What the parsers say of `bytes`, as comparable text: needs, undefined symbols, and whether it defines each of `probes`. */
const said = (bytes: Buffer, probes: string[] = []) => {
  const sym = readElfSymbols(bytes);
  return createHash('sha256').update(JSON.stringify([readElfNeeds(bytes), takes(sym), sym?.refused, probes.map((n) => sym?.defines(n))])).digest('hex');
};

/** The dynamic symbols nm says `file` defines for others (global, weak, unique, indirect), without their versions. */
const nmDefined = (file: string): string[] =>
  execFileSync('nm', ['-D', '--defined-only', file], { encoding: 'utf8', maxBuffer: 256 << 20 })
    .split('\n')
    .map((l) => /^\S*\s+([A-Zuvwi])\s+([^@\s]+)/.exec(l))
    .filter((m): m is RegExpExecArray => !!m)
    .map((m) => m[2]!);

async function tables(file: string): Promise<Buffer> {
  const r = await readSafelyWith(file, LIBRARY_FILE, readElfTables);
  if (!('value' in r)) throw new Error(r.refused);
  return r.value;
}

/** The machine's shared libraries, largest first (libLLVM's 100 MB where the test packages are installed). */
const libraries = readdirSync(LIBDIR)
  .filter((n) => /\.so(\.\d+)*$/.test(n))
  .map((n) => path.join(LIBDIR, n))
  .filter((f) => statSync(f).isFile())
  .sort((a, b) => statSync(b).size - statSync(a).size);

describe('readElfTables', () => {
  it("gives the parsers what the whole file gives them, for the machine's 40 largest libraries", async () => {
    expect(libraries.length).toBeGreaterThan(40);
    const largest = libraries.slice(0, 40);
    // Every symbol one of them takes from another: defined by some of them, not by the rest.
    const probes = [...new Set(largest.flatMap((f) => takes(readElfSymbols(readFileSync(f))) ?? []))];
    expect(probes.length).toBeGreaterThan(1000);
    for (const f of largest) expect(said(await tables(f), probes), f).toBe(said(readFileSync(f), probes));
  });

  it('finds through the hash table every symbol nm says a library defines, and none of those it takes from others', async () => {
    const picks = ['libc.so.6', 'libstdc++.so.6', 'libm.so.6'].map((n) => path.join(LIBDIR, n)).concat(libraries[0]!);
    for (const f of picks) {
      const sym = readElfSymbols(await tables(f))!;
      const defined = nmDefined(f);
      expect(defined.length, f).toBeGreaterThan(100);
      expect(defined.filter((n) => !sym.defines(n)), f).toEqual([]);
      const taken = takes(sym)!.filter((n) => !defined.includes(n));
      expect(taken.filter((n) => sym.defines(n)), f).toEqual([]);
      expect(sym.defines('xpu_setup_no_such_symbol'), f).toBe(false);
    }
  });

  it.each(['sysv', 'gnu', 'both'])('looks symbols up through a %s hash table as the dynamic linker does', (style) => {
    const src = path.join(tmp, `defs-${style}.c`);
    const lib = path.join(tmp, `libdefs-${style}.so`);
    const names = Array.from({ length: 300 }, (_, i) => `xpu_defined_${i}`);
    writeFileSync(src, `${names.map((n) => `int ${n}(void) { return ${n.length}; }`).join('\n')}\nextern int xpu_taken(void);\nint xpu_calls(void) { return xpu_taken(); }\nstatic int xpu_local(void) { return 1; }\nint (*xpu_keep)(void) = xpu_local;\n`);
    execFileSync('gcc', ['-shared', '-fPIC', `-Wl,--hash-style=${style}`, '-o', lib, src]);
    const sym = readElfSymbols(readFileSync(lib))!;
    expect(takes(sym)).toContain('xpu_taken');
    expect([...names, 'xpu_calls', 'xpu_keep'].filter((n) => !sym.defines(n))).toEqual([]);
    for (const n of ['xpu_taken', 'xpu_local', 'xpu_defined_300', 'xpu_defined', '']) expect(sym.defines(n), n).toBe(false);
    // A library only asked what it defines: the same answers, its undefined symbols not read.
    const asked = readElfSymbols(readFileSync(lib), false)!;
    expect(takes(asked)).toEqual([]);
    expect([...names, 'xpu_calls', 'xpu_keep'].filter((n) => !asked.defines(n))).toEqual([]);
    expect(asked.defines('xpu_taken')).toBe(false);
  });

  it('answers the same from a buffer that starts at an odd offset (its hash table then read byte by byte, not as words)', async () => {
    const picks = ['libc.so.6', 'libstdc++.so.6'].map((n) => path.join(LIBDIR, n)).concat(libraries[0]!);
    for (const f of picks) {
      const aligned = readFileSync(f);
      const odd = Buffer.alloc(aligned.length + 1).subarray(1);
      aligned.copy(odd);
      expect(odd.byteOffset % 4, f).not.toBe(0);
      const probes = [...nmDefined(f).slice(0, 2000), ...(takes(readElfSymbols(aligned)) ?? []).slice(0, 2000), 'xpu_setup_no_such_symbol'];
      expect(said(odd, probes), f).toBe(said(aligned, probes));
      const names = readElfSymbols(odd)!.undefinedNames;
      expect(names.map((n) => n.text), f).toEqual(takes(readElfSymbols(aligned)));
    }
  });

  it('reads a library without section headers whole, and one whose section headers miss a table whole too', async () => {
    const f = libraries.find((x) => path.basename(x).startsWith('libstdc++'))!;
    const whole = readFileSync(f);
    const bare = Buffer.from(whole);
    bare.writeBigUInt64LE(0n, 40);
    bare.writeUInt16LE(0, 60);
    writeFileSync(path.join(tmp, 'bare.so'), bare);
    expect(said(await tables(path.join(tmp, 'bare.so')))).toBe(said(whole));
    // The .dynsym section header moved to a place that holds nothing: the dynamic section still names the table.
    const moved = Buffer.from(whole);
    const shoff = Number(moved.readBigUInt64LE(40));
    const [shentsize, shnum] = [moved.readUInt16LE(58), moved.readUInt16LE(60)];
    for (let i = 0; i < shnum; i++) if (moved.readUInt32LE(shoff + i * shentsize + 4) === 11) moved.writeBigUInt64LE(0n, shoff + i * shentsize + 24);
    writeFileSync(path.join(tmp, 'moved.so'), moved);
    expect(said(await tables(path.join(tmp, 'moved.so')))).toBe(said(whole));
    // Not an ELF file: the parsers say so from what was read.
    writeFileSync(path.join(tmp, 'text.so'), 'INPUT(libfoo.so.1)\n'.repeat(100));
    expect(readElfNeeds(await tables(path.join(tmp, 'text.so')))).toBeUndefined();
  });

  it('costs the memory of the tables, not of the file: the largest library adds less than a third of its size to RSS and to what V8 counts', async () => {
    const big = libraries[0]!;
    const size = statSync(big).size;
    expect(size, `${big}: the test packages bring a library of 100 MB (libLLVM)`).toBeGreaterThan(50 << 20);
    execFileSync('cat', [big], { stdio: 'ignore' });
    const before = process.memoryUsage();
    const kept = await tables(big);
    const after = process.memoryUsage();
    // A buffer of the file's size, even one whose pages are never touched, is counted by V8 and collected for.
    expect(kept.length).toBeLessThan(size / 3);
    expect(after.arrayBuffers - before.arrayBuffers).toBeLessThan(size / 3);
    expect(after.rss - before.rss).toBeLessThan(size / 3);
    expect(said(kept, ['main', 'LLVMContextCreate'])).toBe(said(readFileSync(big), ['main', 'LLVMContextCreate']));
  });
});
