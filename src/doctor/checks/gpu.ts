// Check: an Intel GPU is present (PCI on Linux, display adapters on Windows), named from its PCI id.
import * as path from 'node:path';
import type { Check } from '../types.js';
import { activeReferenceDriver } from './shared.js';
import { DRIVER_CHOICE } from '../../roles/index.js';

export const gpuCheck: Check = {
  id: 'gpu',
  title: 'Intel GPU',
  group: 'system',
  async run(ctx) {
    const { found, tried } = await ctx.facts.gpus();
    const details: Record<string, unknown> = { intel: found.intel, others: found.others, tried };
    if (found.intel.length > 0) {
      const names = found.intel.map((g) => `${g.windows?.adapterName && !g.known ? g.windows.adapterName : g.name}${g.address ? ` at ${g.address}` : ''}`);
      const unknown = found.intel.filter((g) => !g.known);
      return {
        status: 'ok',
        message: names.join('; ') + (unknown.length ? ' (id not in this tool\'s table: a newer GPU?)' : ''),
        details,
      };
    }
    const others = found.others.map((o) => `${o.vendor} ${o.pciId}${o.name ? ` ${o.name}` : ''}${o.driver ? ` (${o.driver})` : ''}`);
    const ref = await activeReferenceDriver(ctx);
    const none = others.length ? `no Intel GPU found; display devices here: ${others.join(', ')}` : 'no Intel GPU found (no display device at all)';
    if (ref) {
      // The README's no-GPU path: the user chose the reference driver, so the stack is judged on it (probe, smoke).
      return {
        status: 'warn',
        message: `${none}. ${DRIVER_CHOICE} (${ref.from === 'environment' ? 'this environment' : 'the prefix\'s env files'}) selects the CPU reference driver ${ref.library}, so the stack is judged on it; \`--smoke\` runs a kernel there`,
        details: { ...details, referenceDriver: ref },
      };
    }
    if (await ctx.deps.exists(path.join(ctx.root, 'dev/dxg'))) {
      return { status: 'warn', message: `${none}: under WSL2 the GPU is not on this PCI bus but shared through /dev/dxg (the WSL2 GPU check says whether it is usable)`, details };
    }
    return {
      status: 'fail',
      message: none,
      fix: 'Level Zero needs an Intel GPU (Arc, Iris Xe or newer integrated graphics, Data Center GPU Flex/Max); in a VM or container the GPU must be passed through. without one, setup with `--refdriver` runs the stack on a CPU reference driver instead',
      details,
    };
  },
};
