// Check: every shared library in the prefix finds each library it needs, with each symbol version, in the prefix or on this machine.
import { nodeLayout } from '../../host/index.js';
import { describeUnmet, unmetLibraryNeeds } from '../../inspect/library-needs.js';
import type { Check } from '../types.js';
import { setupHint } from './shared.js';

export const librariesCheck: Check = {
  id: 'libraries',
  title: 'Prefix libraries',
  group: 'toolchain',
  async run(ctx) {
    const layout = nodeLayout(ctx.deps.platform);
    const { receipt } = await ctx.facts.receipt();
    if (!receipt) return { status: 'skip', message: `no xpu-setup prefix at ${ctx.prefix}` };
    // ELF libraries are read here; a Windows prefix's DLLs are not.
    if (!layout.dynamicLinker) return { status: 'skip', message: 'only ELF libraries (Linux) are read' };
    const unmet = await unmetLibraryNeeds(ctx.deps, ctx.prefix, layout.prefixLibDirs, (await ctx.facts.ldcache()).found);
    const details = { unmet };
    if (!unmet.length) return { status: 'ok', message: `every library in ${ctx.prefix} finds what it needs`, details };
    // A re-run plans the closure again (--refresh: not the plan an older run recorded), which brings the packages.
    const hint = await setupHint(ctx);
    return {
      status: 'fail',
      message: unmet.map(describeUnmet).join('; '),
      fix: `run ${hint.replace(/`$/, ' --refresh`')} to install the packages they come with${unmet.some((u) => !u.providedBy) ? '' : ` (${[...new Set(unmet.map((u) => u.providedBy))].join('; ')})`}`,
      details,
    };
  },
};
