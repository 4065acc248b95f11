// Which versions of named Python distributions (triton, torch, ...) a Python has: read by running that Python, or, for
// the active venv or conda env, from the names of its site-packages' .dist-info directories without starting Python.
import { nodeLayout } from '../platform/index.js';
import type { Deps } from '../base/deps.js';
import { normalizeName } from '../versions/pep508.js';
import { EnvVars } from '../base/env-names.js';
import type { Finding } from './types.js';

export interface PythonDists {
  /** The interpreter that answered, as it names itself (sys.executable). */
  python: string;
  /** Its version, e.g. "3.11.7". */
  pythonVersion: string;
  /** Installed version of each asked name that is installed; names that are not installed are absent. */
  versions: Record<string, string>;
}

/** Marks the answer's line, so whatever a sitecustomize prints around it is not read as the answer. */
const MARK = 'xpu-setup-dists ';

/** Asks importlib.metadata (Python 3.8+) for each name given as an argument; one JSON line out. */
const SCRIPT = [
  'import json, sys',
  'from importlib import metadata',
  'v = {}',
  'for n in sys.argv[1:]:',
  '    try: v[n] = metadata.version(n)',
  '    except metadata.PackageNotFoundError: pass',
  `print(${JSON.stringify(MARK)} + json.dumps({"python": sys.executable, "version": "%d.%d.%d" % sys.version_info[:3], "dists": v}))`,
].join('\n');

/** Pure: the answer line of SCRIPT's output; undefined when there is none or it is not the expected shape. */
export function parsePythonDists(stdout: string): PythonDists | undefined {
  const line = stdout.split(/\r?\n/).find((l) => l.startsWith(MARK));
  if (!line) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(line.slice(MARK.length));
  } catch {
    return undefined;
  }
  const d = doc as { python?: unknown; version?: unknown; dists?: unknown };
  if (typeof d.python !== 'string' || typeof d.version !== 'string' || !d.dists || typeof d.dists !== 'object') return undefined;
  const versions: Record<string, string> = {};
  for (const [k, v] of Object.entries(d.dists as Record<string, unknown>)) if (typeof v === 'string') versions[k] = v;
  return { python: d.python, pythonVersion: d.version, versions };
}

/** The interpreters to try, in order, each with where it came from: the given one, else the active env's, else PATH's. */
export function pythonCandidates(deps: Pick<Deps, 'platform' | 'env'>, python?: string): { cmd: string; from: string; mustExist: boolean }[] {
  if (python) return [{ cmd: python, from: 'given', mustExist: false }];
  const l = nodeLayout(deps.platform);
  const out: { cmd: string; from: string; mustExist: boolean }[] = [];
  for (const [name, rels] of [[EnvVars.VIRTUAL_ENV, l.pythonInVenv], [EnvVars.CONDA_PREFIX, l.pythonInConda]] as const) {
    const root = deps.env[name];
    if (root) out.push(...rels.map((r) => ({ cmd: l.path.join(root, r), from: name, mustExist: true })));
  }
  out.push(...l.pythonOnPath.map((n) => ({ cmd: n, from: 'PATH', mustExist: false })));
  return out;
}

/**
 * The installed versions of `names` in the active Python: the interpreter given, else the active venv's
 * (VIRTUAL_ENV), else the active conda env's (CONDA_PREFIX), else python3/python on PATH. The first interpreter that
 * runs answers; `found` is undefined when none did, and `tried` says what each attempt gave.
 */
export async function readPythonDistributions(deps: Deps, names: string[], python?: string): Promise<Finding<PythonDists | undefined>> {
  const tried: string[] = [];
  for (const c of pythonCandidates(deps, python)) {
    const what = `${c.cmd} (${c.from})`;
    if (c.mustExist && !(await deps.exists(c.cmd))) {
      tried.push(`${what}: not there`);
      continue;
    }
    const r = await deps.exec(c.cmd, ['-c', SCRIPT, ...names], { timeoutMs: 20_000 });
    if (r.failedToStart) {
      tried.push(`${what}: did not start (${r.failedToStart})`);
      continue;
    }
    const found = r.exitCode === 0 ? parsePythonDists(r.stdout) : undefined;
    if (!found) {
      const last = (r.stderr.trim().split(/\r?\n/).pop() ?? '').slice(0, 200);
      tried.push(`${what}: exit ${r.exitCode}${last ? `: ${last}` : ', no answer'}`);
      continue;
    }
    const listed = names.map((n) => `${n} ${found.versions[n] ?? 'not installed'}`).join(', ');
    tried.push(`${what}: Python ${found.pythonVersion} at ${found.python}${names.length ? `; ${listed}` : ''}`);
    return { found, tried };
  }
  return { found: undefined, tried };
}

/** An environment's installed versions, read from its `*.dist-info` directory names alone (no Python started). */
export interface EnvDists {
  /** The environment's directory. */
  root: string;
  /** The variable that named it. */
  from: string;
  /** Installed version of each asked name (PEP 503-normalised) that is installed. */
  versions: Record<string, string>;
}

/** Pure: `torch-2.10.0+xpu.dist-info` -> torch, 2.10.0+xpu; anything else -> undefined. */
export function parseDistInfoName(entry: string): { name: string; version: string } | undefined {
  const m = /^(.+)-([^-]+)\.dist-info$/.exec(entry);
  return m ? { name: normalizeName(m[1]!), version: m[2]! } : undefined;
}

/**
 * The distributions of the active virtual environment (VIRTUAL_ENV), else the active conda env (CONDA_PREFIX), by
 * listing their site-packages: a few directory reads, cheap enough for every run. Undefined when no environment is
 * active or none of `names` is installed in it.
 */
export async function activeEnvDistributions(deps: Deps, names: string[]): Promise<EnvDists | undefined> {
  const l = nodeLayout(deps.platform);
  const want = new Set(names.map(normalizeName));
  for (const from of [EnvVars.VIRTUAL_ENV, EnvVars.CONDA_PREFIX]) {
    const root = deps.env[from];
    if (!root) continue;
    const versions: Record<string, string> = {};
    for (const pattern of l.sitePackages) {
      for (const dir of await expandStar(deps, root, pattern.split('/'))) {
        for (const entry of (await deps.readDir(dir)) ?? []) {
          const d = parseDistInfoName(entry);
          if (d && want.has(d.name)) versions[d.name] = d.version;
        }
      }
    }
    if (Object.keys(versions).length) return { root, from, versions };
  }
  return undefined;
}

/** `root` joined with `segments`, a `*` inside a segment matching any directory entry there. */
async function expandStar(deps: Deps, root: string, segments: string[]): Promise<string[]> {
  const path = nodeLayout(deps.platform).path;
  let dirs = [root];
  for (const seg of segments) {
    if (!seg.includes('*')) {
      dirs = dirs.map((d) => path.join(d, seg));
      continue;
    }
    const re = new RegExp(`^${seg.split('*').map((p) => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`);
    const next: string[] = [];
    for (const d of dirs) for (const e of (await deps.readDir(d)) ?? []) if (re.test(e)) next.push(path.join(d, e));
    dirs = next;
  }
  return dirs;
}
