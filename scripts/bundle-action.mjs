// Builds the GitHub Action that action.yml runs, into dist/ (committed: the runner gets no npm ci):
//   xpu-setup-action.cjs            everything the action runs, @actions/core and @actions/cache included, in one file;
//   xpu-setup-action-{main,post}.cjs the two steps action.yml names;
//   xpu-setup-action-cli.cjs        the CLI from the same bundle, which setup's proof starts as a child process (a runner
//                                   has no dist/xpu-setup.cjs for bin/xpu-setup.js to run);
//   node_modules/koffi + @koromix/koffi-{linux,win32}-x64, koffi's loader and its native binary for the two runners
//                                   the action supports (the probe and the smoke test call the Level Zero loader through it).
// The output depends only on the sources and the locked dependency versions: test/unit/action-bundle.test.ts builds
// it again (`node scripts/bundle-action.mjs DIR`) and fails when the committed files differ.
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The files of the build, relative to its directory; the staleness test compares exactly these. */
export const ACTION_ENTRY = ['xpu-setup-action.cjs', 'xpu-setup-action-main.cjs', 'xpu-setup-action-post.cjs', 'xpu-setup-action-cli.cjs'];
export const KOFFI_DIR = 'node_modules';

/** What each of koffi's packages needs at run time: its loader, the binary for one glibc x64 runner. */
const KOFFI_FILES = {
  koffi: ['package.json', 'LICENSE.txt', 'index.cjs', 'src/koffi/index.cjs', 'src/koffi/src/static.cjs'],
  '@koromix/koffi-linux-x64': ['package.json', 'index.js', 'linux_x64/koffi.node'],
  '@koromix/koffi-win32-x64': ['package.json', 'index.js', 'win32_x64/koffi.node'],
};

const step = (name) => `// The action's ${name} step (action.yml runs it): the bundle beside it, with this process's real side effects.
'use strict';
const action = require('./xpu-setup-action.cjs');
action.action${name === 'main' ? 'Main(action.realDeps())' : 'Post()'}.then((code) => {
  process.exitCode = code;
  // On Windows runners, work still settling on other threads can abort node24 as it ends (nodejs/node#56645): the
  // event loop stays open a moment longer so that it lands first.
  if (process.platform === 'win32') setTimeout(() => {}, 100);
});
`;

/** koffi's Windows package: installed only on Windows, so fetched once with `npm pack` into .cache/ (the npm registry). */
async function koffiPackageDir(name, version) {
  const installed = path.join(root, 'node_modules', name);
  try {
    if (JSON.parse(await fs.readFile(path.join(installed, 'package.json'), 'utf8')).version === version) return installed;
  } catch {
    // not installed on this platform
  }
  const cache = path.join(root, '.cache', 'action-koffi', `${name.replace('/', '+')}@${version}`);
  const unpacked = path.join(cache, 'package');
  try {
    await fs.access(path.join(unpacked, 'package.json'));
    return unpacked;
  } catch {
    await fs.rm(cache, { recursive: true, force: true });
    await fs.mkdir(cache, { recursive: true });
    const tgz = execFileSync('npm', ['pack', '--silent', `${name}@${version}`, '--pack-destination', cache], { cwd: cache, encoding: 'utf8' }).trim().split('\n').pop();
    const tar = await import(pathToFileURL(path.join(root, 'node_modules', 'tar', 'dist', 'esm', 'index.js')).href);
    await tar.x({ file: path.join(cache, tgz), cwd: cache });
    return unpacked;
  }
}

export async function buildAction(out) {
  await fs.mkdir(out, { recursive: true });
  await build({
    absWorkingDir: root,
    // A linked node_modules (a worktree sharing another checkout's) keeps the paths a fresh clone has.
    preserveSymlinks: true,
    stdin: {
      contents: "export { actionMain, actionPost } from './src/cli/action.ts';\nexport { realDeps } from './src/cli/real-deps.ts';\nexport { main } from './src/cli/main.ts';\n",
      resolveDir: root,
      sourcefile: 'action-entry.ts',
      loader: 'ts',
    },
    outfile: path.join(out, 'xpu-setup-action.cjs'),
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    supported: { 'dynamic-import': false },
    external: ['koffi'],
    // The code finds the package root from its own location (src/package-dir.ts): dist/ is one level below it.
    define: { 'import.meta.url': '__xpuModuleUrl' },
    inject: [path.join(root, 'scripts', 'module-url.js')],
    banner: { js: '// xpu-setup GitHub Action: built by scripts/bundle-action.mjs from src/cli/action.ts; do not edit' },
    legalComments: 'none',
    logLevel: 'warning',
  });
  await fs.writeFile(path.join(out, 'xpu-setup-action-main.cjs'), step('main'));
  await fs.writeFile(path.join(out, 'xpu-setup-action-post.cjs'), step('post'));
  await fs.writeFile(
    path.join(out, 'xpu-setup-action-cli.cjs'),
    "// The CLI from the action's bundle: what setup's proof runs as a child process on a runner.\n'use strict';\nrequire('./xpu-setup-action.cjs').main(process.argv.slice(2)).then((code) => {\n  process.exitCode = code;\n});\n",
  );
  const version = JSON.parse(await fs.readFile(path.join(root, 'node_modules', 'koffi', 'package.json'), 'utf8')).version;
  await fs.rm(path.join(out, KOFFI_DIR), { recursive: true, force: true });
  for (const [name, files] of Object.entries(KOFFI_FILES)) {
    const from = name === 'koffi' ? path.join(root, 'node_modules', 'koffi') : await koffiPackageDir(name, version);
    for (const f of files) {
      const to = path.join(out, KOFFI_DIR, name, f);
      await fs.mkdir(path.dirname(to), { recursive: true });
      await fs.copyFile(path.join(from, f), to);
    }
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildAction(path.resolve(process.argv[2] ?? path.join(root, 'dist')));
}
