// Check: under WSL2 the GPU comes through /dev/dxg and the Windows driver's libdxcore.so, not /dev/dri and i915/xe.
import * as path from 'node:path';
import type { Check } from '../types.js';

export const WSL_DXCORE = 'usr/lib/wsl/lib/libdxcore.so';

export const wslCheck: Check = {
  id: 'wsl',
  title: 'WSL2 GPU',
  group: 'system',
  async run(ctx) {
    const at = (p: string) => path.join(ctx.root, p);
    const [dxg, dxcore, version] = await Promise.all([ctx.deps.exists(at('dev/dxg')), ctx.deps.exists(at(WSL_DXCORE)), ctx.deps.readFile(at('proc/version'))]);
    const wsl = dxg || dxcore || /microsoft/i.test(version ?? '') || !!ctx.deps.env.WSL_DISTRO_NAME;
    if (!wsl) return { status: 'skip', message: 'not WSL' };
    const details = { dxg, dxcore, kernel: version?.trim() };
    if (!dxg) {
      return {
        status: 'fail',
        message: `WSL without ${at('dev/dxg')}: the Windows GPU is not shared with this distribution (WSL 1, or GPU paravirtualisation off)`,
        fix: 'in Windows: `wsl --set-version <distro> 2` and `wsl --update`, install the current Intel graphics driver, then `wsl --shutdown` and start the distribution again',
        details,
      };
    }
    if (!dxcore) {
      return {
        status: 'fail',
        message: `WSL2 shares the GPU (${at('dev/dxg')}) but ${at(WSL_DXCORE)} is missing: the user-mode driver cannot reach it`,
        fix: 'in Windows: `wsl --update`, then `wsl --shutdown` (WSL mounts the Windows driver\'s libraries into /usr/lib/wsl/lib at start)',
        details,
      };
    }
    return {
      status: 'ok',
      message: `WSL2: the GPU is shared through ${at('dev/dxg')} and ${at(WSL_DXCORE)}; there is no /dev/dri node or i915/xe here, and compute-runtime's WSL support (Coffee Lake and newer) comes with the Linux packages`,
      details,
    };
  },
};
