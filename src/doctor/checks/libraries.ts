// Check: every library in the prefix finds what it needs in the prefix or on this machine (ELF: each library and symbol version; Windows: each imported DLL).
import { isNative, layoutFor, nodeLayout } from '../../platform/index.js';
import { foreignBinaries } from '../../machine/binary-arch.js';
import { describeUnmet, unmetDllImports, unmetLibraryNeeds, type UnmetNeed } from '../../machine/library-needs.js';
import type { Check } from '../types.js';
import { setupHint } from './shared.js';

export const librariesCheck: Check = {
  id: 'libraries',
  title: 'Prefix libraries',
  group: 'toolchain',
  async run(ctx) {
    const { receipt } = await ctx.facts.receipt();
    if (!receipt) return { status: 'skip', message: `no xpu-setup prefix at ${ctx.prefix}` };
    let unmet: UnmetNeed[];
    let damaged: string[] = [];
    const target = layoutFor(receipt.platform);
    if (target.binaryFormat === 'pe') {
      // DLL imports are read from the files on any system; off Windows, Windows' own DLLs are taken as present.
      ({ unmet, damaged } = await unmetDllImports(ctx.deps, ctx.prefix, target.prefixLibDirs));
    } else if (!isNative(ctx.deps, receipt.platform)) {
      // Another machine's prefix (`--platform linux-aarch64`): its libraries need that machine's, not this one's.
      const foreign = await foreignBinaries(ctx.prefix, [...target.prefixLibDirs, 'bin'], target);
      if (foreign.length) return { status: 'fail', message: foreign.join('; '), fix: `run ${(await setupHint(ctx)).replace(/`$/, ' --refresh`')} to install the ${receipt.platform} packages again`, details: { foreign } };
      return { status: 'skip', message: `a prefix for ${receipt.platform}: its libraries are built for ${target.arch.elfMachineName}; what they need is found on such a machine (run doctor there)` };
    } else {
      const layout = nodeLayout(ctx.deps.platform);
      if (!layout.dynamicLinker) return { status: 'skip', message: 'a Linux prefix: its ELF libraries are checked on Linux' };
      unmet = await unmetLibraryNeeds(ctx.deps, ctx.prefix, layout.prefixLibDirs, (await ctx.facts.ldcache()).found);
    }
    const details = { unmet, damaged };
    if (!unmet.length && !damaged.length) return { status: 'ok', message: `every library in ${ctx.prefix} finds what it needs`, details };
    // A re-run plans the closure again (--refresh: not the plan an older run recorded), which brings the packages.
    const hint = await setupHint(ctx);
    return {
      status: 'fail',
      message: [...damaged, ...unmet.map(describeUnmet)].join('; '),
      fix: `run ${hint.replace(/`$/, ' --refresh`')} to install the packages they come with${unmet.some((u) => !u.providedBy) || damaged.length ? '' : ` (${[...new Set(unmet.map((u) => u.providedBy))].join('; ')})`}`,
      details,
    };
  },
};
