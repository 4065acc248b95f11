// Check: an Intel GPU is present (PCI on Linux, display adapters on Windows), named from its PCI id.
import * as path from 'node:path';
import type { Check } from '../types.js';
import { activeReferenceDriver } from './shared.js';
import { DRIVER_CHOICE } from '../../roles/index.js';
import { gpuOption, namedButAbsent } from '../../machine/gpu-names.js';

type Outcome = Awaited<ReturnType<Check['run']>>;

/**
 * A prefix planned for other GPUs (`--gpu`, a login node's for its compute nodes) said beside what this machine has:
 * its GPU driver was chosen for those, and a machine without them is judged as such, not failed.
 */
async function plannedElsewhere(ctx: Parameters<Check['run']>[0], outcome: Outcome, intel: { pciId: string; family?: string }[]): Promise<Outcome> {
  const named = (await ctx.facts.receipt()).receipt?.request?.gpus;
  if (!named?.length) return outcome;
  const absent = namedButAbsent(named, intel);
  const asked = named.map(gpuOption).join(' ');
  if (!absent.length) return { ...outcome, message: `${outcome.message} (the GPUs the prefix was planned for: ${asked})` };
  const said = `the prefix ${ctx.prefix} was planned for GPUs this machine does not have (${absent.map(gpuOption).join(' ')}): its GPU driver was chosen for them`;
  return {
    ...outcome,
    status: 'warn',
    message: `${outcome.message}; ${said}`,
    fix: `on the machines with those GPUs this is as planned (run doctor there); to plan for this machine's instead: setup with --gpu host`,
    details: { ...(outcome.details ?? {}), plannedFor: named, absent },
  };
}

export const gpuCheck: Check = {
  id: 'gpu',
  title: 'Intel GPU',
  group: 'system',
  async run(ctx) {
    const { found } = await ctx.facts.gpus();
    return plannedElsewhere(ctx, await gpuOutcome(ctx), found.intel);
  },
};

async function gpuOutcome(ctx: Parameters<Check['run']>[0]): Promise<Outcome> {
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
}
