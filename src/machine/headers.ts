// Level Zero headers: where they are (prefix, SDK variables, compiler paths, system) and which API version they declare.
import { nodeLayout } from '../platform/index.js';
import type { Deps } from '../base/deps.js';
import type { Finding } from '../base/finding.js';
import { EnvVars } from '../base/env-names.js';

export interface ZeHeaderInfo {
  /** ZE_API_VERSION_CURRENT as "major.minor". */
  apiVersion?: string;
  /** The spec revision from the file banner, e.g. "v1.4-r1.4.8". */
  specVersion?: string;
  /** ze_device_ip_version_ext_t (Triton needs it; absent before headers 1.9). */
  hasIpVersionExt: boolean;
}

/** Pure: reads ze_api.h text. */
export function parseZeApiHeader(text: string): ZeHeaderInfo {
  const info: ZeHeaderInfo = { hasIpVersionExt: /\bze_device_ip_version_ext_t\b/.test(text) };
  const api = /ZE_API_VERSION_CURRENT\s*=\s*ZE_MAKE_VERSION\(\s*(\d+)\s*,\s*(\d+)\s*\)/.exec(text);
  if (api) info.apiVersion = `${api[1]}.${api[2]}`;
  const spec = /@version\s+(v[\d.]+-r[\d.]+)/.exec(text);
  if (spec) info.specVersion = spec[1];
  return info;
}

export type HeaderSource = 'prefix' | 'LEVEL_ZERO_V1_SDK_PATH' | 'ZE_PATH' | 'CPATH' | 'C_INCLUDE_PATH' | 'CPLUS_INCLUDE_PATH' | 'INCLUDE' | 'system';

export interface HeaderInstall {
  /** The -I directory (it contains level_zero/ze_api.h). */
  includeDir: string;
  source: HeaderSource;
  header: string;
  info: ZeHeaderInfo;
}

/** Pure: the include dirs to look at, most specific first. */
export function headerSearchDirs(platform: NodeJS.Platform, env: Record<string, string | undefined>, prefix?: string): { dir: string; source: HeaderSource }[] {
  const layout = nodeLayout(platform);
  const join = layout.path.join;
  const sep = layout.pathSep;
  const out: { dir: string; source: HeaderSource }[] = [];
  if (prefix) out.push({ dir: join(prefix, 'include'), source: 'prefix' });
  for (const name of [EnvVars.LEVEL_ZERO_V1_SDK_PATH, EnvVars.ZE_PATH]) {
    const dir = env[name];
    if (dir) out.push({ dir: join(dir, 'include'), source: name });
  }
  for (const v of layout.compilerIncludeVars) for (const d of (env[v] ?? '').split(sep).filter(Boolean)) out.push({ dir: d, source: v });
  for (const d of layout.systemIncludeDirs) out.push({ dir: d, source: 'system' });
  return out;
}

export async function findZeHeaders(deps: Deps, prefix?: string): Promise<Finding<HeaderInstall[]>> {
  const join = nodeLayout(deps.platform).path.join;
  const found: HeaderInstall[] = [];
  const tried: string[] = [];
  const seen = new Set<string>();
  for (const { dir, source } of headerSearchDirs(deps.platform, deps.env, prefix)) {
    const header = join(dir, 'level_zero', 'ze_api.h');
    if (seen.has(header)) continue;
    seen.add(header);
    const text = await deps.readFile(header);
    if (text === undefined) {
      tried.push(`${header} (${source}): not there`);
      continue;
    }
    const info = parseZeApiHeader(text);
    tried.push(`${header} (${source}): API ${info.apiVersion ?? 'unknown'}`);
    found.push({ includeDir: dir, source, header, info });
  }
  return { found, tried };
}

export interface SdkPathCheck {
  variable: 'LEVEL_ZERO_V1_SDK_PATH' | 'ZE_PATH';
  dir: string;
  hasHeaders: boolean;
  hasLinkLibrary: boolean;
  /** What a consumer looking there expects and does not get. */
  missing: string[];
}

/** What Triton does with the variable: -I$DIR/include (for level_zero/ze_api.h) and -L$DIR/lib -lze_loader. */
export async function checkSdkPath(deps: Deps, variable: SdkPathCheck['variable'], dir: string): Promise<SdkPathCheck> {
  const layout = nodeLayout(deps.platform);
  const join = layout.path.join;
  const header = join(dir, 'include', 'level_zero', 'ze_api.h');
  const lib = join(dir, 'lib', layout.zeLinkLibrary);
  const hasHeaders = await deps.exists(header);
  const hasLinkLibrary = await deps.exists(lib);
  const missing: string[] = [];
  if (!hasHeaders) missing.push(header);
  if (!hasLinkLibrary) missing.push(lib);
  return { variable, dir, hasHeaders, hasLinkLibrary, missing };
}
