// Check (--smoke): the TRITON_INTEL_DEVICE_ARCH / _EXTENSIONS a Triton started from this shell reads (the shell's
// exports, else the env files) still describe the live device, and which of them the installed Triton reads.
import * as path from 'node:path';
import { probeByCli } from '../services.js';
import type { Check } from '../types.js';
import { EnvVars } from '../../base/env-names.js';
import { MIN_TRITON, installedTriton, tritonReads } from '../../caps/triton.js';
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

/** Where a Triton started from this shell gets a variable: the shell's export, else the env files. */
export type TritonFrom = 'shell' | 'env files';

export interface EffectiveTriton {
  arch?: { value: string; from: TritonFrom };
  extensions?: { value: string[]; from: TritonFrom };
}

/**
 * Pure: what a Triton started from this shell reads: an exported variable wins (even an empty one, which Triton reads
 * as unset), else the value the env files set (what Triton gets once they are loaded).
 */
export function effectiveTriton(shell: Record<string, string | undefined>, files: TritonValues | undefined): EffectiveTriton {
  const out: EffectiveTriton = {};
  const arch = shell[EnvVars.TRITON_INTEL_DEVICE_ARCH];
  const ext = shell[EnvVars.TRITON_INTEL_DEVICE_EXTENSIONS];
  if (arch !== undefined) out.arch = { value: arch.trim(), from: 'shell' };
  else if (files?.arch !== undefined) out.arch = { value: files.arch, from: 'env files' };
  if (ext !== undefined) out.extensions = { value: ext.split(/\s+/).filter(Boolean), from: 'shell' };
  else if (files?.extensions !== undefined) out.extensions = { value: files.extensions, from: 'env files' };
  return out;
}

const where = (from: TritonFrom) => (from === 'shell' ? 'exported in this shell' : 'in the env files');

/**
 * Pure: how what Triton reads differs from what the live device calls for, each line naming where the stale value
 * is; empty when they agree. An empty value counts as unset, as Triton reads it.
 */
export function tritonDifferences(eff: EffectiveTriton, live: TritonValues): string[] {
  const out: string[] = [];
  const arch = eff.arch?.value || undefined;
  if ((arch ?? '') !== (live.arch ?? '')) {
    const is = eff.arch ? (arch ? `is ${arch} ${where(eff.arch.from)}` : `is ${where(eff.arch.from)} empty, which Triton reads as unset`) : 'is set neither in this shell nor in the env files';
    out.push(`TRITON_INTEL_DEVICE_ARCH ${is}, the device calls for ${live.arch ?? 'none'}`);
  }
  const b = new Set(eff.extensions?.value ?? []);
  const l = new Set(live.extensions ?? []);
  const missing = [...l].filter((e) => !b.has(e));
  const extra = [...b].filter((e) => !l.has(e));
  if (eff.extensions && b.size === 0 && l.size > 0) {
    out.push(`TRITON_INTEL_DEVICE_EXTENSIONS is ${where(eff.extensions.from)} empty, which Triton reads as unset (it then asks the device itself, which fails in compile subprocesses)`);
  } else if (missing.length || extra.length) {
    const parts = [missing.length ? `missing ${missing.join(' ')}` : '', extra.length ? `not on the device ${extra.join(' ')}` : ''].filter(Boolean);
    out.push(`TRITON_INTEL_DEVICE_EXTENSIONS ${eff.extensions ? where(eff.extensions.from) : '(set neither in this shell nor in the env files)'}: ${parts.join('; ')}`);
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
    const envJson = path.join(ctx.prefix, 'env.json');
    const files = tritonFromEnvJson(await ctx.deps.readFile(envJson));
    const eff = effectiveTriton(ctx.deps.env, files);
    if (!files && !eff.arch && !eff.extensions) return { status: 'skip', message: `no ${envJson} and no Triton variable in this shell: nothing to compare` };
    let live;
    try {
      live = (await probeByCli({ deps: ctx.deps, prefix: ctx.prefix, env: await stackEnv(ctx) })).tritonEnv;
    } catch (e) {
      return { status: 'skip', message: `the probe failed, so the device is not known: ${(e as Error).message}` };
    }
    if (!live) return { status: 'skip', message: 'the probe found no device to compare with' };
    const liveValues: TritonValues = { arch: live.arch, extensions: live.extensions };
    const triton = await installedTriton(ctx.deps);
    const reads = triton.found ? tritonReads(triton.found.version, live.sycl ?? 'unknown') : undefined;
    const all = tritonDifferences(eff, liveValues);
    // Only what the installed Triton reads can mislead it; the rest is said, not warned about.
    const matters = (line: string) => !reads || (line.startsWith(EnvVars.TRITON_INTEL_DEVICE_ARCH) ? reads.arch : reads.extensions);
    const diff = all.filter(matters);
    const ignored = all.filter((l) => !matters(l));
    const tritonNote = triton.found
      ? `${reads!.note} (${triton.found.dist} in ${triton.found.python})`
      : `no Triton found in the active Python (Triton ${MIN_TRITON} or newer reads both variables)`;
    const details = { envFile: envJson, envFiles: files ?? null, shell: { arch: ctx.deps.env[EnvVars.TRITON_INTEL_DEVICE_ARCH] ?? null, extensions: ctx.deps.env[EnvVars.TRITON_INTEL_DEVICE_EXTENSIONS] ?? null }, reads: eff, device: liveValues, triton: triton.found ?? null, tritonReads: reads ?? null, pythonTried: triton.tried };
    const also = ignored.length ? `; not read by this Triton: ${ignored.join('; ')}` : '';
    if (diff.length === 0) {
      const what = ignored.length ? 'what this Triton reads agrees with the device'
        : eff.arch?.value ? `${eff.arch.value}, ${eff.extensions?.value.length ?? 0} extensions, as the device reports` : 'no Triton variables, and the device calls for none';
      return { status: 'ok', message: `${what}; ${tritonNote}${also}`, details };
    }
    const fromOf = (line: string) => (line.startsWith(EnvVars.TRITON_INTEL_DEVICE_ARCH) ? eff.arch : eff.extensions)?.from;
    const stale = new Set(diff.map(fromOf));
    const fixes = [
      stale.has('shell') ? 'unset the stale exported variable(s), or load the prefix\'s env files again in this shell' : '',
      stale.has('env files') || stale.has(undefined) ? `run \`xpu-setup --prefix ${ctx.prefix}\` again on this machine to rewrite the env files (the prefix was probed on another GPU or driver)` : '',
    ].filter(Boolean);
    return { status: 'warn', message: `${diff.join('; ')}; ${tritonNote}${also}`, fix: fixes.join('; or '), details };
  },
};
