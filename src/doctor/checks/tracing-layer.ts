// Check: the tracing layer the prefix's loader would load is not an older system copy (zeInit then fails, 0x78000002).
import { nodeLayout } from '../../platform/index.js';
import { resolveLibrary, versionFromFileName } from '../../machine/loaders.js';
import type { Check } from '../types.js';
import { compareMajorMinor } from './headers.js';
import { prefixFirstEnv } from './shared.js';

const TRACING_LAYER = 'libze_tracing_layer.so.1';

export const tracingLayerCheck: Check = {
  id: 'tracing-layer',
  title: 'Level Zero tracing layer',
  group: 'driver',
  async run(ctx) {
    const layout = nodeLayout(ctx.deps.platform);
    if (layout.binaryFormat !== 'elf') return { status: 'skip', message: 'the loader finds its layers beside itself here' };
    const loader = (await ctx.facts.installs()).zeLoader.prefixCopy;
    if (!loader) return { status: 'skip', message: `no Level Zero loader in ${ctx.prefix}` };
    const loaderVersion = loader.version?.version ?? versionFromFileName(loader.realPath ?? loader.path);
    const { env, libDir } = await prefixFirstEnv(ctx);
    const r = await resolveLibrary({ ...ctx.deps, env }, TRACING_LAYER, { ldcache: (await ctx.facts.ldcache()).found });
    const details = { loader: loader.realPath ?? loader.path, loaderVersion, chosen: r.chosen, tried: r.tried };
    if (!r.chosen) return { status: 'ok', message: `no ${TRACING_LAYER} on the library path (the loader runs without it)`, details };
    const file = r.chosen.realPath ?? r.chosen.path;
    const version = versionFromFileName(file);
    if (layout.path.dirname(r.chosen.path) === libDir) return { status: 'ok', message: `${file}: the prefix's own${version ? ` (${version})` : ''}`, details };
    // The loader checks the layer's API by major.minor; a patch release apart does not matter.
    if (version && loaderVersion && compareMajorMinor(version, loaderVersion) < 0) {
      return {
        status: 'fail',
        message: `the prefix's loader ${loaderVersion} would load the system's ${file} (${version}), an older tracing layer: zeInit then fails with ZE_RESULT_ERROR_UNSUPPORTED_VERSION (0x78000002)`,
        fix: `put a ${TRACING_LAYER} of the loader's own version into ${libDir} (the loader's package ships one: reinstall the prefix), or remove the system's copy (Debian: \`sudo apt remove libze1\` when nothing else needs it)`,
        details,
      };
    }
    return { status: 'ok', message: `${file}${version ? ` (${version})` : ''}, not older than the prefix's loader${loaderVersion ? ` ${loaderVersion}` : ''}`, details };
  },
};
