// PyPI-style indexes: a project's files read through the gateway (simple-index.ts is the format); wheel tag choice.
import { XpuError } from '../errors.js';
import type { Host } from '../host/types.js';
import { layoutFor } from '../host/index.js';
import type { PypiSourceSpec } from '../manifest/schema.js';
import { gatewayFor } from './gateway.js';
import { normalizeName, type IndexFile } from './simple-index.js';
import { meetsAll, type Constraint } from './order.js';
import { comparePep440, isPep440PreRelease, loadPep440 } from './pep440.js';
import { inRange } from './version.js';
import { NotAvailable, type Resolution, type SourceContext } from './types.js';

export const DEFAULT_INDEX_URL = 'https://pypi.org/simple';

export interface WheelName {
  name: string;
  version: string;
  pythonTags: string[];
  abiTags: string[];
  platformTags: string[];
}

export function parseWheelFilename(filename: string): WheelName | undefined {
  if (!filename.endsWith('.whl')) return undefined;
  const parts = filename.slice(0, -4).split('-');
  if (parts.length !== 5 && parts.length !== 6) return undefined;
  const [name, version] = parts;
  const [py, abi, plat] = parts.slice(-3);
  return { name: name!, version: version!, pythonTags: py!.split('.'), abiTags: abi!.split('.'), platformTags: plat!.split('.') };
}

/** How well a platform tag fits the host: higher is better, undefined means it cannot be installed. */
export function platformTagScore(tag: string, host: Host): number | undefined {
  return tag === 'any' ? 0 : layoutFor(host.platform).wheelTagScore(tag, host.glibc);
}

export function selectWheel(files: IndexFile[], project: string, host: Host, range?: string, constraints: readonly Constraint[] = []): IndexFile | undefined {
  const want = normalizeName(project);
  let best: { f: IndexFile; version: string; score: number } | undefined;
  for (const f of files) {
    if (f.yanked || !f.sha256) continue;
    const w = parseWheelFilename(f.filename);
    if (!w || normalizeName(w.name) !== want || isPep440PreRelease(w.version) || !inRange('pypi', w.version, range) || !meetsAll(w.version, constraints, 'pep440')) continue;
    const scores = w.platformTags.map((t) => platformTagScore(t, host)).filter((s): s is number => s !== undefined);
    if (!scores.length) continue;
    const score = Math.max(...scores);
    if (!best || comparePep440(w.version, best.version) > 0 || (w.version === best.version && score > best.score)) {
      best = { f, version: w.version, score };
    }
  }
  return best?.f;
}

export async function resolvePypi(spec: PypiSourceSpec, ctx: SourceContext): Promise<Resolution> {
  await loadPep440();
  const indexUrl = ctx.indexUrl ?? DEFAULT_INDEX_URL;
  const archives = [];
  for (const project of spec.packages) {
    let files: IndexFile[];
    try {
      files = await (ctx.gateway ?? gatewayFor(ctx.deps)).pypiProjectFiles(indexUrl, project);
    } catch (e) {
      if (e instanceof XpuError && e.code === 'NOT_FOUND') {
        // A 404 for the project's page is all a mistyped index URL gives too: say both readings.
        throw new NotAvailable(`${project} not found on ${indexUrl} (HTTP 404: it has no ${project}, or it is not a PyPI simple index: check the URL)`);
      }
      throw e;
    }
    const f = selectWheel(files, project, ctx.host, spec.versions, ctx.constraints);
    const unconstrained = !f && ctx.constraints?.length ? selectWheel(files, project, ctx.host, spec.versions) : undefined;
    if (unconstrained) {
      const v = parseWheelFilename(unconstrained.filename)!.version;
      throw new NotAvailable(`newest ${project} wheel on ${indexUrl} is ${v}, which does not meet ${ctx.constraints!.map((c) => c.text).join(', ')}`);
    }
    if (!f) {
      const noHash = files.some((x) => !x.sha256 && !x.yanked);
      throw new NotAvailable(
        `no ${project} wheel for ${ctx.host.platform}${ctx.host.glibc ? ` (glibc ${ctx.host.glibc})` : ''} on ${indexUrl}` +
          (noHash ? ' (files without sha256 are never used)' : ''),
      );
    }
    const w = parseWheelFilename(f.filename)!;
    archives.push({ package: project, version: w.version, filename: f.filename, url: f.url, sha256: f.sha256!, size: f.size, format: 'wheel' as const, map: spec.map });
  }
  return { source: 'pypi', origin: indexUrl, version: archives[0]!.version, archives };
}
