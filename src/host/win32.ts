// Every Windows-specific answer: directories and library naming.
import * as path from 'node:path';
import type { PlatformLayout } from './types.js';

export const win32Layout: PlatformLayout = {
  libraryPathVar: 'PATH',
  pathSep: ';',
  sharedLibDir: 'bin',
  zeLoaderRuntime: 'ze_loader.dll',
  urLoaderRuntime: 'ur_loader.dll',
};

export function win32DataDir(env: Record<string, string | undefined>, home: string): string {
  return path.win32.join(env.LOCALAPPDATA || path.win32.join(home, 'AppData', 'Local'), 'xpu-setup', 'prefix');
}

export function win32CacheDir(env: Record<string, string | undefined>, home: string): string {
  return path.win32.join(env.LOCALAPPDATA || path.win32.join(home, 'AppData', 'Local'), 'xpu-setup', 'cache');
}
