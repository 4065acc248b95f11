// Detects the host and answers per-platform questions; the only place that branches on the platform.
import { readFile } from 'node:fs/promises';
import * as os from 'node:os';
import * as nodePath from 'node:path';
import type { Deps } from '../base/deps.js';
import { XpuError } from '../base/errors.js';
import { libcPathFromMaps, linuxCacheDir, linuxDataDir, linuxLayout, linuxLayoutFor, parseGlibcVersion, parseLibcBanner, parseOsRelease } from './linux.js';
import { platformOf, platformRunning, PLATFORMS } from './targets.js';
import type { Host, PlatformLayout, TargetPlatform } from './types.js';
import { TARGET_PLATFORMS } from './types.js';
import { win32CacheDir, win32DataDir, win32Layout, win32LayoutFor } from './win32.js';
export { system32Dir } from './win32.js';
import { EnvVars } from '../base/env-names.js';

export * from './types.js';

export function runningPlatform(deps: Pick<Deps, 'platform' | 'arch'>): TargetPlatform | undefined {
  return platformRunning(deps.platform, deps.arch);
}

/** The layout for a Node platform name when there is one (Linux, Windows); undefined elsewhere (macOS). */
export function osLayout(platform: NodeJS.Platform): PlatformLayout | undefined {
  return platform === 'win32' ? win32Layout : platform === 'linux' ? linuxLayout : undefined;
}

const OS_FAMILY: Record<string, string> = { linux: 'linux', win32: 'windows', darwin: 'macos' };

/** The OS family as CI runners name it (`linux`, `windows`, `macos`), or the platform itself. */
export function osFamily(platform: string): string {
  return OS_FAMILY[platform] ?? platform;
}

/** Whether `platform` is the one this machine runs (so a prefix or plan for it may be executed here). */
export function isNative(deps: Pick<Deps, 'platform' | 'arch'>, platform: TargetPlatform | undefined): boolean {
  return platform !== undefined && platform === runningPlatform(deps);
}

export function parseTargetPlatform(value: string): TargetPlatform {
  if ((TARGET_PLATFORMS as readonly string[]).includes(value)) return value as TargetPlatform;
  throw new XpuError('USAGE', `unknown platform "${value}"`, { hints: [`use one of: ${TARGET_PLATFORMS.join(', ')}`] });
}

/** The layout of a target platform: its OS's prefix and runtime, with its arch's facts. */
export function layoutFor(platform: TargetPlatform): PlatformLayout {
  const { os, arch } = platformOf(platform);
  return os === 'win32' ? win32LayoutFor(arch) : linuxLayoutFor(arch);
}

/** The layout for a Node platform name (deps.platform): Windows, or the Linux layout for everything else. */
export function nodeLayout(platform: NodeJS.Platform): PlatformLayout {
  return osLayout(platform) ?? linuxLayout;
}

/** The prefix's copy of a runtime library, e.g. <prefix>/lib/libze_loader.so.1 or <prefix>\bin\ze_loader.dll. */
export function prefixLibrary(platform: NodeJS.Platform, prefix: string, file: string): string {
  const l = nodeLayout(platform);
  return l.path.join(prefix, l.sharedLibDir, file);
}

export async function detectHost(deps: Deps, target?: TargetPlatform): Promise<Host> {
  const running = runningPlatform(deps);
  const platform = target ?? running;
  if (!platform) {
    throw new XpuError('USAGE', `this machine (${deps.platform}-${deps.arch}) is not supported`, {
      hints: [`xpu-setup runs on ${TARGET_PLATFORMS.filter((t) => PLATFORMS[t].runsHere).join(' and ')}; use --platform to plan for one of ${TARGET_PLATFORMS.join(', ')}`],
    });
  }
  const { os, arch } = platformOf(platform);
  const host: Host = { platform, os, arch: arch.name, native: platform === running };
  if (host.native && host.os === 'linux') {
    const osRelease = await deps.readFile('/etc/os-release');
    if (osRelease) host.distro = parseOsRelease(osRelease);
    // Read from the loaded C library itself, so detection starts no process; ldd and getconf when that fails.
    const maps = await deps.readFile('/proc/self/maps');
    const libc = maps ? libcPathFromMaps(maps) : undefined;
    // Bytes, not text: decoding a 2 MB binary as UTF-8 costs more than the search.
    const bytes = libc ? await readFile(libc).catch(() => undefined) : undefined;
    host.glibc = bytes ? parseLibcBanner(bytes) : undefined;
    if (!host.glibc) {
      const ldd = await deps.exec('ldd', ['--version'], { timeoutMs: 5000 });
      host.glibc = parseGlibcVersion(ldd.stdout || ldd.stderr);
    }
    if (!host.glibc) {
      const gc = await deps.exec('getconf', ['GNU_LIBC_VERSION'], { timeoutMs: 5000 });
      host.glibc = parseGlibcVersion(gc.stdout);
    }
  }
  return host;
}

/** The user's home directory: HOME, else USERPROFILE, else what the OS says. */
export function homeOf(deps: Pick<Deps, 'env'>): string {
  return deps.env.HOME ?? deps.env.USERPROFILE ?? os.homedir();
}

/**
 * `~` and `~/...` (also `~\...` on Windows) as a shell expands them, for paths that reached us unexpanded: after `=`
 * (`--prefix=~/x`), in a variable, in a CI input. `~user` and a `~` inside a path stay as they are, as in a shell.
 */
export function expandHome(p: string, deps: Pick<Deps, 'env' | 'platform'>): string {
  const sep = deps.platform === 'win32' ? /^~(?:$|[\\/])/ : /^~(?:$|\/)/;
  return sep.test(p) ? homeOf(deps).replace(/[\\/]+$/, '') + p.slice(1) : p;
}

export function defaultPrefix(deps: Pick<Deps, 'env' | 'platform'>): string {
  const given = deps.env[EnvVars.XPU_SETUP_PREFIX];
  if (given) return expandHome(given, deps);
  return deps.platform === 'win32' ? win32DataDir(deps.env, homeOf(deps)) : linuxDataDir(deps.env, homeOf(deps));
}

export function defaultCacheDir(deps: Pick<Deps, 'env' | 'platform'>): string {
  const given = deps.env[EnvVars.XPU_SETUP_CACHE_DIR];
  if (given) return expandHome(given, deps);
  return deps.platform === 'win32' ? win32CacheDir(deps.env, homeOf(deps)) : linuxCacheDir(deps.env, homeOf(deps));
}

/** Whether `file` is below `dir` (not `dir` itself), by the path rules given (this OS's unless told: a layout's `path`). */
export function isInside(dir: string, file: string, paths: nodePath.PlatformPath = nodePath): boolean {
  const rel = paths.relative(dir, file);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${paths.sep}`) && !paths.isAbsolute(rel);
}
