// Loads the built runtime addon with koffi and reads its probe: the same questions asked through compiled C.
import * as path from 'node:path';
import { XpuError } from '../base/errors.js';
import { Block, loadLibrary } from './ffi.js';
import type { RawZeProbe } from './types.js';
import { missingExtensionNotes } from './ze.js';

export interface AddonProbe extends RawZeProbe {
  headers: { apiVersion: string; haveIpVersionExt: boolean };
}

export const ADDON_ABI = 1;

export function probeViaAddon(addonPath: string, loaderPath: string): AddonProbe {
  let lib;
  try {
    // Its ze_loader.dll import is resolved in the prefix's bin (beside the loader), never on PATH.
    lib = loadLibrary(addonPath, { dependencyDirs: [path.dirname(loaderPath)] });
  } catch (e) {
    throw new XpuError('RUNTIME', `cannot load the runtime addon ${addonPath}`, { cause: e, hints: ['rebuild it: xpu-setup probe rebuilds a missing or stale addon'] });
  }
  const abi = (lib.func('int xpu_addon_abi(void)') as () => number)();
  if (abi !== ADDON_ABI) throw new XpuError('RUNTIME', `the runtime addon ${addonPath} has ABI ${abi}, expected ${ADDON_ABI}`);
  const haveIp = (lib.func('int xpu_addon_headers_have_ip_version(void)') as () => number)() === 1;
  const api = (lib.func('uint32_t xpu_addon_headers_api_version(void)') as () => number)();
  const probe = lib.func('size_t xpu_probe_json(void *buf, size_t cap)') as (b: bigint, n: number) => number | bigint;
  let cap = 1 << 16;
  for (let attempt = 0; attempt < 3; attempt++) {
    const buf = new Block(cap);
    try {
      const need = Number(probe(buf.ptr, cap));
      if (need < cap) {
        const raw = JSON.parse(buf.str(0, need + 1)) as Omit<RawZeProbe, 'loaderPath' | 'notes'>;
        return {
          ...raw,
          via: 'addon',
          loaderPath,
          notes: [
            ...raw.drivers.flatMap((d, i) => missingExtensionNotes(d.extensions, i)),
            ...(haveIp ? [] : ['the headers the addon was built against lack ze_device_ip_version_ext_t (need >= 1.9): it used its own definition']),
          ],
          headers: { apiVersion: `${api >>> 16}.${api & 0xffff}`, haveIpVersionExt: haveIp },
        };
      }
      cap = need + 1;
    } finally {
      buf.free();
    }
  }
  throw new XpuError('RUNTIME', 'the runtime addon kept asking for a larger buffer');
}
