// Runs the win32 build of the CLI under Wine: prerequisites, path mapping, node.exe and cmd.exe as processes, and
// the loopback relay that lets a Windows program call the Linux mingw-w64 cross compiler. Wine is Debian trixie's
// (10.0), run inside a trixie root (scripts/debian-root.sh, scripts/in-root.sh): Debian 12's Wine 8.0 cannot start
// node.exe 22 or 24 (V8 reserves memory with MEM_RESERVE_PLACEHOLDER, which it lacks), and one Wine serves every leg.
import { execa } from 'execa';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import * as path from 'node:path';
import { REPO } from '../e2e/cli.js';

export const WIN_CACHE = process.env.XPU_SETUP_WINDOWS_CACHE ?? path.join(REPO, '.cache', 'windows');
export const WINEPREFIX = path.join(WIN_CACHE, 'wineprefix');
export const APP = path.join(WIN_CACHE, 'app');
export const RELAY_DIR = path.join(WIN_CACHE, 'relay');
export const L0_BUILD = path.join(WIN_CACHE, 'level-zero', '1.8.12-1');
export const NODE_EXE = path.join(WIN_CACHE, 'node', process.versions.node, 'node.exe');
/** The version of that node.exe: this node's, or the newest of its major when npm does not publish this one for Windows. */
export async function nodeExeVersion(): Promise<string> {
  return (await fs.readFile(path.join(path.dirname(NODE_EXE), 'version'), 'utf8')).trim();
}
export const CROSS_CC = 'x86_64-w64-mingw32-gcc-posix';
/** The trixie root Wine runs in, made by scripts/windows-prepare.sh. */
export const WINE_ROOT = process.env.XPU_SETUP_WINE_ROOT ?? path.join(REPO, '.cache', 'roots', 'trixie-wine');
const IN_ROOT = path.join(REPO, 'scripts', 'in-root.sh');

/** A Wine program (wine, wineserver) as it runs: inside the root, with the repository and the Windows cache at their own paths. */
export function wineCommand(program: string, args: string[]): [string, string[]] {
  return ['bash', [IN_ROOT, WINE_ROOT, '--bind', REPO, '--bind', WIN_CACHE, '--', program, ...args]];
}
export const PACKAGES_FILE = path.join(REPO, 'scripts', 'test-packages-windows.txt');
export const INSTALL_COMMAND = `apt-get update && apt-get install -y --no-install-recommends $(cat ${path.relative(REPO, PACKAGES_FILE)})`;

/** Wine's own settings: mscoree/mshtml off stops installer dialogs; opencl off is the PoCL bridge quirk. */
export function wineEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? '/root',
    LANG: 'C.UTF-8',
    CI: 'true',
    WINEPREFIX,
    WINEDEBUG: '-all',
    WINEDLLOVERRIDES: 'mscoree=d;mshtml=d;opencl=d',
    // Wine's way of adding to the Windows PATH: the relay stands in for gcc.exe there.
    WINEPATH: winPath(RELAY_DIR),
    ...extra,
  };
}

/** Wine maps Z: to the Linux root. */
export function winPath(linux: string): string {
  return `Z:${path.resolve(linux).replace(/\//g, '\\')}`;
}

/** A Windows path back to Linux, through the prefix's dosdevices links (C: is the prefix's drive_c). */
export async function linuxPath(win: string): Promise<string> {
  const m = /^([A-Za-z]):(.*)$/.exec(win);
  if (!m) return win.replace(/\\/g, '/');
  const root = await fs.realpath(path.join(WINEPREFIX, 'dosdevices', `${m[1]!.toLowerCase()}:`));
  return path.join(root, m[2]!.replace(/\\/g, '/'));
}

/** What is missing to run the suite, with the exact command that installs it; undefined when all is there. */
export async function missingPackages(): Promise<string | undefined> {
  const wanted = ['debootstrap', 'unshare', CROSS_CC, 'x86_64-w64-mingw32-windres', 'cmake', 'make'];
  const missing: string[] = [];
  for (const tool of wanted) {
    const r = await execa('sh', ['-c', `command -v ${tool}`], { reject: false });
    if (r.exitCode !== 0) missing.push(tool);
  }
  return missing.length ? `missing ${missing.join(', ')}; run (as root): ${INSTALL_COMMAND}` : undefined;
}

export const PREPARE_SCRIPT = path.join(REPO, 'scripts', 'windows-prepare.sh');

/** The exit status by which scripts/debian-root.sh (and so windows-prepare.sh) says this machine cannot build the root. */
const CANNOT_BUILD_ROOT = 3;

/**
 * Runs scripts/windows-prepare.sh, which does nothing when its cache is complete. When the run's head start
 * (test/support/windows-global.ts) is still at work, the script waits for it on its lock. Resolves with the reason
 * the suite cannot run on this machine (the Wine root cannot be built here: not root), undefined when all is ready;
 * any other failure throws.
 */
export async function prepare(): Promise<string | undefined> {
  const r = await execa('bash', [PREPARE_SCRIPT], {
    env: { ...process.env, XPU_SETUP_WINDOWS_CACHE: WIN_CACHE, XPU_SETUP_WINE_ROOT: WINE_ROOT },
    reject: false,
    timeout: 1_200_000,
  });
  if (r.exitCode === CANNOT_BUILD_ROOT) {
    const said = r.stderr.trim().split('\n').pop() ?? '';
    return said.replace(/^debian-root\([^)]*\): /, '') || `the Wine root ${WINE_ROOT} cannot be built here`;
  }
  if (r.exitCode !== 0) throw new Error(`scripts/windows-prepare.sh failed (exit ${r.exitCode}):\n${r.stderr}`);
  return undefined;
}

/**
 * Makes this test file the only one using the Wine prefix until the returned release is called: files run side by
 * side, and the Windows suite stops its wineserver when it ends. A flock held by a child process, so a test process
 * that dies releases it too.
 */
export async function holdWinePrefix(): Promise<() => Promise<void>> {
  await fs.mkdir(WIN_CACHE, { recursive: true });
  const child = spawn('flock', [path.join(WIN_CACHE, '.wine-user.lock'), 'sh', '-c', 'echo held && exec cat >/dev/null'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    void exited.then((code) => reject(new Error(`flock on the Wine prefix exited ${code} before holding it`)));
  });
  return async () => {
    child.stdin.end();
    await exited;
  };
}

/** The freshly built tree (what package.json's "files" publishes: bin, data, dist, ...) beside the win32 node_modules. */
export async function syncApp(): Promise<void> {
  const pkg = JSON.parse(await fs.readFile(path.join(REPO, 'package.json'), 'utf8')) as { files: string[] };
  for (const entry of pkg.files) {
    for (const d of await expandFilesEntry(entry)) {
      await fs.rm(path.join(APP, d), { recursive: true, force: true });
      await fs.cp(path.join(REPO, d), path.join(APP, d), { recursive: true });
    }
  }
  await fs.copyFile(path.join(REPO, 'package.json'), path.join(APP, 'package.json'));
}

/** A "files" entry as the paths it names: a `*` in its last part matches any run of characters (`dist/xpu-setup*.cjs`). */
async function expandFilesEntry(entry: string): Promise<string[]> {
  const base = path.posix.basename(entry);
  if (!base.includes('*')) return [entry];
  const dir = path.posix.dirname(entry);
  const re = new RegExp(`^${base.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
  return (await fs.readdir(path.join(REPO, dir))).filter((f) => re.test(f)).map((f) => path.posix.join(dir, f));
}

async function wineserver(arg: '-p' | '-k' | '-w'): Promise<void> {
  // stdio ignored: the server daemonizes and would hold a pipe open forever.
  const [cmd, args] = wineCommand('wineserver', [arg]);
  await execa(cmd, args, { env: wineEnv(), reject: false, timeout: 30_000, stdio: 'ignore' });
}

/** A persistent wineserver for the suite: each node.exe start then costs about a second instead of ten. */
export const startWineServer = (): Promise<void> => wineserver('-p');
export const stopWineServer = async (): Promise<void> => {
  await wineserver('-k');
};

export interface WinRun {
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** A Windows program under Wine. Its stdio are files: Wine's node.exe fails on Unix pipes (EBADF). */
export async function runWine(program: string, args: string[], opts: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}): Promise<WinRun> {
  const dir = await fs.mkdtemp(path.join(WIN_CACHE, 'io-'));
  const out = path.join(dir, 'stdout');
  const err = path.join(dir, 'stderr');
  try {
    const [o, e, i] = await Promise.all([fs.open(out, 'w'), fs.open(err, 'w'), fs.open('/dev/null', 'r')]);
    try {
      const [cmd, argv] = wineCommand('wine', [program, ...args]);
      const child = spawn(cmd, argv, {
        env: wineEnv(opts.env),
        cwd: opts.cwd ?? WIN_CACHE,
        stdio: [i.fd, o.fd, e.fd],
        timeout: opts.timeoutMs ?? 300_000,
      });
      const exitCode = await new Promise<number>((resolve) => {
        child.on('error', () => resolve(-1));
        child.on('close', (code) => resolve(code ?? -1));
      });
      return { exitCode, stdout: await fs.readFile(out, 'utf8'), stderr: await fs.readFile(err, 'utf8') };
    } finally {
      await Promise.all([o.close(), e.close(), i.close()]);
    }
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** The CLI as node.exe runs it on Windows. */
export function runCliWin(args: string[], env: Record<string, string> = {}): Promise<WinRun> {
  return runWine(NODE_EXE, [winPath(path.join(APP, 'bin', 'xpu-setup.js')), ...args], { env });
}

/**
 * A cmd.exe script run by `wine cmd /c`, which is how .bat files run faithfully under Wine. The lines go through a
 * file: Wine's quoting of a Linux argv into a Windows command line would escape the quotes cmd needs.
 */
export async function runCmd(lines: string, env: Record<string, string> = {}): Promise<WinRun> {
  const dir = await fs.mkdtemp(path.join(WIN_CACHE, 'cmd-'));
  try {
    const script = path.join(dir, 'run.bat');
    await fs.writeFile(script, `@echo off\r\n${lines.replace(/\r?\n/g, '\r\n')}\r\n`);
    return await runWine('cmd', ['/c', winPath(script)], { env });
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

export const sha256 = (b: Buffer): string => createHash('sha256').update(b).digest('hex');

/** The relay's request once complete: [cwd, ...args], or undefined while bytes are still missing. */
function parseRequest(buf: Buffer): string[] | undefined {
  if (buf.length < 4) return undefined;
  const count = buf.readUInt32LE(0);
  const fields: string[] = [];
  let at = 4;
  for (let i = 0; i < count; i++) {
    if (buf.length < at + 4) return undefined;
    const n = buf.readUInt32LE(at);
    if (buf.length < at + 4 + n) return undefined;
    fields.push(buf.subarray(at + 4, at + 4 + n).toString('utf8'));
    at += 4 + n;
  }
  return fields;
}

/** Rewrites every Windows path in an argument to its Linux path (the compiler sees Linux paths). */
async function mapArg(arg: string): Promise<string> {
  const m = /^(.*?)([A-Za-z]:\\.*)$/.exec(arg);
  return m ? m[1]! + (await linuxPath(m[2]!)) : arg;
}

export interface Relay {
  calls: string[][];
  close(): Promise<void>;
}

/** The Linux side of test/windows/relay.c: runs the cross compiler with mapped paths and sends its output back. */
export async function startRelay(): Promise<Relay> {
  const calls: string[][] = [];
  const server: Server = createServer((sock) => {
    let buf = Buffer.alloc(0);
    let started = false;
    sock.on('error', () => sock.destroy());
    sock.on('data', (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      const fields = started ? undefined : parseRequest(buf);
      if (!fields) return;
      started = true;
      void answer(sock, fields).catch(() => sock.destroy());
    });
  });
  const answer = async (sock: Socket, [cwd, ...args]: string[]): Promise<void> => {
    calls.push(args);
    const mapped = await Promise.all(args.map(mapArg));
    const r = await execa(CROSS_CC, mapped, { cwd: await linuxPath(cwd!), reject: false, timeout: 300_000 });
    const out = Buffer.from(String(r.stdout ?? ''));
    const err = Buffer.from(String(r.stderr ?? ''));
    const u32 = (n: number) => { const b = Buffer.alloc(4); b.writeUInt32LE(n >>> 0); return b; };
    sock.end(Buffer.concat([u32(r.exitCode ?? 127), u32(out.length), out, u32(err.length), err]));
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  await fs.writeFile(path.join(RELAY_DIR, 'relay.port'), String(port));
  return { calls, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}
