// Check (--smoke): a SPIR-V kernel runs and computes the right answer.
import { smokeByCli } from '../services.js';
import type { Check } from '../types.js';
import { activeReferenceDriver, inStack } from './shared.js';

export const smokeCheck: Check = {
  id: 'smoke',
  title: 'Kernel smoke test',
  group: 'runtime',
  smokeOnly: true,
  timeoutMs: 180_000,
  async run(ctx) {
    const smoke = await inStack(ctx, 'the smoke test', 'see the device probe above', smokeByCli);
    if ('failed' in smoke) return smoke.failed;
    const r = smoke.value;
    const ref = await activeReferenceDriver(ctx);
    const on = ref ? ` on the CPU reference driver ${ref.library}` : '';
    const out = { message: `${r.message}${on}`, ...(r.details ? { details: r.details } : {}) };
    return r.ok ? { status: 'ok', ...out } : { status: 'fail', ...out, fix: 'run with --verbose and see the device probe; the driver may miscompile or reject the kernel' };
  },
};
