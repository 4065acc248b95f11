// PEP 440 versions and specifiers through @renovatebot/pep440, loaded once a run starts planning (see loadPep440).
type Engine = typeof import('@renovatebot/pep440');

let engine: Engine | undefined;

/**
 * Loads the engine, once per process. Planning awaits it before any PyPI version is read, and the manifest loader
 * when a PyPI source has a range; otherwise commands that do not plan (`--version`, `env`, `doctor`) never load it.
 */
export async function loadPep440(): Promise<void> {
  if (engine) return;
  const m = (await import('@renovatebot/pep440')) as Engine & { default?: Engine };
  engine = m.default ?? m;
}

function loaded(): Engine {
  if (!engine) throw new Error('a PEP 440 version was read before loadPep440() (planning loads it first)');
  return engine;
}

/** PEP 440 order (epoch, release, pre/post/dev, local label); a pair where either is not a PEP 440 version sorts by text. */
export function comparePep440(a: string, b: string): number {
  const e = loaded();
  if (e.valid(a) && e.valid(b)) return Math.sign(e.compare(a, b));
  return a === b ? 0 : a < b ? -1 : 1;
}

/** A pre-release or dev release, which PEP 440 leaves out unless asked for by name. */
export function isPep440PreRelease(v: string): boolean {
  return loaded().explain(v)?.is_prerelease ?? false;
}

/** Whether `spec` (`>=2025.2,<2026`, `==1.0.*`, `~=1.4`) is a PEP 440 specifier set. */
export function isPep440Specifier(spec: string): boolean {
  return loaded().validRange(spec);
}

/** Whether `v` is in the specifier set; a version that is not PEP 440 is in none. */
export function satisfiesPep440(v: string, spec: string): boolean {
  const e = loaded();
  return !!e.valid(v) && e.satisfies(v, spec);
}

/** `a OP b` for environment markers (`python_version >= "3.9"`); undefined when either side is not a PEP 440 version. */
export function pep440Holds(a: string, op: string, b: string): boolean | undefined {
  const e = loaded();
  if (!e.valid(a) || !e.valid(b)) return undefined;
  return e.satisfies(a, `${op}${b}`);
}
