// Check: ocloc is there for what runs it (PyTorch Inductor's zebin kernels, Triton's device query without OpenCL).
import { findOcloc } from '../../machine/ocloc.js';
import type { Check } from '../types.js';
import { offDisplayDriver, stackEnv } from './shared.js';

export const INDUCTOR_FORMAT = 'TORCHINDUCTOR_XPU_KERNEL_FORMAT';

export const oclocCheck: Check = {
  id: 'ocloc',
  title: 'Offline compiler (ocloc)',
  group: 'toolchain',
  run: offDisplayDriver('Windows: PyTorch Inductor builds SPIR-V kernels there, and the display driver carries the compiler', async (ctx) => {
    const env = await stackEnv(ctx);
    const found = await findOcloc({ ...ctx.deps, env }, { prefix: ctx.prefix });
    const format = env[INDUCTOR_FORMAT];
    const details = { found: found.found ?? null, tried: found.tried, [INDUCTOR_FORMAT]: format ?? null };
    if (found.found) return { status: 'ok', message: `${found.found.path} (${found.found.via === 'prefix' ? 'the prefix\'s' : 'on PATH'})`, details };
    if (format === 'spv') return { status: 'ok', message: `no ocloc, and none needed by PyTorch Inductor: ${INDUCTOR_FORMAT}=spv`, details };
    return {
      status: 'warn',
      message: `no ocloc in ${ctx.prefix}/bin nor on PATH: PyTorch Inductor builds zebin kernels with it by default${format ? ` (${INDUCTOR_FORMAT}=${format})` : ''}, and Triton's device query falls back to it when there is no OpenCL GPU platform (then every feature reads False)`,
      fix: `install ocloc with the GPU driver (Intel's intel-ocloc package; Debian 12: intel-opencl-icd carries it), or set ${INDUCTOR_FORMAT}=spv so Inductor hands SPIR-V to the driver instead`,
      details,
    };
  }),
};
