// Check: a C compiler is available to build the runtime addon; --verbose lists every place the finder looked.
import { findCompilers } from '../../build/compilers.js';
import { nodeLayout } from '../../platform/index.js';
import { describeTried } from '../../base/finding.js';
import type { Check } from '../types.js';

export const compilerCheck: Check = {
  id: 'compiler',
  title: 'C compiler',
  group: 'toolchain',
  async run(ctx) {
    const r = await findCompilers(ctx.deps, 'c');
    const tried = describeTried(r.tried);
    const details = { found: r.found, tried };
    const c = r.found[0];
    if (c) return { status: 'ok', message: `${c.path} (${c.version || c.via})`, details };
    return {
      status: 'warn',
      message: 'no C compiler found: the native runtime addon cannot be built (probing falls back to the FFI path)',
      fix: nodeLayout(ctx.deps.platform).remedies.noCompiler,
      details,
    };
  },
};
