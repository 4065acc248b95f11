// Check: a discrete Intel GPU's VRAM aperture (BAR2) is resized, as xe requires and i915 runs best with.
import { familySupport } from '../../machine/driver-support.js';
import { formatBytes, readResources, vramBarVerdict, VRAM_BAR } from '../../machine/pci-bars.js';
import type { Check } from '../types.js';
import { offDisplayDriver, onIntelGpus } from './shared.js';

export const rebarCheck: Check = {
  id: 'rebar',
  title: 'Resizable BAR',
  group: 'system',
  run: offDisplayDriver('Windows: see the GPU vendor tool for Resizable BAR', onIntelGpus(async (ctx, intel) => {
    const discrete = intel.filter((g) => g.family && familySupport().get(g.family)?.discrete && g.address);
    if (discrete.length === 0) return { status: 'skip', message: 'no discrete Intel GPU (integrated GPUs share system memory)' };
    const fails: string[] = [];
    const warns: string[] = [];
    const good: string[] = [];
    const details: Record<string, unknown>[] = [];
    for (const g of discrete) {
      const res = await readResources(ctx.deps, g.address!, { root: ctx.root });
      const v = res ? vramBarVerdict(res) : { kind: 'unknown' as const, why: 'its resource file is not readable' };
      const driver = g.driver ?? g.expectedDriver;
      details.push({ address: g.address, family: g.family, driver, verdict: v.kind, bytes: 'bytes' in v ? String(v.bytes) : undefined });
      const what = `${g.address} (${g.family})`;
      if (v.kind === 'resized') good.push(`${what}: BAR${VRAM_BAR} is ${formatBytes(v.bytes)} (Resizable BAR on)`);
      else if (v.kind === 'unknown') warns.push(`${what}: cannot tell (${v.why})`);
      else if (driver === 'xe') fails.push(`${what}: BAR${VRAM_BAR} is ${formatBytes(v.bytes)}, so Resizable BAR is off, and xe needs it`);
      else warns.push(`${what}: BAR${VRAM_BAR} is ${formatBytes(v.bytes)}, so Resizable BAR is off: ${driver ?? 'the driver'} runs, but every VRAM access from the CPU goes through a 256 MiB window`);
    }
    const message = [...fails, ...warns, ...good].join('; ');
    const fix = 'enable "Above 4G Decoding" and "Re-Size BAR Support" in the machine\'s firmware setup (UEFI boot, CSM off), then reboot; in a VM, the host must pass the resized BAR through';
    if (fails.length) return { status: 'fail', message, fix, details: { gpus: details } };
    if (warns.length) return { status: 'warn', message, fix, details: { gpus: details } };
    return { status: 'ok', message, details: { gpus: details } };
  })),
};
