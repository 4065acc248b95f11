// Builds the packages the fixture index serves, in their real formats, from real Debian files and the UR test double.
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, readlink, lstat, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import yazl from 'yazl';
import { ensureDebs, ensureSidDebs, fixtureCacheDir, repoRoot, type DebSet, type SidDebs } from './debs.js';

const execFileP = promisify(execFile);

/** Every archive member gets this mtime (2025-01-01T00:00:00Z) so that a rebuild gives the same bytes. */
export const FIXTURE_MTIME_MS = Date.UTC(2025, 0, 1);

/** Bump when the layout of built packages changes without this file's text changing. */
const BUILD_FORMAT = 1;

export type ArchiveEntry =
  | { path: string; type: 'file'; data: Buffer; mode?: number }
  | { path: string; type: 'symlink'; target: string };

export interface FixtureMember {
  path: string;
  type: 'file' | 'symlink';
  size: number;
  sha256: string;
  target?: string;
}

export type FixturePlatform = 'linux-x64' | 'win-x64' | 'any';
export type CondaSubdir = 'linux-64' | 'linux-aarch64' | 'win-64' | 'noarch';

/** `info/index.json` of a conda package: the repodata record less sha256, md5 and size. */
export interface CondaIndexJson {
  name: string;
  version: string;
  build: string;
  build_number: number;
  depends: string[];
  constrains: string[];
  license: string;
  subdir: CondaSubdir;
  platform: string | null;
  arch: string | null;
  timestamp: number;
}

export interface FixtureArtifact {
  format: 'conda' | 'tar.bz2' | 'wheel' | 'zip';
  name: string;
  version: string;
  platform: FixturePlatform;
  filename: string;
  /** Absolute path of the built file in the cache. */
  path: string;
  sha256: string;
  md5: string;
  size: number;
  /** Conda: the entries of the info and payload tarballs (info/..., lib/...); wheel and zip: the zip entries. */
  members: FixtureMember[];
  conda?: CondaIndexJson;
  wheel?: { metadata: string; metadataSha256: string; requiresPython?: string; yanked?: string };
}

export interface FixturePackages {
  dir: string;
  /** `newer`: the loader >= 1.25 (the forwarding double, with sid's headers of that version). */
  l0Versions: { bookworm: string; trixie: string; newer: string };
  urVersions: { older: string; newer: string; yanked: string };
  /** The closure each UR release pulls in on PyPI: its UMF (by Requires-Dist) and the newest tcmlib that UMF accepts. */
  urClosure: Record<string, { umf: string; tcmlib: string }>;
  artifacts: FixtureArtifact[];
}

// ---------------------------------------------------------------------------------------------------------
// Archive writers
// ---------------------------------------------------------------------------------------------------------

const sha256 = (b: Buffer | string): string => createHash('sha256').update(b).digest('hex');
const md5 = (b: Buffer): string => createHash('md5').update(b).digest('hex');

function octal(value: number, width: number): string {
  return value.toString(8).padStart(width - 1, '0') + '\0';
}

function tarHeader(name: string, type: string, size: number, mode: number, mtimeMs: number, linkname = ''): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, 'utf8');
  h.write(octal(mode, 8), 100, 'ascii');
  h.write(octal(0, 8), 108, 'ascii');
  h.write(octal(0, 8), 116, 'ascii');
  h.write(octal(size, 12), 124, 'ascii');
  h.write(octal(Math.floor(mtimeMs / 1000), 12), 136, 'ascii');
  h.write(type, 156, 'ascii');
  h.write(linkname, 157, 100, 'utf8');
  h.write('ustar\0' + '00', 257, 'ascii');
  h.write('root', 265, 'ascii');
  h.write('root', 297, 'ascii');
  h.fill(' ', 148, 156);
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(octal(sum, 7) + ' ', 148, 'ascii');
  return h;
}

const pad512 = (n: number): Buffer => Buffer.alloc((512 - (n % 512)) % 512);

function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let len = Buffer.byteLength(body) + 1;
  while (String(len).length + Buffer.byteLength(body) !== len) len = String(len).length + Buffer.byteLength(body);
  return `${len}${body}`;
}

/** A POSIX tar (ustar, pax records for long names) of the entries in the order given; paths are written as is. */
export function tarBuffer(entries: ArchiveEntry[], mtimeMs = FIXTURE_MTIME_MS): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const link = e.type === 'symlink' ? e.target : '';
    if (Buffer.byteLength(e.path) > 100 || Buffer.byteLength(link) > 100) {
      const pax = Buffer.from(
        (Buffer.byteLength(e.path) > 100 ? paxRecord('path', e.path) : '') +
          (Buffer.byteLength(link) > 100 ? paxRecord('linkpath', link) : ''),
      );
      parts.push(tarHeader(`PaxHeader/${posix.basename(e.path)}`.slice(0, 100), 'x', pax.length, 0o644, mtimeMs));
      parts.push(pax, pad512(pax.length));
    }
    const name = Buffer.from(e.path).subarray(0, 100).toString('utf8');
    if (e.type === 'file') {
      parts.push(tarHeader(name, '0', e.data.length, e.mode ?? 0o644, mtimeMs));
      parts.push(e.data, pad512(e.data.length));
    } else {
      parts.push(tarHeader(name, '2', 0, 0o777, mtimeMs, Buffer.from(link).subarray(0, 100).toString('utf8')));
    }
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** Runs a filter program (zstd, bzip2) over a buffer. */
function pipeThrough(cmd: string, args: string[], input: Buffer): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => err.push(d));
    child.on('error', (e) => reject(new Error(`${cmd}: ${e.message} (is it installed?)`)));
    child.on('close', (code) => {
      if (code === 0) resolvePromise(Buffer.concat(out));
      else reject(new Error(`${cmd} ${args.join(' ')} exited ${code}: ${Buffer.concat(err).toString()}`));
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

export const zstdCompress = (b: Buffer): Promise<Buffer> => pipeThrough('zstd', ['-q', '-c', '-3', '--no-progress'], b);
export const bzip2Compress = (b: Buffer): Promise<Buffer> => pipeThrough('bzip2', ['-c', '-9'], b);

/** A zip of the file entries, deflated or stored; yazl refuses absolute and `..` paths. */
export function zipBuffer(entries: { path: string; data: Buffer; mode?: number }[], compress: boolean): Promise<Buffer> {
  return new Promise((resolvePromise, reject) => {
    const zip = new yazl.ZipFile();
    const chunks: Buffer[] = [];
    zip.outputStream.on('data', (c: Buffer) => chunks.push(c));
    zip.outputStream.on('end', () => resolvePromise(Buffer.concat(chunks)));
    zip.outputStream.on('error', reject);
    try {
      for (const e of entries) {
        zip.addBuffer(e.data, e.path, { mtime: new Date(FIXTURE_MTIME_MS), mode: e.mode ?? 0o644, compress });
      }
      zip.end();
    } catch (err) {
      reject(err);
    }
  });
}

function membersOf(entries: ArchiveEntry[]): FixtureMember[] {
  const files = new Map(entries.flatMap((e) => (e.type === 'file' ? [[e.path, e.data] as const] : [])));
  return entries.map((e) => {
    if (e.type === 'file') return { path: e.path, type: 'file', size: e.data.length, sha256: sha256(e.data) };
    // A symlink reports what it points at, as conda's paths.json does.
    const data = files.get(posix.join(posix.dirname(e.path), e.target)) ?? Buffer.alloc(0);
    return { path: e.path, type: 'symlink', size: data.length, sha256: sha256(data), target: e.target };
  });
}

// ---------------------------------------------------------------------------------------------------------
// Package builders
// ---------------------------------------------------------------------------------------------------------

export interface CondaSpec {
  name: string;
  version: string;
  build: string;
  buildNumber: number;
  subdir: CondaSubdir;
  depends?: string[];
  constrains?: string[];
  license?: string;
  timestamp?: number;
  payload: ArchiveEntry[];
  /** Payload files that hold the build prefix, as conda-build records them in info/paths.json. */
  placeholders?: Record<string, { placeholder: string; mode: 'text' | 'binary' }>;
}

export interface BuiltPackage {
  filename: string;
  bytes: Buffer;
  members: FixtureMember[];
}

function condaIndexJson(spec: CondaSpec): CondaIndexJson {
  const platform = spec.subdir === 'noarch' ? null : spec.subdir.split('-')[0] === 'win' ? 'win' : 'linux';
  return {
    name: spec.name,
    version: spec.version,
    build: spec.build,
    build_number: spec.buildNumber,
    depends: spec.depends ?? [],
    constrains: spec.constrains ?? [],
    license: spec.license ?? 'MIT',
    subdir: spec.subdir,
    platform,
    arch: platform ? (spec.subdir === 'linux-aarch64' ? 'aarch64' : 'x86_64') : null,
    timestamp: spec.timestamp ?? FIXTURE_MTIME_MS,
  };
}

function condaInfo(spec: CondaSpec, index: CondaIndexJson): ArchiveEntry[] {
  const payload = membersOf(spec.payload);
  const paths = {
    paths: payload.map((m) => ({
      _path: m.path,
      path_type: m.type === 'symlink' ? 'softlink' : 'hardlink',
      sha256: m.sha256,
      size_in_bytes: m.size,
      ...(spec.placeholders?.[m.path] ? { file_mode: spec.placeholders[m.path]!.mode, prefix_placeholder: spec.placeholders[m.path]!.placeholder } : {}),
    })),
    paths_version: 1,
  };
  const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v, null, 2) + '\n');
  return [
    { path: 'info/about.json', type: 'file', data: json({ summary: `xpu-setup test fixture of ${spec.name}` }) },
    { path: 'info/files', type: 'file', data: Buffer.from(payload.map((m) => m.path).join('\n') + '\n') },
    { path: 'info/index.json', type: 'file', data: json(index) },
    { path: 'info/paths.json', type: 'file', data: json(paths) },
  ];
}

/** A conda package: `.conda` (CEP 35, stored zip of info and pkg tar.zst) or the older single `.tar.bz2`. */
export async function buildCondaPackage(
  spec: CondaSpec,
  format: 'conda' | 'tar.bz2',
): Promise<BuiltPackage & { index: CondaIndexJson }> {
  const index = condaIndexJson(spec);
  const info = condaInfo(spec, index);
  const stem = `${spec.name}-${spec.version}-${spec.build}`;
  const members = [...membersOf(info), ...membersOf(spec.payload)];
  if (format === 'tar.bz2') {
    const bytes = await bzip2Compress(tarBuffer([...info, ...spec.payload]));
    return { filename: `${stem}.tar.bz2`, bytes, members, index };
  }
  const [pkg, infoZst] = await Promise.all([zstdCompress(tarBuffer(spec.payload)), zstdCompress(tarBuffer(info))]);
  const bytes = await zipBuffer(
    [
      { path: 'metadata.json', data: Buffer.from(JSON.stringify({ conda_pkg_format_version: 2 })) },
      { path: `pkg-${stem}.tar.zst`, data: pkg },
      { path: `info-${stem}.tar.zst`, data: infoZst },
    ],
    false,
  );
  return { filename: `${stem}.conda`, bytes, members, index };
}

export interface WheelSpec {
  name: string;
  version: string;
  /** e.g. `py2.py3-none-manylinux_2_28_x86_64`. */
  tag: string;
  summary: string;
  requiresPython?: string;
  /** PEP 508 lines, as the real packages declare their dependencies (`umf==1.0.*`). */
  requiresDist?: string[];
  /** Paths relative to the wheel root, e.g. `<dist>-<ver>.data/data/lib/x.so`. */
  files: { path: string; data: Buffer; mode?: number }[];
}

const b64url = (hex: string): string => Buffer.from(hex, 'hex').toString('base64url');

/** The name as it appears in wheel file names and `.dist-info` / `.data` directories. */
export const wheelDistName = (name: string): string => name.toLowerCase().replace(/[-_.]+/g, '_');

/** A wheel with METADATA, WHEEL and a RECORD of urlsafe-base64 sha256 digests and sizes. */
export async function buildWheel(spec: WheelSpec): Promise<BuiltPackage & { metadata: string }> {
  const dist = `${wheelDistName(spec.name)}-${spec.version}`;
  const [pyTags = 'py3', abi = 'none', plat = 'any'] = spec.tag.split('-');
  const metadata =
    [
      'Metadata-Version: 2.1',
      `Name: ${spec.name}`,
      `Version: ${spec.version}`,
      `Summary: ${spec.summary}`,
      'License: MIT',
      ...(spec.requiresPython ? [`Requires-Python: ${spec.requiresPython}`] : []),
      ...(spec.requiresDist ?? []).map((r) => `Requires-Dist: ${r}`),
    ].join('\n') + '\n\n' + `${spec.summary}\n`;
  const wheel =
    [
      'Wheel-Version: 1.0',
      'Generator: xpu-setup-test-fixtures',
      `Root-Is-Purelib: ${plat === 'any' ? 'true' : 'false'}`,
      ...pyTags.split('.').map((py) => `Tag: ${py}-${abi}-${plat}`),
    ].join('\n') + '\n';
  const files = [
    ...spec.files,
    { path: `${dist}.dist-info/METADATA`, data: Buffer.from(metadata) },
    { path: `${dist}.dist-info/WHEEL`, data: Buffer.from(wheel) },
  ];
  const recordPath = `${dist}.dist-info/RECORD`;
  const record =
    files.map((f) => `${f.path},sha256=${b64url(sha256(f.data))},${f.data.length}`).join('\n') + `\n${recordPath},,\n`;
  files.push({ path: recordPath, data: Buffer.from(record) });
  const bytes = await zipBuffer(files, true);
  const members = files.map((f) => ({ path: f.path, type: 'file' as const, size: f.data.length, sha256: sha256(f.data) }));
  return { filename: `${dist}-${spec.tag}.whl`, bytes, members, metadata };
}

// ---------------------------------------------------------------------------------------------------------
// Inputs: Debian trees, test doubles
// ---------------------------------------------------------------------------------------------------------

async function walk(dir: string, prefix: string): Promise<ArchiveEntry[]> {
  const out: ArchiveEntry[] = [];
  for (const name of (await readdir(dir)).sort()) {
    const full = join(dir, name);
    const rel = `${prefix}/${name}`;
    const st = await lstat(full);
    if (st.isDirectory()) out.push(...(await walk(full, rel)));
    else if (st.isSymbolicLink()) out.push({ path: rel, type: 'symlink', target: await readlink(full) });
    else out.push({ path: rel, type: 'file', data: await readFile(full), mode: st.mode & 0o777 });
  }
  return out;
}

/**
 * The pkg-config files as upstream's templates come out of conda-forge's build (CMAKE_INSTALL_PREFIX set to
 * the build tree, libdir `lib`): before 1.20 the template wrote that absolute build prefix, from 1.20 a
 * prefix relative to `${pcfiledir}`. Debian's own files differ only in the prefix and libdir lines.
 */
const CONDA_BUILD_PREFIX = '/home/conda/feedstock_root/build_artifacts/level-zero_1700000000000/work/install';

export function condaForgePc(debianPc: string): string {
  const relocatable = /^prefix=\$\{pcfiledir\}/m.test(debianPc);
  return debianPc
    .replace(/^prefix=.*$/m, relocatable ? 'prefix=${pcfiledir}/../../' : `prefix=${CONDA_BUILD_PREFIX}`)
    .replace(/^libdir=.*$/m, 'libdir=${prefix}/lib');
}

const L0_LIB = /^libze_(loader|tracing_layer|validation_layer)\.so/;

async function l0LinuxPayloads(deb: DebSet): Promise<{ runtime: ArchiveEntry[]; devel: ArchiveEntry[] }> {
  const libs = (await walk(deb.libDir, 'lib')).filter((e) => L0_LIB.test(posix.basename(e.path)));
  const runtime = libs.filter((e) => /\.so\.\d/.test(e.path));
  const linkLibs = libs.filter((e) => e.path.endsWith('.so'));
  const pcs = (await walk(join(deb.libDir, 'pkgconfig'), 'lib/pkgconfig')).map((e) =>
    e.type === 'file' ? { ...e, data: Buffer.from(condaForgePc(e.data.toString('utf8'))) } : e,
  );
  const headers = await walk(deb.includeDir, 'include');
  return { runtime, devel: [...headers, ...linkLibs, ...pcs] };
}

/** Stand-in for a Windows import library (`.lib`): none is built here, so the bytes say what they are. */
export function windowsDouble(file: string, version: string): Buffer {
  return Buffer.from(`xpu-setup test double: not a real ${file} (version ${version}, win-64); never load or link it.\n`);
}

async function l0WindowsPayloads(deb: DebSet, work: string): Promise<{ runtime: ArchiveEntry[]; devel: ArchiveEntry[] }> {
  const version = deb.version;
  const names = ['ze_loader', 'ze_tracing_layer', 'ze_validation_layer'];
  const dlls = await compileL0WindowsDouble(version, join(work, 'l0-win', version));
  const runtime: ArchiveEntry[] = names.map((n) => ({ path: `Library/bin/${n}.dll`, type: 'file', data: dlls.get(`${n}.dll`)! }));
  const headers = await walk(deb.includeDir, 'Library/include');
  const libs: ArchiveEntry[] = names.map((n) => ({
    path: `Library/lib/${n}.lib`,
    type: 'file',
    data: windowsDouble(`${n}.lib`, version),
  }));
  return { runtime, devel: [...headers, ...libs] };
}

export const UR_LINUX_LIBS = [
  'libur_loader.so.0',
  'libur_adapter_level_zero.so.0',
  'libur_adapter_level_zero_v2.so.0',
  'libur_adapter_opencl.so.0',
] as const;
/** The UR DLLs of the win_amd64 wheel's `Library/bin`: the loader, its three adapters and the proxy loader. */
export const UR_WINDOWS_DLLS = [
  'ur_loader.dll',
  'ur_adapter_level_zero.dll',
  'ur_adapter_level_zero_v2.dll',
  'ur_adapter_opencl.dll',
  'ur_win_proxy_loader.dll',
] as const;

export const urDoubleSource = (): string => join(repoRoot(), 'test', 'fixtures', 'ur-double', 'ur_test_double.c');

/** One shared library compiled at test time: its soname, C source, the libraries it links and its symbol versions. */
export interface ElfSpec {
  soname: string;
  source: string;
  /** Linked by file name (`-l:libumf.so.1`), found in the build directory or on the system: each becomes a DT_NEEDED. */
  links?: string[];
  /** A version script (`UMF_1.0 { global: umfInit; local: *; };`): the symbol versions other libraries then need. */
  versionScript?: string;
}

/**
 * The fixture build compiles the same library into many directories (hwloc, UMF and the link stubs beside each UR
 * release): within one process each distinct build runs once, keyed by the compiler, the inputs and the bytes of
 * what it links from `dir`, and a repeat writes the same bytes to its directory.
 */
const compiled = new Map<string, Promise<Buffer>>();

async function compileOnce(dir: string, file: string, inputs: unknown, linked: string[], build: () => Promise<Buffer>): Promise<Buffer> {
  await mkdir(dir, { recursive: true });
  const linkedBytes = await Promise.all(linked.map((l) => readFile(join(dir, l)).then(sha256, () => 'system')));
  const key = sha256(JSON.stringify([inputs, linked, linkedBytes]));
  let p = compiled.get(key);
  if (!p) {
    p = build();
    compiled.set(key, p);
    p.catch(() => compiled.delete(key));
    return p;
  }
  const bytes = await p;
  await writeFile(join(dir, file), bytes, { mode: 0o755 });
  return bytes;
}

/** Compiles `spec` with `cc` into `dir` (where earlier builds are linked from). */
export function compileElf(spec: ElfSpec, dir: string): Promise<Buffer> {
  return compileOnce(dir, spec.soname, ['elf', process.env.CC || 'cc', spec], spec.links ?? [], () => compileElfNow(spec, dir));
}

async function compileElfNow(spec: ElfSpec, dir: string): Promise<Buffer> {
  const src = join(dir, `${spec.soname}.c`);
  await writeFile(src, spec.source);
  const args = ['-shared', '-fPIC', '-O2', `-Wl,-soname,${spec.soname}`, '-o', join(dir, spec.soname), src, `-L${dir}`, '-Wl,--no-as-needed'];
  for (const l of spec.links ?? []) args.push(`-l:${l}`);
  if (spec.versionScript) {
    const map = join(dir, `${spec.soname}.map`);
    await writeFile(map, spec.versionScript);
    args.push(`-Wl,--version-script=${map}`);
  }
  await pipeThrough(process.env.CC || 'cc', args, Buffer.alloc(0));
  return readFile(join(dir, spec.soname));
}

const EXPORT = '__attribute__((visibility("default")))';

/** UMF's soname by major version: UMF 1.x is libumf.so.1, 0.x libumf.so.0. */
export const umfSoname = (umfVersion: string): string => `libumf.so.${umfVersion.startsWith('0.') ? 0 : 1}`;

/** The symbol version node a UMF release defines (and every library linked against it then needs). */
const umfVersionNode = (umfVersion: string): string => `UMF_${umfVersion.split('.').slice(0, 2).join('.')}`;

/** Where Debian 12's libhwloc15 (a test prerequisite) puts hwloc. */
export const HOST_HWLOC = '/usr/lib/x86_64-linux-gnu/libhwloc.so.15';

/**
 * hwloc as tcmlib and conda-forge's libhwloc ship it: the real library, Debian 12's libhwloc.so.15 (hwloc 2.9, NEEDs
 * libudev, libm, libc), copied into `dir` for the libraries built there to link against. Not a stub: a prefix's env
 * files put it ahead of the host's hwloc for every program they start, and PoCL (the reference driver's back end)
 * needs hwloc's whole API.
 */
export async function realHwloc(dir: string): Promise<Buffer> {
  const data = await readFile(HOST_HWLOC).catch((e: NodeJS.ErrnoException) => {
    throw new Error(`${HOST_HWLOC}: ${e.code ?? e.message}; install Debian's libhwloc15 (scripts/test-packages.txt lists it)`);
  });
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'libhwloc.so.15'), data);
  return data;
}

/** UMF: needs libhwloc.so.15 and defines a version node per release, as the real libumf does. */
export const umfElf = (version: string): ElfSpec => ({
  soname: umfSoname(version),
  source: `extern unsigned hwloc_get_api_version(void);\n${EXPORT} int umfInit(void) { return (int)hwloc_get_api_version(); }\n${EXPORT} const char xpu_setup_fixture_umf[] = "xpu-setup fixture libumf ${version}";\n`,
  links: ['libhwloc.so.15'],
  versionScript: `${umfVersionNode(version)} { global: umfInit; xpu_setup_fixture_umf; local: *; };\n`,
});

/** tcmlib's libtcm.so.1 (the thread composability manager) or its libtcm_debug.so.1 twin; both need hwloc. */
export const tcmElf = (version: string, soname = 'libtcm.so.1'): ElfSpec => ({
  soname,
  source: `extern unsigned hwloc_get_api_version(void);\n${EXPORT} int tcmGetVersionInfo(void) { return (int)hwloc_get_api_version(); }\n${EXPORT} const char xpu_setup_fixture_tcm[] = "xpu-setup fixture ${soname} ${version}";\n`,
  links: ['libhwloc.so.15'],
});

/** A library that only exists to be linked against (never shipped): `libze_loader.so.1` with the entry points the adapters call. */
const zeLoaderLinkStub = (calls: readonly string[] = []): ElfSpec => ({
  soname: 'libze_loader.so.1',
  source: ['zeDriverGet', ...calls].map((f) => `${EXPORT} int ${f}(void *a, void *b) { (void)a; (void)b; return 0; }\n`).join(''),
});

/**
 * A test double of a newer Level Zero loader (not the real libze_loader): it exports `zeDriverGet` and `calls` (the
 * functions loader 1.25 added that 2026 UR adapters call), each answering 0, so an adapter linked against them loads.
 */
export const zeLoaderDouble = (calls: readonly string[]): ElfSpec => {
  const stub = zeLoaderLinkStub(calls);
  return { ...stub, source: `${stub.source}${EXPORT} const char xpu_setup_fixture_loader[] = "xpu-setup test double of libze_loader (exports ${calls.join(', ')})";\n` };
};

/** The functions loader 1.25.0 added that the 2026 UR Level Zero adapters call (intel/torch-xpu-ops#4787). */
export const LOADER_1_25_CALLS = ['zeDeviceSynchronize', 'zeCommandListAppendLaunchKernelWithArguments'] as const;

/** Where the forwarding loader double's package keeps the real loader it forwards to: under lib/, off the library path. */
export const FORWARDED_LOADER_DIR = 'xpu-setup-loader-double';

/**
 * A test double of a Level Zero loader `version` >= 1.25, for want of a real one that loads on Debian 12 (sid's
 * libze1 needs GLIBC_2.38 and GLIBCXX_3.4.32). It is `libze_loader.so.1` exporting every C function the real loader
 * `real` exports, each a jump into that loader (dlopened from `lib/xpu-setup-loader-double/<realFile>` beside the
 * double), and `adds`, which answer ZE_RESULT_ERROR_UNSUPPORTED_FEATURE; zelLoaderGetVersions reports `version` for
 * the loader. So zeInit, drivers and layers are the real loader's; only the 1.25 entry points are not.
 */
export async function forwardingLoaderDouble(version: string, real: string, adds: readonly string[]): Promise<ElfSpec> {
  const realFile = posix.basename(real);
  const own = new Set(['zelLoaderGetVersions', ...adds]);
  const { stdout } = await execFileP('nm', ['-D', '--defined-only', '--format=posix', real]);
  const names = [...new Set(stdout.split('\n').flatMap((l) => {
    const n = /^(ze[lst]?[A-Z]\w*) [TW] /.exec(l)?.[1];
    return n && !own.has(n) ? [n] : [];
  }))].sort();
  if (!names.includes('zeInit')) throw new Error(`${realFile}: no zeInit in its dynamic symbols: not a Level Zero loader`);
  const [major, minor, patch] = version.split('.').map(Number);
  const jumps = names.map((n, i) => `".globl ${n}\\n.type ${n}, @function\\n${n}:\\n\\tjmp *xpu_setup_forward+${i * 8}(%rip)\\n.size ${n}, .-${n}\\n"`);
  const source = `#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
${EXPORT} const char xpu_setup_fixture_loader[] = "xpu-setup test double of libze_loader ${version}: forwards to the real ${realFile}, adds ${adds.join(', ')}";
static const char *const xpu_setup_names[${names.length}] = { ${names.map((n) => `"${n}"`).join(', ')} };
__attribute__((visibility("hidden"))) void *xpu_setup_forward[${names.length}];
__asm__(".text\\n"
${jumps.join('\n')});
typedef struct { int major, minor, patch; } xpu_setup_version_t;
typedef struct { char name[64]; uint32_t spec; xpu_setup_version_t lib; } xpu_setup_component_t;
static int (*xpu_setup_real_versions)(size_t *, xpu_setup_component_t *);
${EXPORT} int zelLoaderGetVersions(size_t *n, xpu_setup_component_t *v) {
  int r = xpu_setup_real_versions ? xpu_setup_real_versions(n, v) : 0x78000003;
  if (r == 0 && v) for (size_t i = 0; i < *n; i++) if (!strcmp(v[i].name, "loader")) v[i].lib = (xpu_setup_version_t){ ${major}, ${minor}, ${patch} };
  return r;
}
${adds.map((f) => `${EXPORT} int ${f}(void) { return 0x78000003; }`).join('\n')}
__attribute__((constructor)) static void xpu_setup_forward_init(void) {
  Dl_info self;
  if (!dladdr((void *)&xpu_setup_forward_init, &self) || !self.dli_fname) abort();
  const char *slash = strrchr(self.dli_fname, '/');
  char path[4096];
  snprintf(path, sizeof path, "%.*s/${FORWARDED_LOADER_DIR}/${realFile}", slash ? (int)(slash - self.dli_fname) : 1, slash ? self.dli_fname : ".");
  void *real = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!real) { fprintf(stderr, "xpu-setup loader double: %s\\n", dlerror()); abort(); }
  for (size_t i = 0; i < ${names.length}; i++) xpu_setup_forward[i] = dlsym(real, xpu_setup_names[i]);
  xpu_setup_real_versions = (int (*)(size_t *, xpu_setup_component_t *))dlsym(real, "zelLoaderGetVersions");
}
`;
  return { soname: 'libze_loader.so.1', source };
}

/** How a UR release's Level Zero adapters are built: the loader functions they call beyond zeDriverGet, and `-z now`. */
export interface UrAdapterBuild {
  /** Loader functions the adapters call (the 2026 adapters: zeDeviceSynchronize, zeCommandListAppendLaunchKernelWithArguments). */
  zeCalls?: readonly string[];
  /** Linked with `-z now`, as the real adapters are: every symbol binds when the adapter loads. */
  bindNow?: boolean;
}

/**
 * Compiles the UR test double with `cc`: libur_loader.so.0 with the entry points, the adapters as marker-only stubs,
 * each with its own soname and the real adapters' dependencies: the Level Zero adapters NEED the UMF of `umfVersion`
 * (with its symbol version) and libze_loader.so.1, the OpenCL adapter libOpenCL.so.1. Like adapters built before
 * 2026-03, they carry no RUNPATH.
 */
export async function compileUrDouble(version: string, outDir: string, umfVersion: string, adapters: UrAdapterBuild = {}): Promise<Map<string, Buffer>> {
  await mkdir(outDir, { recursive: true });
  const cc = process.env.CC || 'cc';
  const zeCalls = ['zeDriverGet', ...(adapters.zeCalls ?? [])];
  // What the adapters link against; built here, shipped by other packages (umf, tcmlib, level-zero).
  await realHwloc(outDir);
  await compileElf(umfElf(umfVersion), outDir);
  await compileElf(zeLoaderLinkStub(adapters.zeCalls), outDir);
  const uses = join(outDir, 'adapter-uses.c');
  await writeFile(
    uses,
    `extern int umfInit(void);\n${zeCalls.map((f) => `extern int ${f}(void *, void *);\n`).join('')}${EXPORT} int xpu_setup_adapter_uses(void) { return umfInit()${zeCalls.map((f) => ` + ${f}(0, 0)`).join('')}; }\n`,
  );
  const openclUses = join(outDir, 'opencl-uses.c');
  await writeFile(openclUses, `extern int clGetPlatformIDs(unsigned, void *, unsigned *);\n${EXPORT} int xpu_setup_adapter_uses(void) { return clGetPlatformIDs(0, 0, 0); }\n`);
  const built = await Promise.all(
    UR_LINUX_LIBS.map(async (lib) => {
      const file = join(outDir, lib);
      const needs =
        lib === 'libur_loader.so.0'
          ? []
          : lib === 'libur_adapter_opencl.so.0'
            ? [openclUses, '-Wl,--no-as-needed', '-l:libOpenCL.so.1']
            : [uses, `-L${outDir}`, '-Wl,--no-as-needed', `-l:${umfSoname(umfVersion)}`, '-l:libze_loader.so.1', ...(adapters.bindNow ? ['-Wl,-z,now'] : [])];
      const args = [
        '-shared', '-fPIC', '-O2', '-fvisibility=hidden', `-Wl,-soname,${lib}`,
        `-DXPU_SETUP_UR_DOUBLE_VERSION="${version}"`,
        ...(lib === 'libur_loader.so.0' ? [] : ['-DXPU_SETUP_UR_ADAPTER_STUB']),
        '-o', file, urDoubleSource(), ...needs,
      ];
      await pipeThrough(cc, args, Buffer.alloc(0));
      return [lib, await readFile(file)] as const;
    }),
  );
  return new Map(built);
}

// ---------------------------------------------------------------------------------------------------------
// Windows DLLs, cross-built with mingw-w64: real PE files whose import tables name what the real ones import
// ---------------------------------------------------------------------------------------------------------

/** The mingw-w64 C compiler that scripts/test-packages-windows.txt installs. */
export const MINGW_CC = process.env.MINGW_CC || 'x86_64-w64-mingw32-gcc-posix';

/** One DLL compiled at test time: its file name, C source (text, or a file), and the DLLs it imports. */
export interface PeSpec {
  name: string;
  source: string | { file: string };
  /** DLLs built earlier in the same directory, by file name (`umf.dll`): each becomes an entry of the import table. */
  imports?: string[];
  /** More C source, compiled in beside `source`: calls into the imports, so the linker keeps each (it drops unused ones). */
  uses?: string;
  defines?: string[];
}

/**
 * Compiles `spec` with mingw-w64 into `dir`. Stripped and without the link time stamp, so every build gives the same
 * bytes; besides what `imports` names, mingw's DLLs import KERNEL32.dll and msvcrt.dll.
 */
export async function compilePe(spec: PeSpec, dir: string): Promise<Buffer> {
  const source = typeof spec.source === 'string' ? spec.source : await readFile(spec.source.file, 'utf8');
  return compileOnce(dir, spec.name, ['pe', MINGW_CC, { ...spec, source }], spec.imports ?? [], () => compilePeNow(spec, dir));
}

async function compilePeNow(spec: PeSpec, dir: string): Promise<Buffer> {
  let src: string;
  if (typeof spec.source === 'string') {
    src = join(dir, `${spec.name}.c`);
    await writeFile(src, spec.source);
  } else src = spec.source.file;
  const out = join(dir, spec.name);
  const args = ['-shared', '-O2', '-s', '-Wl,--no-insert-timestamp', ...(spec.defines ?? []).map((d) => `-D${d}`), '-o', out, src];
  if (spec.uses) {
    const uses = join(dir, `${spec.name}.uses.c`);
    await writeFile(uses, spec.uses);
    args.push(uses);
  }
  args.push(`-L${dir}`);
  for (const dll of spec.imports ?? []) args.push(`-l:${dll}`);
  await pipeThrough(MINGW_CC, args, Buffer.alloc(0));
  return readFile(out);
}

const DLLEXPORT = '__declspec(dllexport)';

/** hwloc as the tcmlib wheel ships it on Windows: libhwloc-15.dll. */
const hwlocDll = (): PeSpec => ({ name: 'libhwloc-15.dll', source: `${DLLEXPORT} unsigned hwloc_get_api_version(void) { return 0x20b00; }\n` });

/** umf.dll (UMF 0.x and 1.x alike), which imports libhwloc-15.dll. */
const umfDll = (version: string): PeSpec => ({
  name: 'umf.dll',
  source: `extern __declspec(dllimport) unsigned hwloc_get_api_version(void);\n${DLLEXPORT} int umfInit(void) { return (int)hwloc_get_api_version(); }\n${DLLEXPORT} const char xpu_setup_fixture_umf[] = "xpu-setup fixture umf.dll ${version}";\n`,
  imports: ['libhwloc-15.dll'],
});

/** tcm.dll, which imports libhwloc-15.dll. */
const tcmDll = (version: string): PeSpec => ({
  name: 'tcm.dll',
  source: `extern __declspec(dllimport) unsigned hwloc_get_api_version(void);\n${DLLEXPORT} int tcmGetVersionInfo(void) { return (int)hwloc_get_api_version(); }\n${DLLEXPORT} const char xpu_setup_fixture_tcm[] = "xpu-setup fixture tcm.dll ${version}";\n`,
  imports: ['libhwloc-15.dll'],
});

/** A stand-in ze_loader.dll: zeInit answers ZE_RESULT_ERROR_UNINITIALIZED, as a loader without a driver does. */
const zeLoaderDll = (version: string): PeSpec => ({
  name: 'ze_loader.dll',
  source: `${DLLEXPORT} int zeInit(int flags) { (void)flags; return 0x78000001; }\n${DLLEXPORT} int zeDriverGet(void *a, void *b) { (void)a; (void)b; return 0x78000001; }\n${DLLEXPORT} const char xpu_setup_fixture_ze_loader[] = "xpu-setup fixture ze_loader.dll ${version}";\n`,
});

/** A layer DLL of the Level Zero package (the loader loads it; it imports nothing of the stack). */
const zeLayerDll = (name: string, version: string): PeSpec => ({
  name,
  source: `${DLLEXPORT} const char xpu_setup_fixture_layer[] = "xpu-setup fixture ${name} ${version}";\n`,
});

/** Only linked against, never shipped: Windows has OpenCL.dll in System32 (the GPU driver's ICD loader). */
const openclLinkStub = (): PeSpec => ({ name: 'OpenCL.dll', source: `${DLLEXPORT} int clGetPlatformIDs(unsigned n, void *p, unsigned *c) { (void)n; (void)p; (void)c; return -1001; }\n` });

/** umf.dll of one UMF release, as its win_amd64 wheel ships it (linked against a libhwloc-15.dll built beside it). */
export async function compileUmfWindows(umfVersion: string, outDir: string): Promise<Buffer> {
  await compilePe(hwlocDll(), outDir);
  return compilePe(umfDll(umfVersion), outDir);
}

/** The tcmlib wheel's DLLs: tcm.dll and the libhwloc-15.dll it imports. */
export async function compileTcmWindows(tcmVersion: string, outDir: string): Promise<Map<string, Buffer>> {
  const hwloc = await compilePe(hwlocDll(), outDir);
  return new Map([['tcm.dll', await compilePe(tcmDll(tcmVersion), outDir)], ['libhwloc-15.dll', hwloc]]);
}

/** The Level Zero package's DLLs: the loader and its two layers. */
export async function compileL0WindowsDouble(version: string, outDir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  out.set('ze_loader.dll', await compilePe(zeLoaderDll(version), outDir));
  for (const layer of ['ze_tracing_layer.dll', 'ze_validation_layer.dll']) out.set(layer, await compilePe(zeLayerDll(layer, version), outDir));
  return out;
}

/**
 * The UR test double for Windows, from the same C source as the Linux one: ur_loader.dll with the entry points, the
 * adapters and proxy loader as marker-only stubs with the real ones' imports: the Level Zero adapters import umf.dll
 * and ze_loader.dll, the OpenCL adapter OpenCL.dll.
 */
export async function compileUrWindowsDouble(version: string, outDir: string, umfVersion: string): Promise<Map<string, Buffer>> {
  await Promise.all([compileUmfWindows(umfVersion, outDir), compilePe(zeLoaderDll('link'), outDir), compilePe(openclLinkStub(), outDir)]);
  const double = (name: string, imports: string[] = [], uses?: string): PeSpec => ({
    name,
    source: { file: urDoubleSource() },
    defines: [`XPU_SETUP_UR_DOUBLE_VERSION="${version}"`, ...(name === 'ur_loader.dll' ? [] : ['XPU_SETUP_UR_ADAPTER_STUB'])],
    imports,
    uses,
  });
  const usesL0 = `extern __declspec(dllimport) int umfInit(void);\nextern __declspec(dllimport) int zeDriverGet(void *, void *);\nint xpu_setup_adapter_uses(void) { return umfInit() + zeDriverGet(0, 0); }\n`;
  const usesOpenCl = `extern __declspec(dllimport) int clGetPlatformIDs(unsigned, void *, unsigned *);\nint xpu_setup_adapter_uses(void) { return clGetPlatformIDs(0, 0, 0); }\n`;
  const specs: PeSpec[] = [
    double('ur_loader.dll'),
    double('ur_adapter_level_zero.dll', ['umf.dll', 'ze_loader.dll'], usesL0),
    double('ur_adapter_level_zero_v2.dll', ['umf.dll', 'ze_loader.dll'], usesL0),
    double('ur_adapter_opencl.dll', ['OpenCL.dll'], usesOpenCl),
    double('ur_win_proxy_loader.dll'),
  ];
  return new Map(await Promise.all(specs.map(async (spec) => [spec.name, await compilePe(spec, outDir)] as const)));
}

// ---------------------------------------------------------------------------------------------------------
// Runtime libraries: conda-forge's GCC 14 runtime packages and a Level Zero 1.29.0 built with GCC 14
// ---------------------------------------------------------------------------------------------------------

/** A symbol name for a version node: `GLIBCXX_3.4.33` -> `xpu_setup_fixture_GLIBCXX_3_4_33`. */
const nodeSymbol = (node: string): string => `xpu_setup_fixture_${node.replace(/\W/g, '_')}`;

/**
 * A test double of a runtime library: it defines the symbol version nodes the real library defines (one marker symbol
 * each, chained as the real version script chains them) and nothing else. Never load it in a real program: it is
 * not the library, only its version definitions, so it stays in packages no probe or smoke test installs.
 */
export function versionedDouble(soname: string, nodes: string[], links: string[] = [], uses = ''): ElfSpec {
  const source = [...nodes.map((n) => `${EXPORT} int ${nodeSymbol(n)}(void) { return 0; }`), uses].join('\n') + '\n';
  const script = nodes.map((n, i) => `${n} { global: ${nodeSymbol(n)};${i === 0 ? ' local: *;' : ''} }${i ? ` ${nodes[i - 1]}` : ''};`).join('\n') + '\n';
  return { soname, source, links, versionScript: script };
}

const range = (prefix: string, last: number, from = 1): string[] => Array.from({ length: last - from + 1 }, (_, i) => `${prefix}.${from + i}`);

/** libstdc++'s version nodes up to GCC `gcc` (12: GLIBCXX_3.4.30, 13: 3.4.32, 14: 3.4.33; CXXABI_1.3.13 / .14 / .15). */
export function libstdcxxNodes(gcc: 12 | 13 | 14): string[] {
  const glibcxx = { 12: 30, 13: 32, 14: 33 }[gcc];
  const cxxabi = { 12: 13, 13: 14, 14: 15 }[gcc];
  return ['GLIBCXX_3.4', ...range('GLIBCXX_3.4', glibcxx), 'CXXABI_1.3', ...range('CXXABI_1.3', cxxabi), 'CXXABI_TM_1', 'CXXABI_FLOAT128'];
}

const LIBGCC_S_14 = ['GCC_3.0', 'GCC_3.3', 'GCC_3.3.1', 'GCC_3.4', 'GCC_3.4.2', 'GCC_3.4.4', 'GCC_4.0.0', 'GCC_4.2.0', 'GCC_4.3.0', 'GCC_4.7.0', 'GCC_4.8.0', 'GCC_7.0.0', 'GCC_12.0.0', 'GCC_13.0.0', 'GCC_14.0.0'];
const LIBGOMP_14 = [
  'OMP_1.0', 'OMP_2.0', 'OMP_3.0', 'OMP_3.1', 'OMP_4.0', 'OMP_4.5', 'OMP_5.0', 'OMP_5.0.1', 'OMP_5.0.2', 'OMP_5.1', 'OMP_5.1.1', 'OMP_5.2',
  'GOMP_1.0', 'GOMP_2.0', 'GOMP_3.0', 'GOMP_4.0', 'GOMP_4.0.1', 'GOMP_4.5', 'GOMP_5.0', 'GOMP_5.0.1', 'GOMP_5.1', 'GOMP_5.1.1', 'GOMP_5.1.2',
  'OACC_2.0', 'OACC_2.0.1', 'OACC_2.5', 'OACC_2.5.1', 'OACC_2.6', 'GOACC_2.0', 'GOACC_2.0.1', 'GOACC_2.0.2',
  'GOMP_PLUGIN_1.0', 'GOMP_PLUGIN_1.1', 'GOMP_PLUGIN_1.2', 'GOMP_PLUGIN_1.3', 'GOMP_PLUGIN_1.4',
];

/** The Level Zero and GCC runtime versions of the runtime-library fixtures, as conda-forge publishes them. */
export const RUNTIME_FIXTURE = {
  l0: '1.29.0',
  gcc: { version: '14.2.0', build: 'h767d61c_2', libstdcxxBuild: 'h8f9b012_2' },
  openmpMutex: { version: '4.5', build: '2_gnu', buildNumber: 16 },
  libgccMutex: { version: '0.1', build: 'conda_forge' },
} as const;

/**
 * conda-forge's `level-zero` 1.29.0 as built with GCC 14 (run_exports `libgcc >=14`, `libstdcxx >=14`,
 * `__glibc >=2.17`), and the GCC 14.2.0 runtime packages with their real depends chain (`libstdcxx` pins `libgcc`
 * exactly, `libgcc` needs `_openmp_mutex`, which links `libgomp.so.1` to libgomp's file). The loader is a test double
 * compiled here that NEEDs `libstdc++.so.6` at GLIBCXX_3.4.33 (Debian 12 tops at 3.4.30), linked against a double
 * of that library; every library here is such a double (see versionedDouble), so no test runs a program with them.
 */
async function runtimeLibraryPackages(work: string, headersFrom: DebSet, conda: (spec: CondaSpec, format: 'conda' | 'tar.bz2', platform: FixturePlatform) => void): Promise<void> {
  // The C++ runtime and the loader are linked in a directory of their own: libstdc++'s libgcc_s is this system's.
  const dir = join(work, 'gcc14', 'cxx');
  const { l0, gcc, openmpMutex, libgccMutex } = RUNTIME_FIXTURE;
  const libgccS = await compileElf(versionedDouble('libgcc_s.so.1', LIBGCC_S_14), join(work, 'gcc14', 'gcc'));
  const libgomp = await compileElf(versionedDouble('libgomp.so.1', LIBGOMP_14), join(work, 'gcc14', 'gcc'));
  // Like the real one, the C++ runtime needs libgcc_s (its unwinder): at GCC_3.0, which every libgcc_s has.
  const cxxUses = `extern void _Unwind_Resume(void *);\n${EXPORT} void xpu_setup_fixture_unwind(void *e) { _Unwind_Resume(e); }`;
  const libstdcxx = await compileElf(versionedDouble('libstdc++.so.6', libstdcxxNodes(14), ['libgcc_s.so.1'], cxxUses), dir);
  const loader = await compileElf(
    {
      soname: 'libze_loader.so.1',
      source: `extern int ${nodeSymbol('GLIBCXX_3.4.33')}(void);\n${EXPORT} int zeInit(int flags) { (void)flags; return ${nodeSymbol('GLIBCXX_3.4.33')}(); }\n${EXPORT} const char xpu_setup_fixture_loader[] = "xpu-setup test double of libze_loader ${l0} (GCC 14 build)";\n`,
      links: ['libstdc++.so.6'],
    },
    dir,
  );
  const glibc = '__glibc >=2.17,<3.0.a0';
  const file = (path: string, data: Buffer): ArchiveEntry => ({ path, type: 'file', data, mode: 0o755 });
  const link = (path: string, target: string): ArchiveEntry => ({ path, type: 'symlink', target });
  const build = condaBuild('level-zero', l0, 'linux-64', 0);
  conda(
    {
      name: 'level-zero', version: l0, build, buildNumber: 0, subdir: 'linux-64',
      depends: [glibc, `libgcc >=14`, `libstdcxx >=14`],
      payload: [file(`lib/libze_loader.so.${l0}`, loader), link('lib/libze_loader.so.1', `libze_loader.so.${l0}`)],
    },
    'conda',
    'linux-x64',
  );
  const headers = await walk(headersFrom.includeDir, 'include');
  conda(
    {
      name: 'level-zero-devel', version: l0, build: condaBuild('level-zero-devel', l0, 'linux-64', 0), buildNumber: 0, subdir: 'linux-64',
      depends: [`level-zero ==${l0} ${build}`],
      payload: [...headers, link('lib/libze_loader.so', 'libze_loader.so.1')],
    },
    'conda',
    'linux-x64',
  );
  conda(
    {
      name: 'libstdcxx', version: gcc.version, build: gcc.libstdcxxBuild, buildNumber: 2, subdir: 'linux-64',
      depends: [glibc, `libgcc ${gcc.version} ${gcc.build}`], license: 'GPL-3.0-only WITH GCC-exception-3.1',
      payload: [file('lib/libstdc++.so.6.0.33', libstdcxx), link('lib/libstdc++.so.6', 'libstdc++.so.6.0.33')],
    },
    'conda',
    'linux-x64',
  );
  conda(
    {
      name: 'libgcc', version: gcc.version, build: gcc.build, buildNumber: 2, subdir: 'linux-64',
      depends: [glibc, '_openmp_mutex >=4.5'], constrains: [`libgomp ${gcc.version} ${gcc.build}`, `libgcc-ng ==${gcc.version}=*_2`],
      license: 'GPL-3.0-only WITH GCC-exception-3.1',
      payload: [file('lib/libgcc_s.so.1', libgccS)],
    },
    'conda',
    'linux-x64',
  );
  conda(
    {
      name: 'libgomp', version: gcc.version, build: gcc.build, buildNumber: 2, subdir: 'linux-64',
      depends: [glibc], license: 'GPL-3.0-only WITH GCC-exception-3.1',
      payload: [file('lib/libgomp.so.1.0.0', libgomp)],
    },
    'conda',
    'linux-x64',
  );
  conda(
    {
      name: '_openmp_mutex', version: openmpMutex.version, build: openmpMutex.build, buildNumber: openmpMutex.buildNumber, subdir: 'linux-64',
      depends: [`_libgcc_mutex ${libgccMutex.version} ${libgccMutex.build}`, 'libgomp >=7.5.0'], constrains: ['openmp_impl 9999'], license: 'BSD-3-Clause',
      payload: [link('lib/libgomp.so.1', 'libgomp.so.1.0.0')],
    },
    'tar.bz2',
    'linux-x64',
  );
  conda(
    { name: '_libgcc_mutex', version: libgccMutex.version, build: libgccMutex.build, buildNumber: 0, subdir: 'linux-64', license: 'None', payload: [] },
    'tar.bz2',
    'linux-x64',
  );
}

// ---------------------------------------------------------------------------------------------------------
// The fixture set
// ---------------------------------------------------------------------------------------------------------

/** The UR releases the tests name by role; every release of UR_UMF is built as a wheel. */
const UR_VERSIONS = { older: '2025.2.0', newer: '2026.1.0', yanked: '2026.2.0' } as const;

/**
 * Each UR release's UMF, as the real packages pin it: `intel-cmplr-lib-ur 2025.3.x` requires `umf ==1.0.*`, 2026.x
 * `umf ==1.1.*`. 2025.3.1 and 2025.3.2 are what torch 2.10 and 2.11 pin (with umf 1.0.2 / 1.0.3 and tcmlib 1.4.1).
 */
const UR_UMF: Record<string, string> = {
  '2025.2.0': '0.11.0',
  '2025.3.1': '1.0.2',
  '2025.3.2': '1.0.3',
  '2026.0.0': '1.1.0',
  '2026.1.0': '1.1.0',
  '2026.2.0': '1.1.0',
};
/** UMF releases and the tcmlib each requires (`umf 1.0.x` -> `tcmlib >=1.4`, `umf 1.1.0` -> `tcmlib >=1.5`). */
const UMF_TCM: Record<string, string> = { '0.11.0': '>=1.4', '1.0.2': '>=1.4', '1.0.3': '>=1.4', '1.1.0': '>=1.5' };
const TCM_VERSIONS = ['1.4.1', '1.5.0'];
/** `1.0.2` -> `==1.0.*`: how the UR wheels pin UMF. */
const minorPin = (v: string): string => `==${v.split('.').slice(0, 2).join('.')}.*`;
/** conda-forge's libhwloc: the real file and the soname link to it. */
const HWLOC_CONDA = { version: '2.11.2', file: 'libhwloc.so.15.8.0' };
export const UR_YANKED_REASON = 'xpu-setup fixture: yanked release';
export const SDK_VERSION_SUITE = 'trixie';

/** conda-forge style build string: a hash of what varies plus the build number. */
function condaBuild(name: string, version: string, subdir: string, buildNumber: number): string {
  return `h${sha256(`${name}-${version}-${subdir}`).slice(0, 7)}_${buildNumber}`;
}

/**
 * The win-64 conda records of UR and what it depends on, as the Intel channel and conda-forge publish them for Windows:
 * intel-cmplr-lib-ur with its exact runtime and UMF, umf on libhwloc, each with the Windows runtime packages conda-build
 * adds, and every DLL in `Library/bin`. `urDlls`: each UR release's DLLs, as its wheel ships them.
 */
async function urWindowsCondaSpecs(work: string, urDlls: Map<string, Map<string, Buffer>>): Promise<CondaSpec[]> {
  const runtime = ['ucrt >=10.0.20348.0', 'vc14_runtime >=14.29.30139'];
  const bin = (dlls: Iterable<[string, Buffer]>): ArchiveEntry[] => [...dlls].map(([dll, data]) => ({ path: `Library/bin/${dll}`, type: 'file', data }));
  const record = (name: string, version: string, buildNumber: number, depends: string[], payload: ArchiveEntry[], build = condaBuild(name, version, 'win-64', buildNumber)): CondaSpec => ({
    name, version, build, buildNumber, subdir: 'win-64', depends: [...depends, ...runtime], payload,
  });
  const specs = [record('libhwloc', HWLOC_CONDA.version, 0, [], bin([['libhwloc-15.dll', await compilePe(hwlocDll(), join(work, 'hwloc'))]]))];
  for (const [role, version] of [['older', UR_VERSIONS.older], ['newer', UR_VERSIONS.newer]] as const) {
    const umf = UR_UMF[version]!;
    const intelBuild = role === 'older' ? 1001 : 1002;
    const ur = record('intel-cmplr-lib-ur', version, intelBuild, [`intel-cmplr-lib-rt ==${version}`, `umf ==${umf}`], bin(urDlls.get(version)!), `intel_${intelBuild}`);
    specs.push({ ...ur, constrains: role === 'newer' ? ['level-zero >=1.20.2,<2.0a0'] : [], license: 'LicenseRef-xpu-setup-test-double' });
    specs.push(record('umf', umf, 0, [`libhwloc >=${HWLOC_CONDA.version},<2.11.3.0a0`], bin([['umf.dll', await compileUmfWindows(umf, join(work, 'umf', umf))]])));
    const sycl = await compilePe({ name: 'sycl8.dll', source: `${DLLEXPORT} const char xpu_setup_fixture_sycl[] = "xpu-setup fixture intel-cmplr-lib-rt ${version}";\n` }, join(work, 'rt', version));
    specs.push({ ...record('intel-cmplr-lib-rt', version, intelBuild, [], bin([['sycl8.dll', sycl]]), `intel_${intelBuild}`), license: 'LicenseRef-xpu-setup-test-double' });
  }
  return specs;
}

/** How each UR release's Linux Level Zero adapters are linked: `-z now`, and from 2026 on calling what loader 1.25 added. */
export const urAdapterBuild = (version: string): UrAdapterBuild => ({ bindNow: true, zeCalls: Number(version.split('.')[0]) >= 2026 ? LOADER_1_25_CALLS : [] });

interface Planned {
  make: () => Promise<BuiltPackage>;
  meta: Pick<FixtureArtifact, 'format' | 'name' | 'version' | 'platform'>;
  conda?: () => CondaIndexJson;
  wheel?: { requiresPython?: string; yanked?: string };
}

async function planAll(debs: Record<'bookworm' | 'trixie', DebSet>, sid: SidDebs, work: string): Promise<Planned[]> {
  const plans: Planned[] = [];

  const condaPlan = (spec: CondaSpec, format: 'conda' | 'tar.bz2', platform: FixturePlatform): void => {
    let index: CondaIndexJson | undefined;
    plans.push({
      meta: { format, name: spec.name, version: spec.version, platform },
      make: async () => {
        const built = await buildCondaPackage(spec, format);
        index = built.index;
        return built;
      },
      conda: () => index!,
    });
  };

  // Level Zero: which build numbers and formats each version needs for the channels of index-server.ts.
  const l0Builds: { deb: DebSet; buildNumber: number; formats: ('conda' | 'tar.bz2')[] }[] = [
    { deb: debs.bookworm, buildNumber: 0, formats: ['conda', 'tar.bz2'] },
    { deb: debs.trixie, buildNumber: 0, formats: ['conda', 'tar.bz2'] },
    { deb: debs.trixie, buildNumber: 1, formats: ['conda'] },
    { deb: debs.trixie, buildNumber: 2, formats: ['conda'] },
  ];
  for (const { deb, buildNumber, formats } of l0Builds) {
    const v = deb.version;
    // conda-build renders an exact pin as "name version build"; rattler-build (newer feedstocks) adds "==".
    const pin = (build: string): string => (deb.suite === 'bookworm' ? `level-zero ${v} ${build}` : `level-zero ==${v} ${build}`);
    const timestamp = FIXTURE_MTIME_MS + buildNumber * 3_600_000;
    const linux = await l0LinuxPayloads(deb);
    const win = await l0WindowsPayloads(deb, work);
    for (const [subdir, payloads, platform, runDeps] of [
      ['linux-64', linux, 'linux-x64', ['__glibc >=2.17,<3.0.a0', 'libgcc >=13', 'libstdcxx >=13']],
      ['win-64', win, 'win-x64', ['ucrt >=10.0.20348.0', 'vc >=14.3', 'vc14_runtime >=14.40.33810']],
    ] as const) {
      const build = condaBuild('level-zero', v, subdir, buildNumber);
      for (const format of formats) {
        condaPlan(
          { name: 'level-zero', version: v, build, buildNumber, subdir, depends: [...runDeps], timestamp, payload: payloads.runtime },
          format,
          platform,
        );
        condaPlan(
          {
            name: 'level-zero-devel',
            version: v,
            build: condaBuild('level-zero-devel', v, subdir, buildNumber),
            buildNumber,
            subdir,
            depends: [pin(build)],
            timestamp,
            payload: payloads.devel,
          },
          format,
          platform,
        );
      }
    }
  }

  // A Level Zero >= 1.25 as conda-forge's level-zero and level-zero-devel lay it out: no real one loads on Debian 12,
  // so its loader is the forwarding double over Debian 12's real 1.8.12, its headers sid's real ones of that version.
  const newer = sid.l0Version;
  const realLoader = (await walk(debs.bookworm.libDir, 'lib')).find((e) => e.type === 'file' && /^lib\/libze_loader\.so\.\d+\.\d+\.\d+$/.test(e.path));
  if (realLoader?.type !== 'file') throw new Error(`${debs.bookworm.libDir}: no libze_loader.so.1.x.y`);
  const realFile = posix.basename(realLoader.path);
  const double = await compileElf(await forwardingLoaderDouble(newer, join(debs.bookworm.libDir, realFile), LOADER_1_25_CALLS), join(work, 'l0-double', newer));
  const layers = (await walk(debs.bookworm.libDir, 'lib')).filter((e) => /^libze_(tracing|validation)_layer\.so\.\d/.test(posix.basename(e.path)));
  const newerBuild = condaBuild('level-zero', newer, 'linux-64', 0);
  condaPlan(
    {
      name: 'level-zero', version: newer, build: newerBuild, buildNumber: 0, subdir: 'linux-64',
      depends: ['__glibc >=2.17,<3.0.a0', 'libgcc >=13', 'libstdcxx >=13'], license: 'LicenseRef-xpu-setup-test-double',
      payload: [
        { path: `lib/libze_loader.so.${newer}`, type: 'file', data: double, mode: 0o755 },
        { path: 'lib/libze_loader.so.1', type: 'symlink', target: `libze_loader.so.${newer}` },
        { path: `lib/${FORWARDED_LOADER_DIR}/${realFile}`, type: 'file', data: realLoader.data, mode: 0o755 },
        ...layers,
      ],
    },
    'conda',
    'linux-x64',
  );
  const sidPcs = (await walk(join(sid.libDir, 'pkgconfig'), 'lib/pkgconfig')).map((e) => (e.type === 'file' ? { ...e, data: Buffer.from(condaForgePc(e.data.toString('utf8'))) } : e));
  condaPlan(
    {
      name: 'level-zero-devel', version: newer, build: condaBuild('level-zero-devel', newer, 'linux-64', 0), buildNumber: 0, subdir: 'linux-64',
      depends: [`level-zero ==${newer} ${newerBuild}`], license: 'LicenseRef-xpu-setup-test-double',
      payload: [...(await walk(sid.includeDir, 'include')), { path: 'lib/libze_loader.so', type: 'symlink', target: 'libze_loader.so.1' }, ...sidPcs],
    },
    'conda',
    'linux-x64',
  );

  // For Windows, as the other releases: the ze_loader.dll stand-in and its layers, sid's headers, the import libraries.
  const newerWin = await l0WindowsPayloads({ ...debs.bookworm, version: newer, includeDir: sid.includeDir }, work);
  const newerWinBuild = condaBuild('level-zero', newer, 'win-64', 0);
  const winDeps = ['ucrt >=10.0.20348.0', 'vc >=14.3', 'vc14_runtime >=14.40.33810'];
  condaPlan({ name: 'level-zero', version: newer, build: newerWinBuild, buildNumber: 0, subdir: 'win-64', depends: winDeps, payload: newerWin.runtime }, 'conda', 'win-x64');
  condaPlan(
    { name: 'level-zero-devel', version: newer, build: condaBuild('level-zero-devel', newer, 'win-64', 0), buildNumber: 0, subdir: 'win-64', depends: [`level-zero ==${newer} ${newerWinBuild}`], payload: newerWin.devel },
    'conda',
    'win-x64',
  );

  // Unified Runtime: the test double, as PyPI wheels and as linux-64 and win-64 conda packages.
  const urWheelSummary = "xpu-setup test double of Intel's Unified Runtime libraries (not the real intel-cmplr-lib-ur)";
  const urWinDlls = new Map<string, Map<string, Buffer>>();
  const condaRole = (version: string): 'older' | 'newer' | undefined =>
    version === UR_VERSIONS.older ? 'older' : version === UR_VERSIONS.newer ? 'newer' : undefined;
  // Each release's libraries and DLLs differ only in the version they carry; they are compiled side by side.
  const urBuilds = await Promise.all(
    Object.entries(UR_UMF).map(([version, umf]) =>
      Promise.all([compileUrDouble(version, join(work, 'ur', version), umf, urAdapterBuild(version)), compileUrWindowsDouble(version, join(work, 'ur-win', version), umf)]),
    ),
  );
  for (const [i, [version, umf]] of Object.entries(UR_UMF).entries()) {
    const [libs, dlls] = urBuilds[i]!;
    urWinDlls.set(version, dlls);
    const requiresDist = [`umf${minorPin(umf)}`];
    const dist = `${wheelDistName('intel-cmplr-lib-ur')}-${version}`;
    const yanked = version === UR_VERSIONS.yanked ? UR_YANKED_REASON : undefined;
    const role = condaRole(version);
    plans.push({
      meta: { format: 'wheel', name: 'intel-cmplr-lib-ur', version, platform: 'linux-x64' },
      make: () =>
        buildWheel({
          name: 'intel-cmplr-lib-ur',
          version,
          tag: 'py2.py3-none-manylinux_2_28_x86_64',
          summary: urWheelSummary,
          requiresDist,
          files: [...libs].map(([lib, data]) => ({ path: `${dist}.data/data/lib/${lib}`, data, mode: 0o755 })),
        }),
    });
    plans.push({
      meta: { format: 'wheel', name: 'intel-cmplr-lib-ur', version, platform: 'win-x64' },
      make: () =>
        buildWheel({
          name: 'intel-cmplr-lib-ur',
          version,
          tag: 'py2.py3-none-win_amd64',
          summary: urWheelSummary,
          requiresDist,
          files: [...dlls].map(([dll, data]) => ({ path: `${dist}.data/data/Library/bin/${dll}`, data })),
        }),
    });
    if (yanked) for (const plan of plans.slice(-2)) plan.wheel = { yanked };
    if (role) {
      condaPlan(
        {
          name: 'intel-cmplr-lib-ur',
          version,
          build: `intel_${role === 'older' ? 1001 : 1002}`,
          buildNumber: role === 'older' ? 1001 : 1002,
          subdir: 'linux-64',
          // As the Intel channel's records: exact runtime and UMF; the newer one also bounds the Level Zero beside it.
          depends: ['__glibc >=2.28', `intel-cmplr-lib-rt ==${version}`, `umf ==${umf}`],
          constrains: role === 'newer' ? ['level-zero >=1.20.2,<2.0a0'] : [],
          license: 'LicenseRef-xpu-setup-test-double',
          payload: [...libs].map(([lib, data]) => ({ path: `lib/${lib}`, type: 'file' as const, data, mode: 0o755 })),
        },
        'conda',
        'linux-x64',
      );
    }
  }

  // What UR needs at load time, from the packages that ship it: UMF and tcmlib wheels (tcmlib carries hwloc), and on
  // conda the runtime, UMF and libhwloc records its depends name.
  const linuxWheel = (name: string, version: string, libs: [string, Buffer][], requiresDist: string[]): Planned => ({
    meta: { format: 'wheel', name, version, platform: 'linux-x64' },
    make: () =>
      buildWheel({
        name,
        version,
        tag: 'py2.py3-none-manylinux_2_28_x86_64',
        summary: `xpu-setup test double of ${name} (not the real package)`,
        requiresDist,
        files: libs.map(([lib, data]) => ({ path: `${wheelDistName(name)}-${version}.data/data/lib/${lib}`, data, mode: 0o755 })),
      }),
  });
  const windowsWheel = (name: string, version: string, dlls: Map<string, Buffer>, requiresDist: string[]): Planned => ({
    meta: { format: 'wheel', name, version, platform: 'win-x64' },
    make: () =>
      buildWheel({
        name,
        version,
        tag: 'py2.py3-none-win_amd64',
        summary: `xpu-setup test double of ${name} (not the real package)`,
        requiresDist,
        files: [...dlls].map(([dll, data]) => ({ path: `${wheelDistName(name)}-${version}.data/data/Library/bin/${dll}`, data })),
      }),
  });
  const hwloc = await realHwloc(join(work, 'hwloc'));
  for (const [version, tcm] of Object.entries(UMF_TCM)) {
    const lib = await compileElf(umfElf(version), join(work, 'umf', version));
    plans.push(linuxWheel('umf', version, [[umfSoname(version), lib]], [`tcmlib${tcm}`]));
    plans.push(windowsWheel('umf', version, new Map([['umf.dll', await compileUmfWindows(version, join(work, 'umf-win', version))]]), [`tcmlib${tcm}`]));
    if (Object.entries(UR_UMF).some(([ur, u]) => u === version && condaRole(ur))) {
      condaPlan(
        {
          name: 'umf',
          version,
          build: condaBuild('umf', version, 'linux-64', 0),
          buildNumber: 0,
          subdir: 'linux-64',
          depends: ['__glibc >=2.17,<3.0.a0', `libhwloc >=${HWLOC_CONDA.version},<2.11.3.0a0`],
          payload: [{ path: `lib/${umfSoname(version)}`, type: 'file', data: lib, mode: 0o755 }],
        },
        'conda',
        'linux-x64',
      );
    }
  }
  for (const version of TCM_VERSIONS) {
    const tcm = await compileElf(tcmElf(version), join(work, 'tcm', version));
    const tcmDebug = await compileElf(tcmElf(version, 'libtcm_debug.so.1'), join(work, 'tcm', version));
    plans.push(
      linuxWheel('tcmlib', version, [['libtcm.so.1', tcm], ['libtcm_debug.so.1', tcmDebug], ['libhwloc.so.15', hwloc]], []),
    );
    plans.push(windowsWheel('tcmlib', version, await compileTcmWindows(version, join(work, 'tcm-win', version)), []));
  }
  condaPlan(
    {
      name: 'libhwloc',
      version: HWLOC_CONDA.version,
      build: condaBuild('libhwloc', HWLOC_CONDA.version, 'linux-64', 0),
      buildNumber: 0,
      subdir: 'linux-64',
      depends: ['__glibc >=2.17,<3.0.a0', 'libgcc >=13'],
      payload: [
        { path: `lib/${HWLOC_CONDA.file}`, type: 'file', data: hwloc, mode: 0o755 },
        { path: 'lib/libhwloc.so.15', type: 'symlink', target: HWLOC_CONDA.file },
      ],
    },
    'conda',
    'linux-x64',
  );
  for (const version of [UR_VERSIONS.older, UR_VERSIONS.newer]) {
    const sycl = await compileElf(
      { soname: 'libsycl.so.8', source: `${EXPORT} const char xpu_setup_fixture_sycl[] = "xpu-setup fixture intel-cmplr-lib-rt ${version}";\n` },
      join(work, 'rt', version),
    );
    condaPlan(
      {
        name: 'intel-cmplr-lib-rt',
        version,
        build: `intel_${version === UR_VERSIONS.older ? 1001 : 1002}`,
        buildNumber: version === UR_VERSIONS.older ? 1001 : 1002,
        subdir: 'linux-64',
        depends: ['__glibc >=2.28'],
        license: 'LicenseRef-xpu-setup-test-double',
        payload: [{ path: 'lib/libsycl.so.8', type: 'file', data: sycl, mode: 0o755 }],
      },
      'conda',
      'linux-x64',
    );
  }

  await runtimeLibraryPackages(work, debs.trixie, condaPlan);
  for (const spec of await urWindowsCondaSpecs(join(work, 'conda-win'), urWinDlls)) condaPlan(spec, 'conda', 'win-x64');

  // The unrelated PyPI project that owns the name `level-zero`, by a stand-in wheel.
  plans.push({
    meta: { format: 'wheel', name: 'level-zero', version: '0.1.0', platform: 'any' },
    make: () =>
      buildWheel({
        name: 'level-zero',
        version: '0.1.0',
        tag: 'py3-none-any',
        requiresPython: '>=3.6',
        summary: "Stand-in for the unrelated PyPI project 'level-zero' (building floor numbering); not Intel's Level Zero",
        files: [
          {
            path: 'level_zero/__init__.py',
            data: Buffer.from('"""xpu-setup test stand-in for the unrelated PyPI project level-zero (floor numbering)."""\n'),
          },
        ],
      }),
  });
  plans[plans.length - 1]!.wheel = { requiresPython: '>=3.6' };

  // The Windows SDK zip of the GitHub release: include/ and lib/ at the top (layout as users describe it).
  const sdk = debs[SDK_VERSION_SUITE];
  plans.push({
    meta: { format: 'zip', name: 'level-zero-win-sdk', version: sdk.version, platform: 'win-x64' },
    make: async () => {
      const headers = (await walk(sdk.includeDir, 'include')).flatMap((e) => (e.type === 'file' ? [e] : []));
      const files = [...headers, { path: 'lib/ze_loader.lib', type: 'file' as const, data: windowsDouble('ze_loader.lib', sdk.version) }];
      const bytes = await zipBuffer(files, true);
      return {
        filename: `level-zero-win-sdk-${sdk.version}.zip`,
        bytes,
        members: files.map((f) => ({ path: f.path, type: 'file' as const, size: f.data.length, sha256: sha256(f.data) })),
      };
    },
  });
  return plans;
}

async function inputKey(debs: Record<'bookworm' | 'trixie', DebSet>, sid: SidDebs): Promise<string> {
  const h = createHash('sha256');
  h.update(`format ${BUILD_FORMAT}\n`);
  h.update(await readFile(fileURLToPath(import.meta.url)));
  h.update(await readFile(urDoubleSource()));
  for (const set of Object.values(debs)) {
    h.update(await readFile(set.debs.libze1));
    h.update(await readFile(set.debs.libzeDev));
  }
  h.update(await readFile(sid.debs['libze-dev']!));
  return h.digest('hex').slice(0, 16);
}

/**
 * Where a built package is kept: win-64 conda packages in a folder of their own, since the Intel channel gives a
 * release the same file name in every subdir (`intel-cmplr-lib-ur-2025.2.0-intel_1001.conda`).
 */
const cachedFile = (dir: string, filename: string, subdir?: CondaSubdir): string => (subdir === 'win-64' ? join(dir, 'win-64', filename) : join(dir, filename));

async function loadManifest(dir: string): Promise<FixturePackages | undefined> {
  const file = join(dir, 'manifest.json');
  if (!existsSync(file)) return undefined;
  const manifest = JSON.parse(await readFile(file, 'utf8')) as FixturePackages;
  manifest.dir = dir;
  for (const a of manifest.artifacts) {
    a.path = cachedFile(dir, a.filename, a.conda?.subdir);
    const st = await stat(a.path).catch(() => undefined);
    if (st?.size !== a.size) return undefined;
  }
  return manifest;
}

/** Like Promise.all over `items.map(fn)`, with at most `limit` running (each spawns a compressor). */
async function mapLimited<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

async function buildInto(dir: string, debs: Record<'bookworm' | 'trixie', DebSet>, sid: SidDebs): Promise<FixturePackages> {
  const work = await mkdtemp(join(tmpdir(), 'xpu-setup-fixture-build-'));
  try {
    const plans = await planAll(debs, sid, work);
    const artifacts = await mapLimited(
      plans,
      4,
      async (plan): Promise<FixtureArtifact> => {
        const built = await plan.make();
        const file = cachedFile(dir, built.filename, plan.conda?.().subdir);
        await mkdir(dirname(file), { recursive: true });
        await writeFile(file, built.bytes);
        const artifact: FixtureArtifact = {
          ...plan.meta,
          filename: built.filename,
          path: file,
          sha256: sha256(built.bytes),
          md5: md5(built.bytes),
          size: built.bytes.length,
          members: built.members,
        };
        if (plan.conda) artifact.conda = plan.conda();
        if ('metadata' in built && typeof built.metadata === 'string') {
          artifact.wheel = { ...plan.wheel, metadata: built.metadata, metadataSha256: sha256(built.metadata) };
        }
        return artifact;
      },
    );
    return {
      dir,
      l0Versions: { bookworm: debs.bookworm.version, trixie: debs.trixie.version, newer: sid.l0Version },
      urVersions: { ...UR_VERSIONS },
      urClosure: Object.fromEntries(
        Object.entries(UR_UMF).map(([ur, umf]) => [
          ur,
          { umf, tcmlib: TCM_VERSIONS.filter((t) => Number(t.split('.')[1]) >= Number(UMF_TCM[umf]!.split('.')[1])).at(-1)! },
        ]),
      ),
      artifacts,
    };
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

let memo: Promise<FixturePackages> | undefined;

/**
 * Builds (or loads from the cache) every fixture package. The cache key covers this file, the UR double's
 * source and the .deb files; parallel test processes build side by side and the first rename wins.
 */
export function buildFixturePackages(): Promise<FixturePackages> {
  memo ??= (async () => {
    const [debs, sid] = await Promise.all([ensureDebs(), ensureSidDebs()]);
    const root = join(fixtureCacheDir(), 'packages');
    const dir = join(root, await inputKey(debs, sid));
    const cached = await loadManifest(dir);
    if (cached) return cached;
    // Only a complete build is ever renamed into place, so one that fails the check was damaged later
    // (looked at twice: another process may have just renamed its build into place).
    if (existsSync(dir) && !(await loadManifest(dir))) await rm(dir, { recursive: true, force: true });
    await mkdir(root, { recursive: true });
    const tmp = join(root, `.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
    await mkdir(tmp);
    try {
      const built = await buildInto(tmp, debs, sid);
      await writeFile(join(tmp, 'manifest.json'), JSON.stringify(built, null, 1));
      await rename(tmp, dir).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
      });
    } finally {
      await rm(tmp, { recursive: true, force: true });
    }
    const result = await loadManifest(dir);
    if (!result) throw new Error(`fixture build in ${dir} is incomplete`);
    return result;
  })();
  memo.catch(() => (memo = undefined));
  return memo;
}
