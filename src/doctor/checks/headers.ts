// Check: Level Zero headers are present, which API they declare, and whether they are newer than the loader in use.
import type { HeaderInstallWithVersion, LoaderInstall } from '../../machine/installs.js';
import type { Check } from '../types.js';
import { envLoadHint, reachFix, setupHint } from './shared.js';

/** Pure: compares "major.minor" of two release versions; positive when a is newer. */
export function compareMajorMinor(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((x) => parseInt(x, 10));
  const pb = b.split(/[.-]/).map((x) => parseInt(x, 10));
  for (let i = 0; i < 2; i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

/** Pure: the verdict on headers against the loader they will be used with. */
export function headerLoaderMismatch(h: HeaderInstallWithVersion, loader: LoaderInstall | undefined): string | undefined {
  const hv = h.version?.version;
  const lv = loader?.version?.version;
  if (!hv || !lv) return undefined;
  if (compareMajorMinor(hv, lv) > 0) {
    return `headers ${hv} (${h.version!.source}) are newer than the loader ${lv} (${loader!.version!.source}): code built against them can call functions that loader does not export`;
  }
  return undefined;
}

export const headersCheck: Check = {
  id: 'headers',
  title: 'Level Zero headers',
  group: 'driver',
  async run(ctx) {
    const inst = await ctx.facts.installs();
    const headers = inst.zeHeaders;
    const details: Record<string, unknown> = {
      headers: headers.map((h) => ({ header: h.header, source: h.source, api: h.info.apiVersion, spec: h.info.specVersion, version: h.version })),
    };
    if (headers.length === 0) {
      return {
        status: 'warn',
        message: 'no level_zero/ze_api.h found (needed to compile against Level Zero, e.g. Triton\'s host stub)',
        fix: `run ${await setupHint(ctx, undefined, 'level-zero')} to install headers into the prefix (or sudo apt install libze-dev)`,
        details,
      };
    }
    const h = headers[0]!;
    const loader = h.source === 'prefix' ? inst.zeLoader.prefixCopy ?? inst.zeLoader.chosen : inst.zeLoader.chosen;
    const desc = `${h.header} (${h.source}): API ${h.info.apiVersion ?? 'unknown'}${h.version ? `, ${h.version.version} from ${h.version.source}` : ''}`;
    const problems: string[] = [];
    const fixes: string[] = [];
    const mismatch = headerLoaderMismatch(h, loader);
    if (mismatch) {
      problems.push(mismatch);
      fixes.push('use headers and loader from the same release (`xpu-setup` installs both into the prefix)');
    }
    if (!h.info.hasIpVersionExt) {
      // Triton's launcher compiles against them (it calls only the 1.0 core API); what goes without is the architecture
      // name the probe reads from the device, which then comes from the PCI-id table.
      problems.push('these headers lack ze_device_ip_version_ext_t (added in 1.9), so the probe names the GPU architecture from the PCI-id table instead of the device; Triton\'s launcher still compiles against them (it uses only the 1.0 core API)');
      // Below the floor because no source it reached had more: asking for the floor again would only fail. The fix is
      // the one every check that needs those sources gives, so that the report says it once.
      const below = h.source === 'prefix' ? (await ctx.facts.receipt()).receipt?.components.find((c) => c.name === 'level-zero')?.belowFloor : undefined;
      if (below) fixes.push(await reachFix(ctx));
      // Asked for by version: the recorded request (or a floor lowered on purpose) would install the same headers again.
      else fixes.push(`run ${await setupHint(ctx, 'level-zero>=1.9')} to install headers 1.9 or newer into the prefix; then ${envLoadHint(ctx)} puts them first`);
    }
    const others = headers.slice(1).map((x) => `${x.header} (${x.source}, API ${x.info.apiVersion ?? '?'})`);
    if (others.length) details.alsoFound = others;
    if (problems.length) return { status: 'warn', message: `${desc}; ${problems.join('; ')}`, fix: fixes.join('; '), details };
    return { status: 'ok', message: desc, details };
  },
};
