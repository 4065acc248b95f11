#!/usr/bin/env node
// Checks that this machine has what the tests need (npm packages, the Debian packages in test-packages*.txt);
// as root with apt it installs what is missing, otherwise it stops at once with the command that fixes it.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = dirname(here);

function fail(lines) {
  process.stderr.write(`test prerequisites: ${lines.join('\n  ')}\n`);
  process.exit(1);
}

/** Every package named in the lists (default scripts/test-packages*.txt; `--list FILE` instead), without duplicates. */
function wantedPackages() {
  const given = process.argv.flatMap((a, i) => (process.argv[i - 1] === '--list' ? [a] : []));
  const files = given.length ? given : readdirSync(here).filter((f) => /^test-packages.*\.txt$/.test(f)).sort().map((f) => join(here, f));
  const names = files.flatMap((f) =>
    readFileSync(f, 'utf8')
      .split('\n')
      .map((l) => l.replace(/#.*/, '').trim())
      .filter(Boolean),
  );
  return [...new Set(names)];
}

/** The subset of `names` that dpkg does not list as installed. */
function missingPackages(names) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev}\n', ...names], { encoding: 'utf8' });
  const installed = new Set(
    r.stdout
      .split('\n')
      .map((l) => l.split(' '))
      .filter(([, status]) => status === 'ii')
      .map(([name]) => name.replace(/:.*/, '')),
  );
  return names.filter((n) => !installed.has(n));
}

function haveCommand(cmd) {
  return spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;
}

if (!existsSync(join(root, 'node_modules', '.bin', 'tsc')) || !existsSync(join(root, 'node_modules', 'vitest'))) {
  fail(['the npm dependencies are not installed', `fix: cd '${root}' && npm ci`]);
}

const wanted = wantedPackages();
if (!haveCommand('dpkg-query') || !haveCommand('apt-get')) {
  fail([
    'the tests run on Debian 12 (or a derivative with the same package names); this machine has no dpkg/apt',
    `they need these Debian packages: ${wanted.join(' ')}`,
  ]);
}

// The fixtures are fetched with `apt-get download`, which needs the package lists even when nothing is missing.
const haveLists = () => {
  try {
    return readdirSync('/var/lib/apt/lists').some((f) => f.endsWith('_Packages') || f.includes('_Packages.'));
  } catch {
    return false;
  }
};

const missing = missingPackages(wanted);
if (!missing.length && !haveLists()) {
  if (process.getuid?.() !== 0) fail(['apt has no package lists, so the test fixtures cannot be fetched', 'fix: sudo apt-get update']);
  execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
if (missing.length) {
  const install = `apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  const isRoot = process.getuid?.() === 0;
  if (!isRoot || process.env.XPU_SETUP_TEST_NO_APT === '1') {
    fail([
      `missing Debian packages: ${missing.join(' ')}`,
      `fix: ${isRoot ? '' : 'sudo '}apt-get update && ${isRoot ? '' : 'sudo '}${install}`,
    ]);
  }
  process.stderr.write(`test prerequisites: installing ${missing.join(' ')}\n`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    execFileSync('apt-get', install.split(' ').slice(1).concat('-qq'), { stdio: ['ignore', 'ignore', 'inherit'], env });
  } catch {
    fail([`'apt-get ${install.split(' ').slice(1).join(' ')}' failed (see above)`, `fix the apt error, then run: ${install}`]);
  }
  const still = missingPackages(wanted);
  if (still.length) fail([`still missing after apt-get install: ${still.join(' ')}`]);
}
