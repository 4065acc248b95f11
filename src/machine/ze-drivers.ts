// Why zeInit found no driver: which driver libraries the loader would open do load here, and what the kernel side lacks.
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { nodeLayout } from '../platform/index.js';
import { detectGpus } from './gpu.js';
import { readLdconfig } from './ldconfig.js';
import { tryLoadInNode } from './load-check.js';
import { resolveLibrary } from './loaders.js';
import { detectRenderNodes, renderVerdict } from './render-nodes.js';
import type { DetectOptions } from './types.js';

export interface DriverLoad {
  /** The name the loader opens (bare soname, or an entry of the driver choice as written). */
  name: string;
  /** The file the dynamic linker picks for it, when one is on the search path. */
  path?: string;
  loaded: boolean;
  /** Why it did not load (not on the search path, or the dlopen message's reason). */
  why?: string;
}

export interface NoDriverExplanation {
  drivers: DriverLoad[];
  /** What the kernel side lacks, each a sentence with its remedy; empty when nothing was found wrong. */
  kernel: string[];
}

/** The driver libraries the loader tries: a driver choice (split on ',', untrimmed, as the loader does) replaces the default list. */
export function driverNames(chosen: readonly string[] | undefined, defaults: readonly string[]): string[] {
  return chosen?.join(',') ? chosen.filter(Boolean) : [...defaults];
}

/**
 * Loads each driver library the loader would open, in a child with the same environment (the loader itself closes a
 * driver whose zeInit fails, so this process cannot tell afterwards), and reads the kernel-side facts that leave a
 * loaded driver without a device. Empty on a platform whose display driver registers its own Level Zero driver.
 */
export async function explainNoDriver(deps: Deps, chosen: readonly string[] | undefined, opts: DetectOptions = {}): Promise<NoDriverExplanation> {
  const layout = nodeLayout(deps.platform);
  if (layout.gpuDriver === 'display-driver') return { drivers: [], kernel: [] };
  const ld = layout.ldconfig ? (await readLdconfig(deps)).found : [];
  const names = driverNames(chosen, layout.zeDriverLibraries);
  const drivers: DriverLoad[] = [];
  for (const name of names) {
    if (name.includes('/')) {
      drivers.push((await deps.exists(name)) ? { name, path: name, loaded: false } : { name, loaded: false, why: 'no such file' });
      continue;
    }
    const r = await resolveLibrary(deps, name, { ldcache: ld });
    drivers.push(r.chosen ? { name, path: r.chosen.path, loaded: false } : { name, loaded: false, why: 'not on the library search path' });
  }
  const toLoad = drivers.filter((d) => d.path && !d.why);
  const answers = await tryLoadInNode(deps, toLoad.map((d) => d.path!));
  toLoad.forEach((d, i) => {
    const a = answers[i];
    if (a?.ok) d.loaded = true;
    else d.why = a?.diagnosis?.summary ?? a?.error ?? 'did not load';
  });
  return { drivers, kernel: drivers.some((d) => d.loaded) ? await kernelSide(deps, opts) : [] };
}

/** The kernel-side reasons a loaded GPU driver finds no device, most basic first. */
async function kernelSide(deps: Deps, opts: DetectOptions): Promise<string[]> {
  const gpus = (await detectGpus(deps, opts)).found.intel;
  if (gpus.length === 0) return ['there is no Intel GPU on this machine\'s PCI bus (in a VM or container it must be passed through)'];
  const out: string[] = [];
  for (const g of gpus) {
    if (g.driver !== 'i915' && g.driver !== 'xe') out.push(`${g.name} at ${g.address ?? g.pciId} has no i915 or xe kernel driver bound${g.driver ? ` (bound to ${g.driver})` : ''}: run \`xpu-setup doctor\` for the kernel-driver check`);
  }
  const render = renderVerdict((await detectRenderNodes(deps, opts)).found);
  if (render.kind === 'no-nodes') out.push(`there is no render node under ${path.join(opts.root ?? '/', 'dev/dri')} (no kernel driver created one; in a container, pass --device /dev/dri)`);
  else if (render.kind !== 'ok') out.push(render.fix);
  return out;
}
