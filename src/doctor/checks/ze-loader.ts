// Check: the Level Zero loader programs will load (and the prefix's copy): where, which version, shadowing, loadability.
import { nodeLayout } from '../../platform/index.js';
import { tryLoadAll } from '../../machine/load-check.js';
import type { LoaderInstall } from '../../machine/installs.js';
import { zeLoaderName } from '../../machine/installs.js';
import { windowsLoaderFacts } from '../../bindings/win-loader.js';
import type { Check } from '../types.js';
import { envScriptHint, setupHint } from './shared.js';

function describe(l: LoaderInstall): string {
  const v = l.version ? ` ${l.version.version} (${l.version.source})` : '';
  const real = l.realPath && l.realPath !== l.path ? ` -> ${l.realPath}` : '';
  return `${l.path}${real}${v}`;
}

export const zeLoaderCheck: Check = {
  id: 'ze-loader',
  title: 'Level Zero loader',
  group: 'driver',
  async run(ctx) {
    const inst = await ctx.facts.installs();
    const { chosen, shadowed, prefixCopy } = inst.zeLoader;
    const name = zeLoaderName(ctx.deps.platform);
    const details: Record<string, unknown> = {
      chosen,
      shadowed,
      prefixCopy,
      tried: inst.zeLoader.resolution.tried,
    };
    if (!chosen && !prefixCopy) {
      return {
        status: 'fail',
        message: `${name} not found on the library search path${ctx.prefixExplicit ? ` nor in ${ctx.prefix}` : ''}`,
        fix: nodeLayout(ctx.deps.platform).remedies.noZeLoader(await setupHint(ctx, undefined, 'level-zero')),
        details,
      };
    }
    const problems: string[] = [];
    const fixes: string[] = [];
    const notes: string[] = [];
    const loads: Record<string, unknown> = {};
    // Every distinct copy, in one batch; a copy is named by its path, so the prefix's is tried for itself, not taken
    // for the chosen one under their common SONAME.
    const copies = [chosen, prefixCopy].filter((x): x is LoaderInstall => !!x);
    const unique = copies.filter((l, i) => copies.findIndex((o) => (o.realPath ?? o.path) === (l.realPath ?? l.path)) === i);
    const answers = await tryLoadAll(ctx.deps, unique.map((l) => l.path));
    unique.forEach((l, i) => {
      const r = answers[i]!;
      loads[l.realPath ?? l.path] = r;
      if (!r.ok) {
        problems.push(`${describe(l)} does not load: ${r.diagnosis?.summary ?? r.error}`);
        if (r.diagnosis?.fix) fixes.push(r.diagnosis.fix);
      }
    });
    details.load = loads;
    const samePrefix = prefixCopy && chosen && (prefixCopy.realPath ?? prefixCopy.path) === (chosen.realPath ?? chosen.path);
    let status: 'ok' | 'warn' | 'fail' = problems.length ? 'fail' : 'ok';
    const layout = nodeLayout(ctx.deps.platform);
    if (prefixCopy && !samePrefix) {
      if (layout.driverLoaderInSystem32 && chosen?.via === 'System32') {
        notes.push(`programs that load ${name} by name get the driver's ${chosen.path}; the prefix copy ${prefixCopy.path} is used only when loaded by full path`);
      } else {
        if (status === 'ok') status = 'warn';
        problems.push(`programs load ${chosen ? `${describe(chosen)} via ${chosen.via}` : 'nothing'}, not the prefix's ${describe(prefixCopy)}`);
        fixes.push(await envScriptHint(ctx, `puts the prefix first on ${layout.libraryPathVar}`));
      }
    }
    if (layout.driverLoaderInSystem32 && prefixCopy) {
      // Which copy the process loaded, what System32 and the DriverStore hold, and what env.bat/env.ps1 users get.
      const w = await windowsLoaderFacts(prefixCopy.path, ctx.deps);
      details.windows = w;
      notes.push(...w.notes);
    }
    if (shadowed.length) notes.push(`also on the search path, shadowed: ${shadowed.map(describe).join(', ')}`);
    const head = chosen ? `${describe(chosen)} via ${chosen.via}` : `only the prefix copy ${describe(prefixCopy!)}`;
    const message = [problems.length ? problems.join('; ') : `${head}, loads`, ...notes].join('; ');
    const out = { status, message, details } as const;
    return fixes.length ? { ...out, fix: fixes.join('; ') } : out;
  },
};
