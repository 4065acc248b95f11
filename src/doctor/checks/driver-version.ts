// Check: the Level Zero GPU driver is new enough for the GPU it must drive (data/compute-runtime-support.csv).
import { nodeLayout } from '../../platform/index.js';
import { driverBuild, familySupport, judgeDriver, LEGACY_SPLIT } from '../../machine/driver-support.js';
import { resolveLibrary, versionFromFileName } from '../../machine/loaders.js';
import { LINUX_UMD } from '../../machine/user-driver.js';
import { compareDebian } from '../../versions/order.js';
import type { Check, DoctorContext } from '../types.js';
import { onDisplayDriver, onIntelGpus, prefixFirstEnv, setupHint } from './shared.js';

const RELEASES = 'https://github.com/intel/compute-runtime/releases';

/**
 * The glibc that Debian sid's driver packages (26.x: GLIBC_2.38 and newer) and Intel's release packages with IGC 2.x
 * (`Depends: libc6 (>= 2.38)`) need: a host below it loads none of the builds that drive the newest GPUs.
 */
const NEW_DRIVER_GLIBC = '2.38';

/**
 * The one fix for a GPU this driver predates: the release that drives it, what stands in the way on this host, and a
 * way out that can work (never the run that installed the driver already there, which would end where it started).
 */
async function newerDriverFix(ctx: DoctorContext, gpu: string, needs: string, ownDriver: boolean): Promise<string> {
  const host = await ctx.facts.host();
  const oldGlibc = host?.glibc !== undefined && compareDebian(host.glibc, NEW_DRIVER_GLIBC) < 0;
  const inWay = [
    ownDriver ? 'the driver in this prefix is the one that predates it, so setting up the same components again changes nothing' : '',
    oldGlibc ? `this host's glibc ${host!.glibc} is older than the ${NEW_DRIVER_GLIBC} that Debian sid's and Intel's current release packages (IGC 2.x) need, and conda-forge's intel-compute-runtime carries no Level Zero driver` : '',
  ].filter(Boolean);
  const ask = `${await setupHint(ctx, `gpu-driver>=${needs}`, 'gpu-driver')} asks every source for a release that drives it and loads here, and otherwise lists each one it found and why not`;
  const out = oldGlibc
    ? `where none does: a distribution with glibc ${NEW_DRIVER_GLIBC} or newer (Ubuntu 24.04+, Debian 13+), or a container of one given /dev/dri; with root there, Intel's packages from ${RELEASES}`
    : `or with root: Intel's packages from ${RELEASES}`;
  return `${gpu} needs compute-runtime ${needs} or newer${inWay.length ? `; here ${inWay.join('; ')}` : ''}: ${ask}; ${out}`;
}

export const driverVersionCheck: Check = {
  id: 'driver-version',
  title: 'GPU driver version',
  group: 'driver',
  run: onIntelGpus(async (ctx, intel) => {
    if (onDisplayDriver(ctx)) {
      const versions = intel.map((g) => `${g.name}: ${g.windows?.driverVersion ?? 'version unknown'}`).join('; ');
      return {
        status: 'ok',
        message: `the display driver carries the user-mode driver (Level Zero, OpenCL and the compiler) on Windows: ${versions}; a GPU too new for it needs a newer Intel graphics driver, not a prefix`,
      };
    }
    // The driver a program started after loading the prefix's env file gets.
    const { env, libDir } = await prefixFirstEnv(ctx);
    const r = await resolveLibrary({ ...ctx.deps, env }, LINUX_UMD, { ldcache: (await ctx.facts.ldcache()).found });
    if (!r.chosen) return { status: 'skip', message: `${LINUX_UMD} not found (the Level Zero GPU driver check says what to do)`, details: { tried: r.tried } };
    const file = r.chosen.realPath ?? r.chosen.path;
    const own = nodeLayout(ctx.deps.platform).path.dirname(r.chosen.path) === libDir;
    const version = versionFromFileName(file);
    const build = version ? driverBuild(version) : undefined;
    const details: Record<string, unknown> = { driver: file, version, build };
    if (build === undefined) return { status: 'warn', message: `${file}: its file name carries no version to judge`, details };
    const problems: string[] = [];
    const fixes = new Set<string>();
    const good: string[] = [];
    for (const g of intel) {
      const v = judgeDriver(build, g.family);
      const gpu = `${g.name}`;
      if (v.kind === 'ok') good.push(`${gpu}: driven since ${v.support.firstRelease}${v.support.firstReleaseExact ? '' : ' or earlier'}`);
      else if (v.kind === 'unknown-family') good.push(`${gpu}: not in this tool's support table (cannot judge)`);
      else if (v.kind === 'no-level-zero') {
        problems.push(`${gpu}: compute-runtime drives ${v.support.generation} ${g.family} through OpenCL only, never through Level Zero`);
        fixes.add('this GPU cannot run Level Zero programs (Triton, PyTorch XPU); use its OpenCL driver, or a newer GPU');
      } else if (v.kind === 'too-old') {
        const needs = driverBuild(v.needs)!;
        problems.push(`${gpu}: this driver (build ${build}) predates ${g.family}, which compute-runtime drives from ${v.needs} (build ${needs})`);
        fixes.add(await newerDriverFix(ctx, g.name, v.needs, own));
      } else {
        problems.push(`${gpu}: ${v.support.generation} left the regular packages at ${LEGACY_SPLIT}; this driver (build ${build}) no longer drives it`);
        fixes.add(`install the frozen -legacy1 packages of the 24.35 line (intel-level-zero-gpu-legacy1 and intel-opencl-icd-legacy1, ${v.support.lastRelease ?? 'releases/24.35'}) from ${RELEASES}`);
      }
    }
    details.table = [...new Set(intel.map((g) => g.family))].map((f) => (f ? familySupport().get(f) : undefined)).filter(Boolean);
    const message = `${file} (build ${build}): ${[...problems, ...good].join('; ')}`;
    if (problems.length) return { status: 'fail', message, fix: [...fixes].join('; '), details };
    return { status: 'ok', message, details };
  }),
};
