// A local npm registry on 127.0.0.1 that npm and npx speak to: a packument per package name and its tarballs, built
// from `npm pack` of directories (the project, koffi as installed, a trivial package), nothing fetched from elsewhere.
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

export interface NpmRegistry {
  /** http://127.0.0.1:PORT/ */
  url: string;
  /** Every request path, in order (`/xpu-setup`, `/-/xpu-setup-0.1.0.tgz`, ...). */
  requests: string[];
  close(): Promise<void>;
}

interface Version { manifest: Record<string, unknown>; tarball?: Buffer }

/** `npm pack` of a directory (its own lifecycle scripts not run) into `dest`; the tarball's path. */
export async function npmPack(dir: string, dest: string, env?: Record<string, string | undefined>): Promise<string> {
  const r = await execa('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dest, dir], { env: { ...process.env, ...env, npm_config_update_notifier: 'false' } });
  return path.join(dest, (JSON.parse(r.stdout) as { filename: string }[])[0]!.filename);
}

/** The package.json inside an npm tarball. */
async function manifestOf(tgz: string): Promise<Record<string, unknown>> {
  const r = await execa('tar', ['xzOf', tgz, 'package/package.json']);
  return JSON.parse(r.stdout) as Record<string, unknown>;
}

/**
 * Serves `tarballs` (paths of packed packages). A package's optional dependency that is not among them is answered
 * with a packument whose only version names the platform its name says (`@koromix/koffi-darwin-arm64`), so npm skips it
 * for this machine as it would from the public registry, and its tarball is never asked for.
 */
export async function startNpmRegistry(tarballs: string[]): Promise<NpmRegistry> {
  const packages = new Map<string, Map<string, Version>>();
  const add = (name: string, version: string, v: Version) => {
    if (!packages.has(name)) packages.set(name, new Map());
    packages.get(name)!.set(version, v);
  };
  for (const tgz of tarballs) {
    const manifest = await manifestOf(tgz);
    add(manifest.name as string, manifest.version as string, { manifest, tarball: await fs.readFile(tgz) });
  }
  for (const { manifest } of [...packages.values()].flatMap((m) => [...m.values()])) {
    for (const [name, range] of Object.entries((manifest.optionalDependencies ?? {}) as Record<string, string>)) {
      if (packages.has(name)) continue;
      const [, os, cpu] = /-([a-z0-9]+)-([a-z0-9]+)$/.exec(name) ?? [];
      add(name, range, { manifest: { name, version: range, os: [os ?? 'none'], cpu: [cpu ?? 'none'] } });
    }
  }
  const requests: string[] = [];
  let base = '';
  const tarballPath = (name: string, version: string) => `/-/${name.replace('/', '__')}-${version}.tgz`;
  const files = new Map<string, Buffer>();
  const packument = (name: string) => {
    const versions = packages.get(name)!;
    const entries = [...versions].map(([version, v]) => {
      const dist = v.tarball
        ? { tarball: `${base}${tarballPath(name, version).slice(1)}`, shasum: createHash('sha1').update(v.tarball).digest('hex'), integrity: `sha512-${createHash('sha512').update(v.tarball).digest('base64')}` }
        : { tarball: `${base}-/absent/${encodeURIComponent(name)}-${version}.tgz`, shasum: '0'.repeat(40), integrity: `sha512-${Buffer.alloc(64).toString('base64')}` };
      if (v.tarball) files.set(tarballPath(name, version), v.tarball);
      return [version, { ...v.manifest, _id: `${name}@${version}`, dist }] as const;
    });
    return { name, 'dist-tags': { latest: entries[entries.length - 1]![0] }, versions: Object.fromEntries(entries) };
  };
  const server: Server = createServer((req, res) => {
    const url = decodeURIComponent((req.url ?? '/').split('?')[0]!);
    requests.push(url);
    const name = url.slice(1);
    if (packages.has(name)) {
      const body = Buffer.from(JSON.stringify(packument(name)));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length });
      return res.end(body);
    }
    const file = files.get(url);
    if (file) {
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': file.length });
      return res.end(file);
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end('{"error":"not found"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  for (const name of packages.keys()) packument(name);
  return {
    url: base,
    requests,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** What npm and npx read in a fresh HOME: this registry alone, an empty cache of their own, no user config. */
export function freshNpmEnv(home: string, registry: string): Record<string, string> {
  return {
    HOME: home,
    npm_config_registry: registry,
    npm_config_cache: path.join(home, '.npm'),
    npm_config_userconfig: path.join(home, '.npmrc'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
    npm_config_yes: 'true',
  };
}

/** A package with one bin that prints its name: the floor `npx` costs for any package from the same registry. */
export async function trivialPackage(dir: string, name = 'npx-floor'): Promise<string> {
  await fs.mkdir(path.join(dir, 'bin'), { recursive: true });
  await fs.writeFile(path.join(dir, 'package.json'), JSON.stringify({ name, version: '1.0.0', license: 'MIT', bin: { [name]: 'bin/cli.js' } }));
  await fs.writeFile(path.join(dir, 'bin', 'cli.js'), `#!/usr/bin/env node\nconsole.log(${JSON.stringify(name)});\n`, { mode: 0o755 });
  return dir;
}
