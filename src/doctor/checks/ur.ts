// Check: the Unified Runtime loader and its adapters are present and load.
import { nodeLayout } from '../../platform/index.js';
import { tryLoadAll } from '../../machine/load-check.js';
import { urNames } from '../../machine/ur.js';
import type { Check } from '../types.js';
import { reachFix, setupHint } from './shared.js';

export const urCheck: Check = {
  id: 'ur',
  title: 'Unified Runtime',
  group: 'driver',
  async run(ctx) {
    const { ur, tried } = await ctx.facts.installs();
    const names = urNames(ctx.deps.platform);
    const details: Record<string, unknown> = { loader: ur.loader, adapters: ur.adapters, companions: ur.companions, tried };
    if (!ur.loader) {
      const { receipt } = await ctx.facts.receipt();
      if (receipt?.components.some((c) => c.name === 'unified-runtime')) {
        // Installing again brings the same package: say where a loader comes from instead.
        return {
          status: 'warn',
          message: `no UR loader (${names.loader}) found; the prefix's unified-runtime has the adapters but no loader (newer intel-cmplr-lib-ur releases link it into the SYCL runtime, which brings it)`,
          details,
        };
      }
      // The last setup skipped it: running it again would skip it again, unless its sources are reached this time.
      const skipped = receipt?.skipped?.find((s) => s.name === 'unified-runtime');
      // The sources it did not reach are the fix's to name; what the others answered is said here.
      const answered = skipped?.tried.filter((t) => !skipped.unreached.includes(t)) ?? [];
      const why = skipped ? `; the last setup found no source for it${answered.length ? ` (${answered.join('; ')})` : ''}` : '';
      return {
        status: 'warn',
        message: `no UR loader (${names.loader}) found; SYCL, PyTorch XPU and Triton need one (their wheels may bring it)${why}`,
        fix: skipped ? await reachFix(ctx) : `run ${await setupHint(ctx, undefined, 'unified-runtime')} to install it into the prefix`,
        details,
      };
    }
    const { libraryPathVar: libPathVar, pathSep: sep } = nodeLayout(ctx.deps.platform);
    const dir = ur.loader.path.slice(0, Math.max(ur.loader.path.lastIndexOf('/'), ur.loader.path.lastIndexOf('\\')));
    // Adapters need libze_loader/libumf, which the prefix's env files put on the library path.
    const extraEnv = { [libPathVar]: [dir, ctx.deps.env[libPathVar]].filter(Boolean).join(sep) };
    const failures: string[] = [];
    const fixes: string[] = [];
    const loads: Record<string, unknown> = {};
    // The loader and its adapters in one batch, each with the prefix's library directory on the path.
    const files = [{ name: names.loader, path: ur.loader.path }, ...ur.adapters];
    const answers = await tryLoadAll(ctx.deps, files.map((f) => f.path), extraEnv);
    files.forEach((f, i) => {
      const r = answers[i]!;
      loads[f.name] = r;
      if (!r.ok) {
        failures.push(`${f.name} does not load: ${r.diagnosis?.summary ?? r.error}`);
        if (r.diagnosis?.fix) fixes.push(r.diagnosis.fix);
      }
    });
    details.load = loads;
    const missingL0 = !ur.adapters.some((a) => /level_zero/.test(a.name));
    const missingCompanions = names.companions.filter((c) => !ur.companions.some((x) => x.name === c));
    const what = `${ur.loader.path}${ur.loader.inPrefix ? ' (prefix)' : ''} with ${ur.adapters.map((a) => a.name).join(', ') || 'no adapters'}`;
    if (failures.some((f) => f.startsWith(names.loader))) {
      return { status: 'fail', message: failures.join('; '), fix: fixes.join('; ') || `reinstall it with ${await setupHint(ctx)}`, details };
    }
    const problems = [...failures];
    // A missing companion (libumf) matters only to an adapter that links it; such an adapter fails to load above and
    // its diagnosis names the library. Adapters that load without it need none.
    if (missingCompanions.length && failures.length) problems.push(`missing ${missingCompanions.join(', ')} (the Level Zero adapters link it)`);
    if (missingL0) problems.push('no Level Zero adapter: UR will not see Intel GPUs');
    if (problems.length) {
      // Installing the prefix helps only when the UR in use is not the prefix's own; the prefix's would come back the same.
      const fix = fixes[0] ?? (ur.loader.inPrefix ? undefined : `run ${await setupHint(ctx, undefined, 'unified-runtime')} to install the UR loader and adapters into the prefix, then load its env file`);
      return { status: 'warn', message: `${what}; ${problems.join('; ')}`, ...(fix ? { fix } : {}), details };
    }
    details.companionsMissing = missingCompanions;
    return { status: 'ok', message: `${what}; all load`, details };
  },
};
