// The dependency files beside the bundle (scripts/bundle.mjs) give what xpu-setup's code takes from each, as the
// bundle requires them. This package's modules are ES modules, so esbuild hands a required file's exports over as
// their default import: for a default import the file's exports must be the thing itself.
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO } from './cli.js';

const requireFromDist = createRequire(path.join(REPO, 'dist', 'xpu-setup.cjs'));
const vendor = (name: string) => requireFromDist(`./xpu-setup-vendor-${name}.cjs`) as Record<string, unknown>;

describe('the dependency files beside the bundle', () => {
  it('ora: the default export is the spinner factory', () => {
    expect(typeof vendor('ora')).toBe('function');
  });

  it('undici: the agents and the connector the proxy path uses', () => {
    const u = vendor('undici');
    for (const k of ['Agent', 'EnvHttpProxyAgent', 'buildConnector', 'interceptors']) expect(u[k], k).toBeDefined();
  });

  it('tar: the streaming Parser', () => {
    expect(typeof vendor('tar').Parser).toBe('function');
  });

  it('yauzl: open, and the name decoder the zip readers call', () => {
    const y = vendor('yauzl');
    expect([typeof y.open, typeof y.getFileNameLowLevel]).toEqual(['function', 'function']);
  });

  it('fzstd and unbzip2-stream: the decompressors', () => {
    expect(typeof vendor('fzstd').Decompress).toBe('function');
    expect(typeof vendor('unbzip2-stream')).toBe('function');
  });

  it('@renovatebot/pep440: what src/versions/pep440.ts calls', () => {
    const p = vendor('renovatebot-pep440') as Record<string, (...a: string[]) => unknown>;
    expect([p.compare!('2.10.0+xpu', '2.10.0'), p.satisfies!('1.0.2', '==1.0.*'), p.validRange!('>=1,<2'), p.valid!('1!0.1')]).toEqual([1, true, true, '1!0.1']);
    expect(p.explain!('1.9rc1')).toMatchObject({ is_prerelease: true });
  });

  it('the bundle itself requires nothing from node_modules (koffi, a native addon, goes through createRequire)', async () => {
    const text = await import('node:fs/promises').then((fs) => fs.readFile(path.join(REPO, 'dist', 'xpu-setup.cjs'), 'utf8'));
    const required = [...text.matchAll(/require\("([^"]+)"\)/g)].map((m) => m[1]!).filter((r) => !r.startsWith('node:') && !r.startsWith('./xpu-setup-vendor-'));
    expect([...new Set(required)]).toEqual([]);
  });
});
