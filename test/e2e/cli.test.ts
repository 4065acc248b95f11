// The command line as a process: version, help, suggestions, conflicts, natural values, completion, closed pipes.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { BIN, runCli, tempDir } from './cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('cli', { noIndex: true });
/** A prefix with only a receipt: enough for `env` and `--version --json`, which read nothing else. */
let prefix: string;

beforeAll(async () => {
  prefix = fx.at("sp ace", "it's");
  await fs.mkdir(prefix, { recursive: true });
  const receipt = {
    schema: 1, tool: { name: 'xpu-setup', version: '0.0.9' }, platform: 'linux-x64', prefix, installedAt: '2026-11-30T00:00:00Z',
    planKey: 'k', components: [{ name: 'level-zero', version: '1.8.12', source: 'apt Debian', notes: [] }], archives: [], files: [],
  };
  await fs.writeFile(path.join(prefix, 'xpu-setup.receipt.json'), JSON.stringify(receipt));
});

describe('version', () => {
  it.each([['-v'], ['-V'], ['--version'], ['doctor', '--version'], ['--prefix', '/nonexistent', '-v']])('%s prints the version and installs nothing', async (...args) => {
    const r = await fx.run(args);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^xpu-setup \d+\.\d+\.\d+\n?$/);
    expect(r.stderr).toBe('');
    await expect(fs.access(path.join(fx.home, '.local'))).rejects.toThrow();
  });

  it('--version --json names the installed components of --prefix', async () => {
    const r = await fx.run(['--version', '--json', '--prefix', prefix]);
    expect(r.exitCode).toBe(0);
    const doc = JSON.parse(r.stdout);
    expect(doc).toMatchObject({ name: 'xpu-setup', prefix, installed: { platform: 'linux-x64', by: '0.0.9', components: [{ name: 'level-zero', version: '1.8.12' }] } });
    expect(doc.version).toMatch(/^\d+\.\d+\.\d+/);
    const none = JSON.parse((await fx.run(['-V', '--json'])).stdout);
    expect(none).toMatchObject({ prefix: path.join(fx.env.HOME!, '.local/share/xpu-setup'), installed: null });
  });
});

describe('help', () => {
  it('`help doctor` is `doctor --help`: every option, its variable and default, examples, exit codes', async () => {
    const a = await fx.run(['help', 'doctor']);
    const b = await fx.run(['doctor', '--help']);
    expect(a.exitCode).toBe(0);
    expect(a.stdout).toBe(b.stdout);
    expect(a.stdout).toMatch(/--prefix DIR\s+the prefix to check\n\s+\(env XPU_SETUP_PREFIX; default: /);
    for (const o of ['--strict', '--smoke', '--check ID', '--json', '--quiet', '--verbose']) expect(a.stdout).toContain(o);
    expect(a.stdout).toMatch(/examples:\n {2}xpu-setup doctor\n/);
    expect(a.stdout).toMatch(/exit codes:[\s\S]*3 {2}the doctor itself could not run/);
  });

  it('--help lists the commands', async () => {
    const r = await fx.run(['--help']);
    expect(r.exitCode).toBe(0);
    for (const c of ['setup', 'plan', 'env', 'probe', 'smoke', 'doctor', 'completion']) expect(r.stdout).toMatch(new RegExp(`^ {2}${c} `, 'm'));
  });

  it('a closed pipe ends the run quietly (no EPIPE stack)', async () => {
    const r = await execa('sh', ['-c', `"${process.execPath}" "${BIN}" help setup | true; "${process.execPath}" "${BIN}" completion bash | head -c 1 >/dev/null; echo "rc=$?"`], { env: fx.env, extendEnv: false, reject: false });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('rc=0');
  });
});

describe('forgiveness', () => {
  it('an unknown command suggests the nearest', async () => {
    const r = await fx.run(['docter']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/error: unknown command "docter"\n\s+hint: did you mean `xpu-setup doctor`\?/);
  });

  it('a mistyped value suggests the nearest: --check, --source', async () => {
    const check = await fx.run(['doctor', '--check', 'ze-loadr', '--prefix', prefix]);
    expect(check.exitCode).toBe(2);
    expect(check.stderr).toMatch(/unknown check "ze-loadr"\n\s+hint: did you mean ze-loader\?/);
    const source = await fx.run(['plan', '--source', 'cnda']);
    expect(source.exitCode).toBe(2);
    expect(source.stderr).toMatch(/unknown --source "cnda"\n\s+hint: did you mean conda\?/);
  });

  it('FORCE_COLOR colours messages on a pipe', async () => {
    expect((await runCli(['docter'], { ...fx.env, FORCE_COLOR: '1' })).stderr).toMatch(/^\x1b\[31merror:\x1b\[0m unknown command/);
    expect((await fx.run(['docter'])).stderr).toMatch(/^error: unknown command/);
  });

  it('an unknown option suggests the nearest, also as JSON', async () => {
    const r = await fx.run(['doctor', '--prefx', '/x']);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unknown option --prefx for "doctor"\n\s+hint: did you mean --prefix\?/);
    const j = await fx.run(['plan', '--compnent', 'level-zero', '--json']);
    expect(JSON.parse(j.stdout)).toMatchObject({ ok: false, error: { code: 'USAGE', hints: ['did you mean --component?', 'see: xpu-setup plan --help'] } });
  });

  it.each([
    [['probe', '--json', '--verbose'], /--json already holds every detail --verbose would print/],
    [['probe', '--format', 'pytorch', '--json'], /--json prints the whole report as JSON; --format picks another output/],
    [['--quiet', '--verbose'], /--quiet prints only errors and --verbose prints more/],
    [['env', '--shell', 'fish', '--json'], /pick one/],
  ])('%j is a usage error saying why', async (args, why) => {
    const r = await fx.run(args);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(why);
  });

  it('an environment variable with a bad value is named as such', async () => {
    const r = await runCli(['plan'], { ...fx.env, XPU_SETUP_CONDA_CHANNELS: 'ftp://mirror/conda' });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/error: XPU_SETUP_CONDA_CHANNELS "ftp:\/\/mirror\/conda" is not an http\(s\) URL\n\s+hint: example: XPU_SETUP_CONDA_CHANNELS=https:\/\/conda\.anaconda\.org\/conda-forge/);
    const idx = await fx.run(['plan', '--index-url', 'pypi.org']);
    expect(idx.stderr).toMatch(/--index-url "pypi\.org" is not an http\(s\) URL\n\s+hint: example: --index-url https:\/\/pypi\.org\/simple/);
  });
});

describe('natural values', () => {
  it('env speaks the shell $SHELL names; bash and zsh are sh; the shell may be an argument', async () => {
    const fish = await runCli(['env', '--prefix', prefix], { ...fx.env, SHELL: '/usr/bin/fish' });
    expect(fish.exitCode, fish.stderr).toBe(0);
    expect(fish.stdout).toContain('set -gx LEVEL_ZERO_V1_SDK_PATH');
    const bash = await runCli(['env', '--prefix', prefix], { ...fx.env, SHELL: '/bin/bash' });
    expect(bash.stdout).toContain('export LEVEL_ZERO_V1_SDK_PATH=');
    expect((await fx.run(['env', '--prefix', prefix, '--shell', 'zsh'])).stdout).toBe(bash.stdout);
    expect((await fx.run(['env', 'bash', '--prefix', prefix])).stdout).toBe(bash.stdout);
    const bad = await fx.run(['env', '--shell', 'fissh', '--prefix', prefix]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/unknown shell "fissh"\n\s+hint: did you mean fish\?/);
  });

  it('env --unset, evaluated, takes the prefix back out; env --compilers leaves LD_LIBRARY_PATH alone', async () => {
    const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
    const cli = `"${process.execPath}" "${BIN}"`;
    const script = `eval "$(${cli} env --prefix ${q(prefix)})"; eval "$(${cli} env --prefix ${q(prefix)} --unset)"; printf '%s|%s\\n' "\${LD_LIBRARY_PATH-unset}" "\${LEVEL_ZERO_V1_SDK_PATH-unset}"
eval "$(${cli} env --prefix ${q(prefix)} --compilers)"; printf '%s|%s\\n' "\${LD_LIBRARY_PATH-unset}" "\${CPATH-unset}"`;
    const r = await execa('sh', ['-c', script], { env: { ...fx.env, LD_LIBRARY_PATH: '/usr/local/lib' }, extendEnv: false, reject: false });
    expect(r.stderr).toBe('');
    expect(r.stdout.split('\n')).toEqual(['/usr/local/lib|unset', `/usr/local/lib|${prefix}/include`]);
  });

  it('~ and ~/ in a path option, XPU_SETUP_PREFIX or XPU_SETUP_CACHE_DIR mean the home directory, as in a shell', async () => {
    const home = fx.env.HOME!;
    const mine = path.join(home, 'px');
    await fs.mkdir(mine, { recursive: true });
    const receipt = JSON.parse(await fs.readFile(path.join(prefix, 'xpu-setup.receipt.json'), 'utf8'));
    await fs.writeFile(path.join(mine, 'xpu-setup.receipt.json'), JSON.stringify({ ...receipt, prefix: mine }));
    const cwd = await tempDir('cwd');
    for (const [args, extra] of [
      [['env', '--prefix=~/px', '--shell', 'sh'], {}],
      [['env', '--shell', 'sh'], { XPU_SETUP_PREFIX: '~/px' }],
    ] as [string[], Record<string, string>][]) {
      const r = await runCli(args, { ...fx.env, ...extra }, { cwd });
      expect(r.exitCode, r.stderr).toBe(0);
      expect(r.stdout).toContain(`export LEVEL_ZERO_V1_SDK_PATH='${mine}'`);
    }
    const v = await fx.run(['--version', '--json', '--prefix=~/px'], { cwd });
    expect(JSON.parse(v.stdout).prefix).toBe(mine);
    // A lockfile that is not there is named by its expanded path, and nothing named "~" appears where the command ran.
    const locked = await runCli(['--locked', '--lockfile=~/none.lock.json', '--prefix=~/p2', '--no-probe'], { ...fx.env, XPU_SETUP_CACHE_DIR: '~/c' }, { cwd });
    expect(locked.exitCode).toBe(1);
    expect(locked.stderr).toContain(path.join(home, 'none.lock.json'));
    expect(await fs.readdir(cwd)).toEqual([]);
  });

  it('XDG_DATA_HOME and XDG_CACHE_HOME move the default prefix and cache (docs/commands.md, "Options of setup and plan")', async () => {
    const xdg = { ...fx.env, XDG_DATA_HOME: fx.at('data'), XDG_CACHE_HOME: fx.at('cachehome') };
    const v = await runCli(['--version', '--json'], xdg);
    expect(JSON.parse(v.stdout).prefix).toBe(fx.at('data', 'xpu-setup'));
    const c = await runCli(['cache', 'dir'], xdg);
    expect(c.exitCode, c.stderr).toBe(0);
    expect(c.stdout.trim()).toBe(fx.at('cachehome', 'xpu-setup'));
    // Without them, the XDG defaults under HOME.
    expect(JSON.parse((await fx.run(['--version', '--json'])).stdout).prefix).toBe(path.join(fx.env.HOME!, '.local', 'share', 'xpu-setup'));
    expect((await fx.run(['cache', 'dir'])).stdout.trim()).toBe(path.join(fx.env.HOME!, '.cache', 'xpu-setup'));
  });

  it('a prefix name too long for the file system is NAME_TOO_LONG with the limit, before any index is asked', async () => {
    const r = await fx.run(['plan', '--json', '--prefix', fx.at('x'.repeat(300)), '--index-url', 'http://127.0.0.1:9/simple']);
    expect(r.exitCode).toBe(1);
    const err = JSON.parse(r.stdout).error;
    expect(err.code).toBe('NAME_TOO_LONG');
    expect(err.message).toMatch(/300 bytes, the limit is 255$/);
    expect(err.hints).toContain('choose a shorter --prefix (or XPU_SETUP_PREFIX); nothing was changed');
  });

  it('probe --format json is --json, including for errors', async () => {
    const r = await fx.run(['probe', '--format', 'json', '--prefix', fx.at('empty')]);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout)).toMatchObject({ ok: false });
  });
});

describe('completion', () => {
  async function complete(words: string[]): Promise<string[]> {
    const script = (await fx.run(['completion', 'bash'])).stdout;
    const cword = words.length - 1;
    const r = await execa('bash', ['-c', `${script}\nCOMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${cword}; _xpu_setup; printf '%s\\n' "\${COMPREPLY[@]}"`], { reject: false });
    expect(r.stderr).toBe('');
    return r.stdout.split('\n').filter(Boolean);
  }

  it('bash completes commands, options and values from the tables', async () => {
    expect(await complete(['xpu-setup', 'doc'])).toEqual(['doctor']);
    expect(await complete(['xpu-setup', 'doctor', '--ch'])).toEqual(['--check']);
    expect(await complete(['xpu-setup', 'doctor', '--check', 'ze'])).toEqual(['ze-loader']);
    expect(await complete(['xpu-setup', '--component', 'u'])).toEqual(['unified-runtime']);
    expect(await complete(['xpu-setup', 'completion', 'f'])).toEqual(['fish']);
  });

  it('zsh and fish scripts are printed; an unknown shell suggests the nearest', async () => {
    expect((await fx.run(['completion', 'zsh'])).stdout).toMatch(/^#compdef xpu-setup\n/);
    expect((await fx.run(['completion', 'fish'])).stdout).toContain("complete -c xpu-setup -n '__fish_use_subcommand' -a doctor");
    const bad = await fx.run(['completion', 'bsh']);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toMatch(/did you mean bash\?/);
  });
});

describe('doctor output', () => {
  it('--quiet prints only the failures and the count; --verbose prints facts as lines, not JSON', async () => {
    const quiet = await fx.run(['doctor', '--quiet', '--check', 'platform,gpu', '--prefix', prefix]);
    expect(quiet.exitCode).toBe(1);
    expect(quiet.stdout).not.toContain('Operating system');
    expect(quiet.stdout).toMatch(/^System and GPU\n {2}✗ Intel GPU: no Intel GPU found[\s\S]*\n1\/2 checks passed \(1 failed\)\n?$/);
    const verbose = await fx.run(['doctor', '--verbose', '--check', 'platform', '--prefix', prefix]);
    expect(verbose.stdout).toMatch(/ {6}distro:\n {8}id: \w+\n/);
    expect(verbose.stdout).not.toContain('{"');
  });
});

describe('terminals', () => {
  it('a terminal that reports 0 columns gets plain lines; one with 80 gets the spinner', async () => {
    const loaderPrefix = fx.at('loader-prefix');
    await fs.mkdir(path.join(loaderPrefix, 'lib'), { recursive: true });
    await fs.copyFile('/usr/lib/x86_64-linux-gnu/libze_loader.so.1.8.0', path.join(loaderPrefix, 'lib', 'libze_loader.so.1'));
    // `script` gives the CLI a real pseudo-terminal, of the size stty sets.
    const onTerminal = (cols: number) =>
      execa('script', ['-qec', `stty cols ${cols} rows 24; "${process.execPath}" "${BIN}" smoke --prefix '${loaderPrefix}'`, '/dev/null'], {
        env: { PATH: fx.env.PATH!, HOME: fx.env.HOME!, TERM: 'xterm' }, extendEnv: false, reject: false, timeout: 120_000,
      });
    const zero = await onTerminal(0);
    expect(zero.stdout).toContain('✗\x1b[0m kernel smoke test: no device to run it on');
    expect(zero.stdout).not.toContain('\x1b[?25l');
    const wide = await onTerminal(80);
    expect(wide.stdout).toContain('\x1b[?25l');
    expect(wide.stdout).toContain('✗\x1b[0m kernel smoke test: no device to run it on');
  });
});
