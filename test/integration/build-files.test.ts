// The prefix's pkg-config and CMake files, used by the real tools: a prefix path with a space and an apostrophe.
import { execFile } from 'node:child_process';
import * as fs from 'node:fs/promises';
import * as os from 'node:os';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layoutFor } from '../../src/platform/index.js';
import { roleFiles } from '../../src/roles/index.js';

const run = promisify(execFile);
const SYSTEM_LIB = '/usr/lib/x86_64-linux-gnu';
let work: string;
let prefix: string;

/** A prefix laid out as setup lays it out, from Debian's own 1.8.12 headers and loader. */
beforeAll(async () => {
  work = await fs.mkdtemp(path.join(os.tmpdir(), 'xpu-build-files-'));
  prefix = path.join(work, 'sp ace', "it's");
  await fs.mkdir(path.join(prefix, 'lib'), { recursive: true });
  await fs.cp('/usr/include/level_zero', path.join(prefix, 'include', 'level_zero'), { recursive: true });
  await fs.copyFile(path.join(SYSTEM_LIB, 'libze_loader.so.1.8.0'), path.join(prefix, 'lib', 'libze_loader.so.1.8.0'));
  await fs.symlink('libze_loader.so.1.8.0', path.join(prefix, 'lib', 'libze_loader.so.1'));
  await fs.symlink('libze_loader.so.1', path.join(prefix, 'lib', 'libze_loader.so'));
  // The files the level-zero manifest's roles write (Linux links libze_loader.so).
  const files = roleFiles([{ roles: ['ze-loader', 'ze-headers'], version: '1.8.12' }], { prefix, layout: layoutFor('linux-x64') });
  for (const { path: rel, text } of files) {
    await fs.mkdir(path.dirname(path.join(prefix, rel)), { recursive: true });
    await fs.writeFile(path.join(prefix, rel), text);
  }
  await fs.writeFile(path.join(work, 'zeinit.c'), '#include <stdio.h>\n#include <ze_api.h>\nint main(void){printf("0x%x\\n",(unsigned)zeInit(0));return 0;}\n');
});
afterAll(async () => {
  await fs.rm(work, { recursive: true, force: true });
});

const sh = (script: string, env: Record<string, string> = {}) =>
  run('sh', ['-c', script], { env: { PATH: process.env.PATH!, ...env }, cwd: work });

describe('pkg-config', () => {
  it('gives whole flags for a prefix with a space and an apostrophe, and they build a program the loader answers', async () => {
    const env = { PKG_CONFIG_PATH: path.join(prefix, 'lib', 'pkgconfig') };
    const args = await sh(`eval "set -- $(pkg-config --cflags --libs level-zero)"; printf '%s\\n' "$@"`, env);
    expect(args.stdout.split('\n').filter(Boolean)).toEqual([`-I${prefix}/include/level_zero`, `-I${prefix}/include`, `-L${prefix}/lib`, '-lze_loader']);
    const built = await sh('eval "cc zeinit.c $(pkg-config --cflags --libs level-zero) -o zeinit" && ./zeinit', { ...env, LD_LIBRARY_PATH: path.join(prefix, 'lib') });
    expect(built.stdout).toBe('0x78000001\n');
  });
});

describe('CMake', () => {
  it('find_package(LevelZero) accepts the same major version only, and both target names build and link', async () => {
    const project = path.join(work, 'cmake-project');
    await fs.mkdir(project, { recursive: true });
    await fs.writeFile(path.join(project, 'CMakeLists.txt'), `cmake_minimum_required(VERSION 3.19)
project(levelzero_consumer C)
foreach(request "0.5" "1.9" "2.0" "1.8" "1.8.12" "1.0...<2.0" "1.9...<2.0")
  unset(LevelZero_FOUND)
  find_package(LevelZero \${request} QUIET)
  message(STATUS "request \${request}: \${LevelZero_FOUND}")
endforeach()
find_package(LevelZero 1.0 REQUIRED)
add_executable(with_loader ../zeinit.c)
target_link_libraries(with_loader PRIVATE LevelZero::ze_loader)
target_include_directories(with_loader PRIVATE \${LevelZero_INCLUDE_DIRS}/level_zero)
add_executable(with_levelzero ../zeinit.c)
target_link_libraries(with_levelzero PRIVATE LevelZero::LevelZero)
target_include_directories(with_levelzero PRIVATE \${LevelZero_INCLUDE_DIR}/level_zero)
`);
    const build = path.join(project, 'build');
    const configure = await run('cmake', ['-S', project, '-B', build, `-DCMAKE_PREFIX_PATH=${prefix}`], { cwd: project });
    const found = Object.fromEntries([...configure.stdout.matchAll(/request (\S+): (\S*)/g)].map((m) => [m[1], m[2]]));
    expect(found).toEqual({ '0.5': '0', '1.9': '0', '2.0': '0', '1.8': '1', '1.8.12': '1', '1.0...<2.0': '1', '1.9...<2.0': '0' });
    await run('cmake', ['--build', build], { cwd: project });
    for (const exe of ['with_loader', 'with_levelzero']) {
      const r = await run(path.join(build, exe), [], { env: { LD_LIBRARY_PATH: path.join(prefix, 'lib') } });
      expect(r.stdout, exe).toBe('0x78000001\n');
      const ldd = await run('ldd', [path.join(build, exe)], { env: { LD_LIBRARY_PATH: path.join(prefix, 'lib') } });
      expect(ldd.stdout, exe).toContain(`${prefix}/lib/libze_loader.so.1`);
    }
  });
});
