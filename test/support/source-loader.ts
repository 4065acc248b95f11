// A Level Zero loader of the 1.2x line conda-forge ships, built once from the upstream release source into the test
// cache: Debian 12's 1.8.12 loader neither exports nor routes the entry points added after API 1.4
// (zeCommandListHostSynchronize among them), and Debian trixie's 1.20.6 build needs a newer libstdc++ than Debian 12's.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { fixtureCacheDir } from './debs.js';

const run = promisify(execFile);

export const SOURCE_LOADER_VERSION = '1.29.0';
const TARBALL_URL = `https://github.com/oneapi-src/level-zero/archive/refs/tags/v${SOURCE_LOADER_VERSION}.tar.gz`;

export interface SourceLoader {
  version: string;
  /** Holds `level_zero/ze_api.h`. */
  includeDir: string;
  /** Holds `libze_loader.so.1` and the tracing layer it loads at start-up (`libze_tracing_layer.so.1`): a program must
   * have this directory on `LD_LIBRARY_PATH`, or the loader finds Debian's 1.8.12 layer, which refuses its API version
   * and fails `zeInit` with UNSUPPORTED_VERSION. */
  libDir: string;
}

function layout(root: string): SourceLoader {
  return { version: SOURCE_LOADER_VERSION, includeDir: path.join(root, 'include'), libDir: path.join(root, 'lib') };
}

/**
 * The built loader under `<test cache>/level-zero-loader/<version>`; a cold cache downloads the release tarball (or
 * uses `level-zero-<version>.tar.gz` already placed beside it) and builds the loader and its tracing layer with CMake.
 */
export async function ensureSourceLoader(): Promise<SourceLoader> {
  const base = path.join(fixtureCacheDir(), 'level-zero-loader');
  const done = layout(path.join(base, SOURCE_LOADER_VERSION));
  const built = ['libze_loader.so.1', 'libze_tracing_layer.so.1'].every((f) => fs.existsSync(path.join(done.libDir, f)));
  if (built && fs.existsSync(path.join(done.includeDir, 'level_zero', 'ze_api.h'))) return done;
  fs.mkdirSync(base, { recursive: true });
  const tarball = path.join(base, `level-zero-${SOURCE_LOADER_VERSION}.tar.gz`);
  if (!fs.existsSync(tarball)) {
    const res = await fetch(TARBALL_URL);
    if (!res.ok) throw new Error(`cannot download ${TARBALL_URL}: HTTP ${res.status}; place the release tarball at ${tarball}`);
    fs.writeFileSync(`${tarball}.part`, Buffer.from(await res.arrayBuffer()));
    fs.renameSync(`${tarball}.part`, tarball);
  }
  const work = fs.mkdtempSync(path.join(base, 'build-'));
  try {
    const src = path.join(work, 'src');
    const build = path.join(work, 'build');
    fs.mkdirSync(src);
    await run('tar', ['-xzf', tarball, '-C', src, '--strip-components=1']);
    await run('nice', ['-n', '15', 'cmake', '-S', src, '-B', build, '-DCMAKE_BUILD_TYPE=Release'], { maxBuffer: 1 << 26 });
    await run('nice', ['-n', '15', 'cmake', '--build', build, '--target', 'ze_loader', 'ze_tracing_layer', '-j', '2'], { maxBuffer: 1 << 26 });
    const out = layout(path.join(work, 'out'));
    fs.mkdirSync(out.libDir, { recursive: true });
    for (const f of fs.readdirSync(path.join(build, 'lib')).filter((n) => /^libze_(loader|tracing_layer)\.so/.test(n))) {
      fs.cpSync(path.join(build, 'lib', f), path.join(out.libDir, f), { verbatimSymlinks: true });
    }
    fs.cpSync(path.join(src, 'include'), path.join(out.includeDir, 'level_zero'), { recursive: true });
    fs.rmSync(path.join(base, SOURCE_LOADER_VERSION), { recursive: true, force: true });
    fs.renameSync(path.join(work, 'out'), path.join(base, SOURCE_LOADER_VERSION));
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
  return done;
}
