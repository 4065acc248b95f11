// Check (--smoke): a SPIR-V kernel runs and computes the right answer.
import { smokeByCli } from '../services.js';
import type { Check } from '../types.js';
import { activeReferenceDriver, stackEnv } from './shared.js';

export const smokeCheck: Check = {
  id: 'smoke',
  title: 'Kernel smoke test',
  group: 'runtime',
  smokeOnly: true,
  timeoutMs: 180_000,
  async run(ctx) {
    const env = await stackEnv(ctx);
    let r;
    try {
      r = await smokeByCli({ deps: ctx.deps, prefix: ctx.prefix, env });
    } catch (e) {
      const err = e as Error & { hints?: string[] };
      return { status: 'fail', message: `the smoke test failed: ${err.message}`, fix: err.hints?.[0] ?? 'see the device probe above' };
    }
    const ref = await activeReferenceDriver(ctx);
    const on = ref ? ` on the CPU reference driver ${ref.library}` : '';
    const out = { message: `${r.message}${on}`, ...(r.details ? { details: r.details } : {}) };
    return r.ok ? { status: 'ok', ...out } : { status: 'fail', ...out, fix: 'run with --verbose and see the device probe; the driver may miscompile or reject the kernel' };
  },
};
