// The GPUs a request may name (`--gpu`): the families of data/compute-runtime-support.csv and the PCI device ids of
// data/intel-gpu-ids.csv, for planning on a machine that is not the one with the GPU.
import { XpuError } from '../base/errors.js';
import { nearest } from '../base/spelling.js';
import { familySupport, type FamilySupport } from './driver-support.js';
import { gpuIds, type GpuIdRow } from './gpu-ids.js';

/** The value `--gpu` takes that means this machine's own GPUs (forgets a recorded list). */
export const THIS_MACHINE = 'host';

/**
 * A `--gpu` value as the request records it: a GPU family of data/compute-runtime-support.csv (`bmg`, any case), or a
 * PCI device id of data/intel-gpu-ids.csv (`0xe20b`, `e20b`, `8086:e20b`) as `8086:e20b`.
 */
export function parseGpuName(text: string, table: Map<string, FamilySupport> = familySupport(), ids: Map<number, GpuIdRow> = gpuIds()): string {
  const t = text.trim().toLowerCase();
  if (table.has(t)) return t;
  const id = /^(?:(?:0x)?8086:)?(?:0x)?([0-9a-f]{4})$/.exec(t)?.[1];
  if (id && ids.has(parseInt(id, 16))) return `8086:${id}`;
  const families = [...table.keys()];
  const guess = nearest(t, families);
  throw new XpuError('USAGE', id ? `"${text}": PCI device id 0x${id} is not an Intel GPU this tool knows (data/intel-gpu-ids.csv)` : `"${text}" is not a GPU family or PCI device id this tool knows`, {
    details: { value: text },
    hints: [
      ...(guess ? [`did you mean --gpu ${guess}?`] : []),
      `a family: ${families.join(', ')}`,
      'or a PCI device id as `lspci -nn` shows it on the machine with the GPU: --gpu 0xe20b (or 8086:e20b)',
      `or --gpu ${THIS_MACHINE}: this machine's own GPUs`,
    ],
  });
}


/** A recorded `--gpu` value as the option is written: `bmg`, `0xe20b`. */
export function gpuOption(name: string): string {
  return `--gpu ${name.replace(/^8086:/, '0x')}`;
}

/** The recorded `--gpu` values that none of `gpus` (this machine's Intel GPUs) is. */
export function namedButAbsent(names: readonly string[], gpus: readonly { pciId: string; family?: string }[]): string[] {
  return names.filter((n) => !gpus.some((g) => g.pciId === n || g.family === n));
}
