// Check (--smoke): the TRITON_INTEL_DEVICE_ARCH / _EXTENSIONS baked into the prefix's env files still describe the
// live device (they go stale when the prefix was probed on another GPU, or the driver changed since).
import * as path from 'node:path';
import type { Check } from '../types.js';
import { stackEnv } from './shared.js';

export interface TritonValues {
  arch?: string;
  extensions?: string[];
}

/** Pure: the two Triton variables from an env.json document; undefined fields when it does not set them. */
export function tritonFromEnvJson(text: string | undefined): TritonValues | undefined {
  if (!text) return undefined;
  let doc: { vars?: { name?: unknown; value?: unknown }[] };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    return undefined;
  }
  const get = (name: string) => doc.vars?.find((v) => v.name === name)?.value;
  const arch = get('TRITON_INTEL_DEVICE_ARCH');
  const ext = get('TRITON_INTEL_DEVICE_EXTENSIONS');
  const out: TritonValues = {};
  if (typeof arch === 'string') out.arch = arch;
  if (typeof ext === 'string') out.extensions = ext.split(/\s+/).filter(Boolean);
  return out;
}

/** Pure: how the env files' values differ from what the live device calls for; empty when they agree. */
export function tritonDifferences(baked: TritonValues, live: TritonValues): string[] {
  const out: string[] = [];
  if ((baked.arch ?? '') !== (live.arch ?? '')) {
    out.push(`TRITON_INTEL_DEVICE_ARCH is ${baked.arch ?? 'not set'} in the env files, the device calls for ${live.arch ?? 'none'}`);
  }
  const b = new Set(baked.extensions ?? []);
  const l = new Set(live.extensions ?? []);
  const missing = [...l].filter((e) => !b.has(e));
  const extra = [...b].filter((e) => !l.has(e));
  if (missing.length || extra.length) {
    const parts = [missing.length ? `missing ${missing.join(' ')}` : '', extra.length ? `not on the device ${extra.join(' ')}` : ''].filter(Boolean);
    out.push(`TRITON_INTEL_DEVICE_EXTENSIONS in the env files: ${parts.join('; ')}`);
  }
  return out;
}

export const tritonEnvCheck: Check = {
  id: 'triton-env',
  title: 'Triton variables match the device',
  group: 'runtime',
  smokeOnly: true,
  timeoutMs: 60_000,
  async run(ctx) {
    const probe = ctx.services.probe;
    if (!probe) return { status: 'skip', message: 'no probe available in this build' };
    const envJson = path.join(ctx.prefix, 'env.json');
    const baked = tritonFromEnvJson(await ctx.deps.readFile(envJson));
    if (!baked) return { status: 'skip', message: `no ${envJson}: nothing was written to compare` };
    let live;
    try {
      live = (await probe({ deps: ctx.deps, prefix: ctx.prefix, env: await stackEnv(ctx) })).tritonEnv;
    } catch (e) {
      return { status: 'skip', message: `the probe failed, so the device is not known: ${(e as Error).message}` };
    }
    if (!live) return { status: 'skip', message: 'the probe found no device to compare with' };
    const liveValues: TritonValues = { arch: live.arch, extensions: live.extensions };
    const diff = tritonDifferences(baked, liveValues);
    const details = { envFile: envJson, envFiles: baked, device: liveValues };
    if (diff.length === 0) {
      return { status: 'ok', message: baked.arch ? `${baked.arch}, ${baked.extensions?.length ?? 0} extensions, as the device reports` : 'no Triton variables, and the device calls for none', details };
    }
    return {
      status: 'warn',
      message: diff.join('; '),
      fix: `run \`xpu-setup --prefix ${ctx.prefix}\` again on this machine to rewrite the env files (the prefix was probed on another GPU or driver)`,
      details,
    };
  },
};
