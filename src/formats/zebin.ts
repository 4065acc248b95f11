// What a GPU binary from ocloc is: a zebin (ELF, e_machine EM_INTEL_GEN, a .text.<kernel> section per kernel) or the
// older patch-token format (ELF type 0xff04, no machine), read from the ELF header and section names alone.

/** e_machine of Intel GPU ELF files (zebin). */
export const EM_INTEL_GEN = 205;
/** e_type of the pre-zebin "OpenCL device binary" container compute-runtime wrote for patch-token programs. */
export const ET_OPENCL_EXECUTABLE = 0xff04;

export interface GpuBinary {
  elfClass: 32 | 64;
  type: number;
  machine: number;
  sections: string[];
}

/** Pure: the header fields and section names of a little-endian ELF file; undefined when it is not one or is cut short. */
export function readGpuBinary(b: Buffer): GpuBinary | undefined {
  if (b.length < 52 || b.readUInt32BE(0) !== 0x7f454c46 || b[5] !== 1) return undefined;
  const is64 = b[4] === 2;
  if (!is64 && b[4] !== 1) return undefined;
  if (is64 && b.length < 64) return undefined;
  const type = b.readUInt16LE(16);
  const machine = b.readUInt16LE(18);
  const shoff = is64 ? Number(b.readBigUInt64LE(40)) : b.readUInt32LE(32);
  const shentsize = b.readUInt16LE(is64 ? 58 : 46);
  const shnum = b.readUInt16LE(is64 ? 60 : 48);
  const shstrndx = b.readUInt16LE(is64 ? 62 : 50);
  const header = (i: number) => shoff + i * shentsize;
  if (shnum === 0 || shstrndx >= shnum || header(shnum) > b.length) return undefined;
  const offsetOf = (i: number) => (is64 ? Number(b.readBigUInt64LE(header(i) + 24)) : b.readUInt32LE(header(i) + 16));
  const sizeOf = (i: number) => (is64 ? Number(b.readBigUInt64LE(header(i) + 32)) : b.readUInt32LE(header(i) + 20));
  const strOff = offsetOf(shstrndx);
  const strEnd = strOff + sizeOf(shstrndx);
  if (strEnd > b.length) return undefined;
  const sections: string[] = [];
  for (let i = 1; i < shnum; i++) {
    const at = strOff + b.readUInt32LE(header(i));
    if (at >= strEnd) return undefined;
    const end = b.indexOf(0, at);
    sections.push(b.toString('latin1', at, end < 0 || end > strEnd ? strEnd : end));
  }
  return { elfClass: is64 ? 64 : 32, type, machine, sections };
}

export type ZebinVerdict = { ok: true; binary: GpuBinary } | { ok: false; why: string; binary?: GpuBinary };

/** Pure: whether `b` is a zebin holding `kernel`'s code, and if not, what it is instead. */
export function checkZebin(b: Buffer, kernel: string): ZebinVerdict {
  const binary = readGpuBinary(b);
  if (!binary) return { ok: false, why: `not an ELF file (${b.length} bytes, starting ${b.subarray(0, 4).toString('hex')})` };
  if (binary.type === ET_OPENCL_EXECUTABLE) return { ok: false, why: 'a patch-token binary (ELF type 0xff04), not a zebin', binary };
  if (binary.machine !== EM_INTEL_GEN) return { ok: false, why: `ELF e_machine ${binary.machine}, not EM_INTEL_GEN (${EM_INTEL_GEN})`, binary };
  if (!binary.sections.includes(`.text.${kernel}`)) return { ok: false, why: `no .text.${kernel} section (sections: ${binary.sections.join(', ') || 'none'})`, binary };
  return { ok: true, binary };
}
