// Check: this OS and CPU architecture are ones xpu-setup supports.
import { runningPlatform } from '../../platform/index.js';
import type { Check } from '../types.js';

export const platformCheck: Check = {
  id: 'platform',
  title: 'Operating system',
  group: 'system',
  async run(ctx) {
    const p = runningPlatform(ctx.deps);
    if (!p) {
      return {
        status: 'fail',
        message: `${ctx.deps.platform}-${ctx.deps.arch} is not supported`,
        fix: 'xpu-setup runs on Linux and Windows on x86-64; from there it also makes prefixes for Arm Linux machines (--platform linux-aarch64)',
      };
    }
    const host = await ctx.facts.host();
    const parts = [p, host?.distro?.prettyName, host?.glibc ? `glibc ${host.glibc}` : undefined].filter(Boolean);
    return { status: 'ok', message: parts.join(', '), details: { platform: p, distro: host?.distro, glibc: host?.glibc } };
  },
};
