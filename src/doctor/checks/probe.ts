// Check (--smoke): the loader finds a driver and devices; names the CPU reference driver when that is what answers.
import { probeByCli } from '../services.js';
import type { Check } from '../types.js';
import { activeReferenceDriver, inStack } from './shared.js';

export const probeCheck: Check = {
  id: 'probe',
  title: 'Device probe',
  group: 'runtime',
  smokeOnly: true,
  timeoutMs: 60_000,
  async run(ctx) {
    const probe = await inStack(ctx, 'the probe', 'see the loader and driver checks above', probeByCli);
    if ('failed' in probe) return probe.failed;
    const p = probe.value;
    const details = { ...p } as Record<string, unknown>;
    const ref = await activeReferenceDriver(ctx);
    if (p.devices.length === 0) {
      return {
        status: 'fail',
        message: `the loader${p.loaderPath ? ` ${p.loaderPath}` : ''} found no device${p.init ? ` (zeInit: ${p.init})` : ''}`,
        fix: ref
          ? `the CPU reference driver ${ref.library} did not load: check that the file exists and run with ZE_ENABLE_LOADER_DEBUG_TRACE=1`
          : 'fix the failing GPU, kernel-driver, device-node and driver checks above',
        details,
      };
    }
    const names = p.devices.map((d) => `${d.name} (${d.type})`).join(', ');
    if (ref && !p.devices.some((d) => d.type === 'gpu' && d.vendorId === 0x8086 && !/reference/i.test(d.name))) {
      return {
        status: 'ok',
        message: `the stack works on the CPU reference driver ${ref.library} (${ref.from}), not on an Intel GPU: ${names}`,
        details: { ...details, referenceDriver: ref },
      };
    }
    return { status: 'ok', message: names, details };
  },
};
