// The win32 path run for real: Windows node.exe under Wine installs from a win-64 conda channel and an SDK zip built
// from the Level Zero loader cross-built from Debian's source, then probe, smoke, doctor, env and env.bat are run.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import * as path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { REPO, listTree } from '../e2e/cli.js';
import { startFixtureIndex, type FixtureIndex } from '../support/index-server.js';
import { reportSkip } from '../support/skips.js';
import { buildCondaPackage, compilePe, zipBuffer, type ArchiveEntry } from '../support/packages.js';
import {
  CROSS_CC, L0_BUILD, NODE_EXE, WINEPREFIX, holdWinePrefix, missingPackages, nodeExeVersion, prepare, runCliWin, runCmd, runWine, sha256,
  startRelay, startWineServer, stopWineServer, syncApp, winPath, type Relay, type WinRun,
} from './wine.js';

const L0_VERSION = '1.8.12';
const table: string[] = [];
/** One printed line per case: what ran and what it showed. */
function row(name: string, ok: boolean, detail: string): void {
  const line = `${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(44)} ${detail}`;
  table.push(line);
  process.stderr.write(`wine: ${line}\n`);
}
const show = (r: WinRun): string => `exit ${r.exitCode}\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`;

async function walk(dir: string, under: string): Promise<ArchiveEntry[]> {
  const out: ArchiveEntry[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await walk(full, `${under}/${e.name}`)));
    else if (/\.h$/.test(e.name)) out.push({ path: `${under}/${e.name}`, type: 'file', data: await fs.readFile(full) });
  }
  return out;
}

interface Served {
  url: string;
  channel: string;
  sdkUrl: string;
  sdkSha256: string;
  close(): Promise<void>;
}

/** A win-64 conda channel (level-zero + level-zero-devel) and an SDK-layout zip, over HTTP/1.1 on loopback. */
async function serveWindowsPackages(work: string): Promise<Served> {
  const dll = await fs.readFile(path.join(L0_BUILD, 'bin', 'ze_loader.dll'));
  const lib = await fs.readFile(path.join(L0_BUILD, 'lib', 'ze_loader.lib'));
  const headers = await walk(path.join(L0_BUILD, 'include'), 'include');
  const runtime = await buildCondaPackage({
    name: 'level-zero', version: L0_VERSION, build: 'h0000000_0', buildNumber: 0, subdir: 'win-64',
    payload: [{ path: 'Library/bin/ze_loader.dll', type: 'file', data: dll }],
  }, 'conda');
  const devel = await buildCondaPackage({
    name: 'level-zero-devel', version: L0_VERSION, build: 'h0000000_0', buildNumber: 0, subdir: 'win-64',
    depends: [`level-zero ==${L0_VERSION} h0000000_0`],
    payload: [...headers.map((h) => ({ ...h, path: `Library/${h.path}` })), { path: 'Library/lib/ze_loader.lib', type: 'file', data: lib }],
  }, 'conda');
  // The SDK zip of a GitHub release: include/ and lib/ze_loader.lib, no DLL (that comes with the driver).
  const sdk = await zipBuffer([...headers.map((h) => ({ path: h.path, data: h.type === 'file' ? h.data : Buffer.alloc(0) })), { path: 'lib/ze_loader.lib', data: lib }], true);
  const files = new Map<string, Buffer>();
  const packagesConda: Record<string, unknown> = {};
  for (const p of [runtime, devel]) {
    files.set(`/conda/win/win-64/${p.filename}`, p.bytes);
    packagesConda[p.filename] = { ...p.index, sha256: sha256(p.bytes), md5: '', size: p.bytes.length };
  }
  for (const subdir of ['win-64', 'noarch']) {
    const repodata = { info: { subdir }, packages: {}, 'packages.conda': subdir === 'win-64' ? packagesConda : {}, removed: [], repodata_version: 1 };
    files.set(`/conda/win/${subdir}/repodata.json`, Buffer.from(JSON.stringify(repodata)));
  }
  const sdkPath = `/github/oneapi-src/level-zero/releases/download/v${L0_VERSION}/level-zero-win-sdk-${L0_VERSION}.zip`;
  files.set(sdkPath, sdk);
  await fs.writeFile(path.join(work, 'served.txt'), [...files.keys()].join('\n'));
  const server: Server = createServer((req, res) => {
    const body = files.get((req.url ?? '').split('?')[0]!);
    if (!body) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return {
    url,
    channel: `${url}/conda/win`,
    sdkUrl: `${url}${sdkPath}`,
    sdkSha256: sha256(sdk),
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

describe('Windows under Wine: node.exe, a real ze_loader.dll, the null driver', () => {
  let work: string;
  let served: Served;
  let relay: Relay;
  const prefix = () => path.join(work, 'prefix');
  const cache = () => path.join(work, 'cache');
  const started = Date.now();

  /** Why this machine cannot run the suite at all (its Wine root cannot be built here): then every case is skipped, saying so. */
  let cannotRun: string | undefined;
  let release: (() => Promise<void>) | undefined;

  beforeAll(async () => {
    const missing = await missingPackages();
    if (missing) throw new Error(`the Windows suite cannot run: ${missing}`);
    cannotRun = await prepare();
    if (cannotRun) {
      reportSkip('the Windows suite under Wine', cannotRun);
      row('Wine root', true, `skipped: ${cannotRun}`);
      return;
    }
    release = await holdWinePrefix();
    await syncApp();
    work = await fs.mkdtemp(path.join(path.dirname(WINEPREFIX), 'run-'));
    await startWineServer();
    served = await serveWindowsPackages(work);
    relay = await startRelay();
  }, 1_500_000);

  beforeEach((ctx) => {
    if (cannotRun) ctx.skip(cannotRun);
  });

  afterAll(async () => {
    await served?.close();
    await relay?.close();
    await stopWineServer();
    await release?.();
    if (work) await fs.rm(work, { recursive: true, force: true });
    process.stderr.write(`\nWindows suite under Wine (${((Date.now() - started) / 1000).toFixed(0)} s):\n${table.join('\n')}\n`);
  });

  it('runs the official node.exe of this node\'s version (or the newest of its major published for Windows)', async () => {
    const version = await nodeExeVersion();
    expect(version.split('.')[0]).toBe(process.versions.node.split('.')[0]);
    const r = await runWine(NODE_EXE, ['-p', 'process.platform + " " + process.version']);
    row('node.exe under Wine', r.stdout.trim() === `win32 v${version}`, r.stdout.trim());
    expect(r.stdout.trim(), show(r)).toBe(`win32 v${version}`);
  });

  it('plans from the win-64 conda channel', async () => {
    // The served channel holds Debian 12's Level Zero 1.8.12, below the shipped floor 1.9.
    const r = await runCliWin(['plan', '--prefix', winPath(prefix()), '--cache-dir', winPath(cache()), '--conda-channel', served.channel, '--component', 'level-zero', '--require', 'level-zero>=1.8', '--json']);
    const doc = r.exitCode === 0 ? (JSON.parse(r.stdout) as { plan?: { components?: { archives?: { url: string }[] }[] } }) : undefined;
    const urls = (doc?.plan?.components ?? JSON.parse(r.stdout || '{}').components ?? []).flatMap((c: { archives?: { url: string }[] }) => (c.archives ?? []).map((a) => a.url));
    row('plan (conda win-64)', r.exitCode === 0 && urls.length === 2, `${urls.length} archives: ${urls.map((u: string) => u.split('/').pop()).join(', ')}`);
    expect(r.exitCode, show(r)).toBe(0);
    expect(urls.map((u: string) => u.split('/').pop()).sort()).toEqual([`level-zero-${L0_VERSION}-h0000000_0.conda`, `level-zero-devel-${L0_VERSION}-h0000000_0.conda`]);
  });

  // This prefix asks for the package's ze_loader.dll (--include-loader-dll), so the cases below see a prefix copy
  // beside System32's; the default, without it, is set up in the System32 cases.
  it('sets up from the conda channel, building the addon with a GNU-style compiler, and names env.bat', async () => {
    const r = await runCliWin(['--prefix', winPath(prefix()), '--cache-dir', winPath(cache()), '--conda-channel', served.channel, '--component', 'level-zero', '--require', 'level-zero>=1.8', '--include-loader-dll']);
    const addon = (await fs.readdir(path.join(prefix(), 'lib', 'xpu-setup')).catch(() => [])).find((f) => f.startsWith('xpu_addon-'));
    row('setup (conda, GNU-style compiler relay)', r.exitCode === 0 && !!addon?.endsWith('.dll'), `exit ${r.exitCode}, addon ${addon ?? 'none'}, ${relay.calls.length} compiler calls`);
    expect(r.exitCode, show(r)).toBe(0);
    expect(addon).toMatch(/^xpu_addon-[0-9a-f]{16}\.dll$/);
    expect(r.stderr).toContain(`${winPath(prefix())}\\env.bat`);
    expect(r.stderr).toContain(`${winPath(prefix())}\\env.ps1`);
    expect(r.stderr).not.toMatch(/env\.sh/);
  });

  it('lays out the prefix the Windows way, with the cross-built loader byte for byte', async () => {
    const tree = await listTree(prefix());
    const want = ['bin/ze_loader.dll', 'lib/ze_loader.lib', 'include/level_zero/ze_api.h', 'env.bat', 'env.ps1', 'env.json', 'xpu-setup.receipt.json'];
    const missing = want.filter((f) => !tree.includes(f));
    const same = sha256(await fs.readFile(path.join(prefix(), 'bin', 'ze_loader.dll'))) === sha256(await fs.readFile(path.join(L0_BUILD, 'bin', 'ze_loader.dll')));
    row('prefix layout', missing.length === 0 && same, missing.length ? `missing ${missing.join(', ')}` : `${want.length} files present, ze_loader.dll identical`);
    expect(missing).toEqual([]);
    expect(same).toBe(true);
  });

  it('probes without a driver: zeInit 0x78000001, and says which ze_loader.dll it loaded', async () => {
    const r = await runCliWin(['probe', '--prefix', winPath(prefix()), '--json']);
    const doc = JSON.parse(r.stdout || '{}') as { error?: { details?: { report?: { loader?: { path?: string; version?: string } } } } };
    const text = r.stdout + r.stderr;
    const loaded = `${winPath(prefix())}\\bin\\ze_loader.dll`;
    row('probe, no driver', r.exitCode === 1 && text.includes('0x78000001') && text.includes(loaded), `exit ${r.exitCode}, ${text.includes('0x78000001') ? 'zeInit 0x78000001' : 'no zeInit code'}, loaded ${text.includes(loaded) ? 'prefix\\bin\\ze_loader.dll' : '?'}`);
    expect(r.exitCode, show(r)).toBe(1);
    expect(text).toContain('0x78000001');
    expect(JSON.stringify(doc)).toContain(JSON.stringify(loaded).slice(1, -1));
    expect(JSON.stringify(doc)).toContain(L0_VERSION);
  });

  it('smoke without a driver says there is no device', async () => {
    const r = await runCliWin(['smoke', '--prefix', winPath(prefix())]);
    const said = r.stderr.split('\n').find((l) => l.startsWith('error:')) ?? r.stderr.trim().split('\n')[0];
    row('smoke, no driver', r.exitCode === 1 && /no .*device|0x78000001/i.test(r.stderr), `exit ${r.exitCode}: ${said?.slice(0, 110)}`);
    expect(r.exitCode, show(r)).toBe(1);
    expect(r.stderr).toMatch(/0x78000001|no .*device/i);
  });

  it('doctor runs and names the loaded ze_loader.dll and what the env files would give a program', async () => {
    const r = await runCliWin(['doctor', '--prefix', winPath(prefix()), '--json']);
    const doc = JSON.parse(r.stdout) as { checks?: { id: string; status: string; message?: string; details?: unknown }[] };
    const loader = doc.checks?.find((c) => c.id === 'ze-loader');
    const text = JSON.stringify(loader ?? {});
    row('doctor --json', !!loader && text.includes('ze_loader.dll'), `${doc.checks?.length ?? 0} checks; ze-loader ${loader?.status}: ${(loader?.message ?? '').split('; ').pop()}`.slice(0, 150));
    expect([0, 1]).toContain(r.exitCode);
    expect(text).toContain(JSON.stringify(`${winPath(prefix())}\\bin\\ze_loader.dll`).slice(1, -1));
    expect(text).toMatch(/a program started from env\.bat\/env\.ps1 loads the prefix copy/);
  });

  it("doctor reads every DLL of the prefix against Wine's system32, and names an import neither has", async () => {
    const libraries = async () => {
      const r = await runCliWin(['doctor', '--prefix', winPath(prefix()), '--json', '--check', 'libraries']);
      return (JSON.parse(r.stdout) as { checks: { id: string; status: string; message: string }[] }).checks.find((c) => c.id === 'libraries')!;
    };
    const before = await libraries();
    // A DLL that imports one which neither the prefix nor Wine has.
    const build = path.join(work, 'absent');
    await compilePe({ name: 'xpu_setup_absent.dll', source: '__declspec(dllexport) int xpu_setup_absent(void) { return 1; }\n' }, build);
    const importer = await compilePe(
      { name: 'xpu_setup_importer.dll', source: '__declspec(dllimport) int xpu_setup_absent(void);\nint xpu_setup_importer(void) { return xpu_setup_absent(); }\n', imports: ['xpu_setup_absent.dll'] },
      build,
    );
    const planted = path.join(prefix(), 'bin', 'xpu_setup_importer.dll');
    await fs.writeFile(planted, importer);
    const after = await libraries().finally(() => fs.rm(planted, { force: true }));
    row('doctor libraries (Wine system32)', before.status === 'ok' && after.status === 'fail', `${before.status}: ${before.message.slice(0, 60)}; with a DLL importing an absent one: ${after.status}`);
    expect(before.status, before.message).toBe('ok');
    expect(after.status).toBe('fail');
    expect(after.message).toBe('bin/xpu_setup_importer.dll needs xpu_setup_absent.dll, which is neither in the new tree nor on this system');
  });

  it('env prints Windows paths; on a copied prefix it prints the copy', async () => {
    const r = await runCliWin(['env', '--prefix', winPath(prefix()), '--shell', 'cmd']);
    const copy = path.join(work, 'copied prefix');
    await fs.cp(prefix(), copy, { recursive: true });
    const c = await runCliWin(['env', '--prefix', winPath(copy), '--shell', 'cmd']);
    const ok = r.stdout.includes(`set "LEVEL_ZERO_V1_SDK_PATH=${winPath(prefix())}"`) && c.stdout.includes(`set "LEVEL_ZERO_V1_SDK_PATH=${winPath(copy)}"`) && !c.stdout.includes(winPath(prefix()) + '\\');
    row('env --shell cmd (and on a copied prefix)', ok, `original ${r.exitCode}, copy ${c.exitCode}`);
    expect(r.stdout, show(r)).toContain(`set "PATH=${winPath(prefix())}\\bin;%PATH%"`);
    expect(c.stdout, show(c)).toContain(`set "LEVEL_ZERO_V1_SDK_PATH=${winPath(copy)}"`);
    expect(c.stdout).not.toContain(`${winPath(prefix())}\\`);
  });

  it('env.bat in cmd sets the variables, and calling it twice adds the prefix once', async () => {
    const bat = `${winPath(prefix())}\\env.bat`;
    const r = await runCmd(`call "${bat}"\ncall "${bat}"\nset LEVEL_ZERO_V1_SDK_PATH\npath`);
    const pathLine = r.stdout.split(/\r?\n/).find((l) => /^PATH=/i.test(l)) ?? '';
    const bin = `${winPath(prefix())}\\bin`.toLowerCase();
    const count = pathLine.replace(/^PATH=/i, '').toLowerCase().split(';').filter((p) => p === bin).length;
    row('env.bat twice in wine cmd', r.exitCode === 0 && count === 1, `prefix\\bin on PATH ${count} time(s)`);
    expect(r.stdout, show(r)).toContain(`LEVEL_ZERO_V1_SDK_PATH=${winPath(prefix())}`);
    expect(count).toBe(1);
  });

  it('a mingw-built Level Zero program finds ze_loader.dll through the PATH env.bat sets', async () => {
    const dir = path.join(work, 'app');
    await fs.mkdir(dir, { recursive: true });
    const exe = path.join(dir, 'ze_devices.exe');
    const cc = await execa(CROSS_CC, [path.join(REPO, 'test', 'windows', 'ze_devices.c'), `-I${prefix()}/include`, `-L${prefix()}/lib`, '-lze_loader', '-o', exe], { reject: false });
    expect(cc.exitCode, cc.stderr).toBe(0);
    const without = await runCmd(`"${winPath(exe)}"`);
    const r = await runCmd(`call "${winPath(prefix())}\\env.bat" && "${winPath(exe)}"`);
    row('L0 program through env.bat PATH', r.stdout.includes('zeInit 0x78000001') && !without.stdout.includes('zeInit'), `with env.bat: ${r.stdout.trim() || r.exitCode}; without: ${without.stdout.trim() ? 'ran' : 'no ze_loader.dll'}`);
    expect(r.stdout, show(r)).toContain('zeInit 0x78000001');
    expect(without.stdout).not.toContain('zeInit');
  });

  // A hosted Windows CI runner: no Intel GPU driver, so no ze_loader.dll anywhere, and a prefix without the package's copy.
  describe('on a machine without the Intel GPU driver (no ze_loader.dll in System32)', () => {
    const bare = () => path.join(work, 'bare-prefix');
    const setupArgs = () => ['--prefix', winPath(bare()), '--cache-dir', winPath(cache()), '--conda-channel', served.channel, '--component', 'level-zero', '--require', 'level-zero>=1.8'];
    const said = (r: WinRun) => r.stderr.split('\n').find((l) => /no Level Zero loader is installed on this machine/.test(l)) ?? '';
    const waysOn = (text: string) => text.includes('install the Intel GPU driver') && text.includes(`xpu-setup --prefix ${winPath(bare())} --include-loader-dll`);

    it('setup installs the headers and ze_loader.lib, says nothing could be probed and the two ways on, and exits 0', async () => {
      const r = await runCliWin([...setupArgs(), '--no-smoke']);
      const tree = await listTree(bare());
      row('setup, no loader on the machine', r.exitCode === 0 && !!said(r) && waysOn(r.stderr), `exit ${r.exitCode}: ${said(r).slice(0, 120)}`);
      process.stderr.write(`wine: what setup said on a machine without the Intel GPU driver (exit ${r.exitCode}):\n${r.stderr.replace(/^/gm, '  ')}\n`);
      expect(r.exitCode, show(r)).toBe(0);
      expect(tree).toContain('lib/ze_loader.lib');
      expect(tree.filter((f) => /^bin\/ze_loader/.test(f))).toEqual([]);
      expect(said(r), show(r)).toMatch(/^warning: nothing could be probed: no Level Zero loader is installed on this machine/);
      expect(waysOn(r.stderr), show(r)).toBe(true);
      expect(r.stderr).not.toMatch(/run `[^`]*xpu-setup[^`]*--prefix [^`]*` to install it/);
    });

    it('with --require-device the same setup exits 1, naming the missing loader', async () => {
      const r = await runCliWin([...setupArgs(), '--no-smoke', '--require-device']);
      const first = r.stderr.split('\n').find((l) => l.startsWith('error:')) ?? '';
      row('setup --require-device, no loader', r.exitCode === 1 && /no Level Zero loader is installed/.test(first), `exit ${r.exitCode}: ${first.slice(0, 110)}`);
      expect(r.exitCode, show(r)).toBe(1);
      expect(first).toMatch(/no Level Zero loader is installed on this machine/);
    });

    it('probe, smoke and doctor give the same answer, and no hint proposes the setup that just ran', async () => {
      const probe = await runCliWin(['probe', '--prefix', winPath(bare())]);
      const smoke = await runCliWin(['smoke', '--prefix', winPath(bare())]);
      const doctor = await runCliWin(['doctor', '--prefix', winPath(bare()), '--json', '--check', 'ze-loader']);
      const check = (JSON.parse(doctor.stdout || '{}') as { checks?: { id: string; status: string; fix?: string }[] }).checks?.find((c) => c.id === 'ze-loader');
      row('probe/smoke/doctor, no loader', probe.exitCode === 1 && smoke.exitCode === 1 && !!check?.fix?.includes('--include-loader-dll'), `probe ${probe.exitCode}, smoke ${smoke.exitCode}, doctor ze-loader ${check?.status}`);
      for (const r of [probe, smoke]) {
        expect(r.exitCode, show(r)).toBe(1);
        expect(r.stderr, show(r)).toMatch(/error: no Level Zero loader is installed on this machine/);
        expect(waysOn(r.stderr), show(r)).toBe(true);
      }
      expect(check?.status, doctor.stdout).toBe('fail');
      expect(check?.fix).toContain('install the Intel graphics driver');
      expect(check?.fix).toContain('--include-loader-dll');
    });
  });

  describe('with the upstream null driver (ze_null.dll in System32, ZE_ENABLE_NULL_DRIVER=1)', () => {
    const nullEnv = { ZE_ENABLE_NULL_DRIVER: '1' };
    beforeAll(async () => {
      await fs.copyFile(path.join(L0_BUILD, 'bin', 'ze_null.dll'), path.join(WINEPREFIX, 'drive_c', 'windows', 'system32', 'ze_null.dll'));
    });
    afterAll(async () => {
      await fs.rm(path.join(WINEPREFIX, 'drive_c', 'windows', 'system32', 'ze_null.dll'), { force: true });
    });

    it('probe lists the null device', async () => {
      const r = await runCliWin(['probe', '--prefix', winPath(prefix())], nullEnv);
      row('probe, null driver', r.exitCode === 0 && /Null Device/i.test(r.stdout), `exit ${r.exitCode}: ${r.stdout.trim().split('\n')[0] ?? ''}`);
      expect(r.exitCode, show(r)).toBe(0);
      expect(r.stdout).toMatch(/Null Device/i);
    });

    it('smoke reaches the kernel path and says it could not compute', async () => {
      const r = await runCliWin(['smoke', '--prefix', winPath(prefix())], nullEnv);
      const said = r.stderr.split('\n').find((l) => l.startsWith('error:')) ?? '';
      row('smoke, null driver', r.exitCode === 1 && /could not compute/.test(r.stderr), `exit ${r.exitCode}: ${said.slice(0, 120)}`);
      expect(r.exitCode, show(r)).toBe(1);
      expect(r.stderr).toMatch(/could not compute on Null Device/);
    });
  });

  describe('with a ze_loader.dll in System32, as the GPU driver puts it there', () => {
    const sys32Loader = () => path.join(WINEPREFIX, 'drive_c', 'windows', 'system32', 'ze_loader.dll');
    beforeAll(async () => {
      await fs.copyFile(path.join(L0_BUILD, 'bin', 'ze_loader.dll'), sys32Loader());
    });
    afterAll(async () => {
      await fs.rm(sys32Loader(), { force: true });
    });

    it('probe loads the prefix copy by full path and says a program from env.bat would get System32\'s', async () => {
      const r = await runCliWin(['probe', '--prefix', winPath(prefix()), '--json']);
      const doc = JSON.parse(r.stdout || '{}') as { error?: { details?: { report?: { loader?: { windows?: { loaded?: { path: string; where: string; version?: string }; others: { where: string }[]; programGets?: { where: string } } } } } } };
      const w = doc.error?.details?.report?.loader?.windows;
      row('probe with System32\\ze_loader.dll', w?.loaded?.where === 'prefix' && w.programGets?.where === 'System32', `loaded ${w?.loaded?.where} ${w?.loaded?.version ?? ''}; others: ${w?.others.map((o) => o.where).join(', ')}; env.bat program gets ${w?.programGets?.where}`);
      expect(w?.loaded?.path.toLowerCase(), show(r)).toBe(`${winPath(prefix())}\\bin\\ze_loader.dll`.toLowerCase());
      expect(w?.loaded?.version).toBe(`${L0_VERSION}.0`);
      expect(w?.others.map((o) => o.where)).toContain('System32');
      expect(w?.programGets?.where).toBe('System32');
      expect(r.stdout + r.stderr).toMatch(/a program started from env\.bat\/env\.ps1 loads C:/i);
    });

    it('sets up from the conda channel whose level-zero carries Library/bin/ze_loader.dll: the prefix has none, and the probe goes through System32\'s', async () => {
      const plain = path.join(work, 'plain-prefix');
      const r = await runCliWin(['--prefix', winPath(plain), '--cache-dir', winPath(cache()), '--conda-channel', served.channel, '--component', 'level-zero', '--require', 'level-zero>=1.8', '--no-smoke']);
      const tree = await listTree(plain);
      const p = await runCliWin(['probe', '--prefix', winPath(plain), '--json']);
      const doc = JSON.parse(p.stdout || '{}') as { error?: { details?: { report?: { loader?: { path?: string; windows?: { loaded?: { path: string; where: string } } } } } } };
      const loaded = doc.error?.details?.report?.loader?.windows?.loaded;
      row('setup (conda), no DLL, System32 loader', r.exitCode === 0 && !tree.includes('bin/ze_loader.dll') && loaded?.where === 'System32', `exit ${r.exitCode}; prefix bin/: ${tree.filter((f) => f.startsWith('bin/')).join(', ') || 'none'}; probe loaded ${loaded?.where} ${loaded?.path ?? ''}`);
      expect(r.exitCode, show(r)).toBe(0);
      expect(tree.filter((f) => /^bin\/ze_/.test(f))).toEqual([]);
      expect(tree).toContain('lib/ze_loader.lib');
      expect(loaded?.where, show(p)).toBe('System32');
      expect(loaded?.path.toLowerCase()).toBe('c:\\windows\\system32\\ze_loader.dll');
      expect(p.stdout + p.stderr).toContain('0x78000001');
    });

    it('installs the SDK zip (real ze_loader.lib, pinned by sha256) and probes through the System32 loader', async () => {
      const manifests = path.join(work, 'manifests-sdk');
      await fs.mkdir(manifests, { recursive: true });
      for (const f of await fs.readdir(path.join(REPO, 'manifests'))) await fs.copyFile(path.join(REPO, 'manifests', f), path.join(manifests, f));
      const l0 = JSON.parse(await fs.readFile(path.join(manifests, 'level-zero.json'), 'utf8')) as { platforms: Record<string, { sources: { kind: string; url?: string; sha256?: string; version?: string }[] }> };
      const src = l0.platforms['win-x64']!.sources.find((s) => s.kind === 'url')!;
      Object.assign(src, { url: served.sdkUrl, sha256: served.sdkSha256, version: L0_VERSION });
      await fs.writeFile(path.join(manifests, 'level-zero.json'), JSON.stringify(l0));
      const sdkPrefix = path.join(work, 'sdk-prefix');
      const r = await runCliWin(['--prefix', winPath(sdkPrefix), '--cache-dir', winPath(cache()), '--manifests', winPath(manifests), '--source', 'url', '--component', 'level-zero', '--require', 'level-zero>=1.8', '--no-smoke']);
      const tree = await listTree(sdkPrefix);
      const lib = tree.includes('lib/ze_loader.lib') && sha256(await fs.readFile(path.join(sdkPrefix, 'lib', 'ze_loader.lib'))) === sha256(await fs.readFile(path.join(L0_BUILD, 'lib', 'ze_loader.lib')));
      const said = r.stderr.includes('0x78000001') ? 'probed: zeInit 0x78000001 through System32\\ze_loader.dll' : r.stderr.trim().split('\n').pop();
      row('setup from the SDK zip, System32 loader', r.exitCode === 0 && lib && !tree.includes('bin/ze_loader.dll'), `exit ${r.exitCode}, ze_loader.lib ${lib ? 'identical' : 'missing'}, no DLL in the prefix; ${said}`);
      expect(lib, show(r)).toBe(true);
      expect(r.exitCode, show(r)).toBe(0);
      expect(tree).not.toContain('bin/ze_loader.dll');
      expect(r.stderr).toMatch(/0x78000001/);
      expect(r.stderr).toMatch(/system32\\ze_loader\.dll/i);
    });
  });

  describe('Unified Runtime from the fixture index: the ur_loader.dll double loads its adapters as the real loader does', () => {
    let index: FixtureIndex;
    const urPrefix = () => path.join(work, 'ur-prefix');
    type UrReport = { ur?: { init: number; backends: (number | null)[]; platforms: string[]; devices: { name: string }[] }; notes: string[] };
    /** probe --json of the UR prefix: exit 1 (the fixture ze_loader.dll has no driver), with the report in the error. */
    const probeUr = async (): Promise<{ r: WinRun; report: UrReport }> => {
      const r = await runCliWin(['probe', '--prefix', winPath(urPrefix()), '--json']);
      const doc = JSON.parse(r.stdout || '{}') as { error?: { details?: { report?: UrReport } } };
      return { r, report: doc.error?.details?.report ?? { notes: [] } };
    };

    // The adapters import ze_loader.dll, which the prefix does not carry: the GPU driver's copy in System32 serves them.
    const sys32Loader = () => path.join(WINEPREFIX, 'drive_c', 'windows', 'system32', 'ze_loader.dll');
    beforeAll(async () => {
      index = await startFixtureIndex();
      await fs.copyFile(path.join(L0_BUILD, 'bin', 'ze_loader.dll'), sys32Loader());
    });
    afterAll(async () => {
      await index?.close();
      await fs.rm(sys32Loader(), { force: true });
    });

    it('sets up UR with its UMF, tcmlib and hwloc DLLs; the probe walks UR and gets the Level Zero adapter', async () => {
      const setup = await runCliWin(
        // The channel whose Level Zero is one UR 2026's adapters can use (>= 1.25).
        ['--prefix', winPath(urPrefix()), '--cache-dir', winPath(path.join(work, 'ur-cache')), '--conda-channel', index.condaChannelUrl('newer'), '--no-smoke'],
        { XPU_SETUP_INDEX_URL: index.simpleUrl, XPU_SETUP_REQUIRE: 'level-zero>=1.8' },
      );
      expect(setup.exitCode, show(setup)).toBe(0);
      const tree = await listTree(urPrefix());
      const dlls = ['bin/ur_loader.dll', 'bin/ur_adapter_level_zero.dll', 'bin/umf.dll', 'bin/libhwloc-15.dll'];
      expect(dlls.filter((f) => !tree.includes(f))).toEqual([]);
      expect(tree).not.toContain('bin/ze_loader.dll');
      const { r, report } = await probeUr();
      const ur = report.ur;
      row('UR double under Wine, full closure', !!ur?.platforms.includes('xpu-setup UR test double level_zero'), `exit ${r.exitCode}; UR platforms: ${ur?.platforms.join(', ') || 'none'}`);
      expect(ur, show(r)).toBeDefined();
      expect(ur!.init).toBe(0);
      expect(ur!.backends).toContain(1);
      expect(ur!.platforms).toContain('xpu-setup UR test double level_zero');
      expect(ur!.devices.map((d) => d.name)).toEqual(['xpu-setup UR test double device']);
    });

    it('without umf.dll the Level Zero adapter does not load, and the probe names it and the DLL it misses', async () => {
      const umf = path.join(urPrefix(), 'bin', 'umf.dll');
      const kept = await fs.readFile(umf);
      await fs.rm(umf);
      try {
        const { r, report } = await probeUr();
        const ur = report.ur;
        const said = report.notes.find((n) => n.startsWith('UR: no Level Zero adapter loaded')) ?? '';
        row('UR double under Wine, no umf.dll', !!ur && !ur.backends.includes(1) && said.includes('umf.dll'), said.split('ur_loader.dll: ')[1]?.slice(0, 200) || `exit ${r.exitCode}`);
        expect(ur, show(r)).toBeDefined();
        expect(ur!.backends).not.toContain(1);
        expect(ur!.platforms).not.toContain('xpu-setup UR test double level_zero');
        expect(said, show(r)).toContain(`through ${winPath(urPrefix())}\\bin\\ur_loader.dll: ur_adapter_level_zero.dll did not load: it needs umf.dll`);
      } finally {
        await fs.writeFile(umf, kept);
      }
    });
  });
});
