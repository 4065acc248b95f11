// conda's index format: repodata.json (v1, and v2 with info.base_url) as records and as candidates with absolute URLs,
// and the runtime packages a closure on a conda channel asks for next. Imports nothing of the index readers, so the
// gateway, the scanners and the conda source all read it.
import { escapeControls, fieldsWithoutControls } from '../base/control-chars.js';
import { XpuError } from '../base/errors.js';
import { urlFromIndex } from '../net/url-rule.js';

/**
 * The GCC runtime packages conda-forge's compilers put in every C/C++ package's run dependencies (`run_exports`), and
 * the metadata-only packages that hold them together: what a closure on a conda channel asks for next.
 */
export const CONDA_RUNTIME_PACKAGES: readonly string[] = ['libstdcxx', 'libstdcxx-ng', 'libgcc', 'libgcc-ng', 'libgomp', '_openmp_mutex', '_libgcc_mutex'];

export interface RepodataRecord {
  name: string;
  version: string;
  build: string;
  build_number: number;
  depends?: string[];
  constrains?: string[];
  sha256?: string;
  md5?: string;
  size?: number;
  subdir?: string;
  timestamp?: number;
}

export interface Repodata {
  info?: { subdir?: string; base_url?: string };
  repodata_version?: number;
  packages?: Record<string, RepodataRecord>;
  'packages.conda'?: Record<string, RepodataRecord>;
  removed?: string[];
}

export interface CondaCandidate extends RepodataRecord {
  filename: string;
  url: string;
}

function joinUrl(base: string, file: string): string {
  return base.endsWith('/') ? base + file : `${base}/${file}`;
}

/**
 * Flattens a repodata document into candidates with absolute URLs; `.conda` and `.tar.bz2` both kept. `document` is
 * what a refusal names (a shard, read as part of the subdir's repodata).
 */
export function parseRepodata(doc: Repodata, repodataUrl: string, document = repodataUrl): CondaCandidate[] {
  if (!doc || typeof doc !== 'object' || (!doc.packages && !doc['packages.conda'])) {
    throw new XpuError('BAD_INDEX', `${repodataUrl} is not conda repodata (no "packages")`, {
      details: { url: repodataUrl },
      hints: ['check the channel URL: it should be the directory that holds <subdir>/repodata.json'],
    });
  }
  const dir = repodataUrl.slice(0, repodataUrl.lastIndexOf('/') + 1);
  const base = doc.repodata_version === 2 && doc.info?.base_url ? urlFromIndex(doc.info.base_url, repodataUrl, 'info.base_url') : dir;
  const removed = new Set(doc.removed ?? []);
  const out: CondaCandidate[] = [];
  for (const [key, table] of [['packages.conda', doc['packages.conda']], ['packages', doc.packages]] as const) {
    for (const [filename, rec] of Object.entries(table ?? {})) {
      if (removed.has(filename)) continue;
      // What plans and messages print: a control character there would move the cursor or forge a line.
      const at = `${key}["${escapeControls(filename)}"]`;
      fieldsWithoutControls({ filename, name: rec.name, version: rec.version, build: rec.build, subdir: rec.subdir, depends: rec.depends, constrains: rec.constrains }, at, document);
      out.push({ ...rec, filename, url: joinUrl(base, filename) });
    }
  }
  return out;
}
