// Before a new tree replaces the prefix: each component's libraries load in a child process and its headers compile, on this host.
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { Deps } from '../base/deps.js';
import { layoutFor, nodeLayout } from '../platform/index.js';
import { SHARED_LIBRARY } from '../formats/elf.js';
import { tryLoadEach } from '../machine/load-check.js';
import type { InstallPlan, PlannedComponent } from '../records/plan.js';
import { findCompilers, firstGnuOnPath } from './compilers.js';

const LIBRARY = { elf: SHARED_LIBRARY, pe: /\.dll$/i } as const;

function firstLines(text: string, n = 3): string {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).slice(0, n).join(' / ');
}

/**
 * What would be wrong with `component` in `stagingDir` once it is the prefix; empty when it works. A loader that
 * needs a newer libstdc++ than this system has, or a header that does not compile, fails here instead of after the
 * working prefix is gone. Runs while other archives may still be unpacking into the tree.
 */
export async function checkStagedComponent(stagingDir: string, component: PlannedComponent, plan: InstallPlan, deps: Deps): Promise<string[]> {
  if (!plan.host.native) return [];
  const required = component.provides.filter((p) => p.required);
  const layout = nodeLayout(deps.platform);
  const libPattern = LIBRARY[layout.binaryFormat];
  const root = await fs.realpath(stagingDir);
  // Every library on its own (tryLoadEach), all through one process start, beside the compile.
  const loads = async (): Promise<string[]> => {
    const problems: string[] = [];
    const inside: { path: string; real: string }[] = [];
    for (const p of required.filter((x) => libPattern.test(x.path))) {
      // Loaded by its real path, proven inside the tree now: a link chain that later archives complete cannot
      // send the load elsewhere (the whole tree's links are checked again once every archive is in).
      const real = await fs.realpath(path.join(stagingDir, ...p.path.split('/'))).catch(() => undefined);
      if (real === undefined) continue; // Missing files are reported by the install stage with the package named.
      if (real.startsWith(root + path.sep)) inside.push({ path: p.path, real });
      else problems.push(`${p.path} resolves outside the new tree, to ${real}`);
    }
    // As a program started from the env files finds them: the tree's library directories first (where a runtime
    // library package put a newer libstdc++, say).
    const env: Record<string, string> = {};
    for (const v of layout.searchPathVars.filter((x) => x.runtime)) {
      env[v.name] = [layout.path.join(root, v.dir), deps.env[v.name]].filter(Boolean).join(layout.pathSep);
    }
    const results = await tryLoadEach(deps, inside.map((l) => l.real), env);
    results.forEach((r, i) => {
      if (r.ok) return;
      const d = r.diagnosis;
      problems.push(`${inside[i]!.path} does not load on this system: ${d?.summary ?? r.error}${d?.kind === 'glibcxx' ? " (on Debian/Ubuntu, `xpu-setup --source apt` installs the distribution's own loader)" : ''}`);
    });
    return problems;
  };
  const compile = async (): Promise<string[]> => {
    const headers = required.filter((x) => /\.h$/.test(x.path));
    // The check speaks GCC's flags; MSVC's headers check is the addon build.
    if (!headers.length || layout.compilerSearch !== 'gnu') return [];
    // Each header goes to the compiler as an argument (-include), never inside C source text: a prefix whose path holds
    // `"` or a newline cannot be written in an #include line, but an argument takes any path as it is.
    const includes = headers.flatMap((h) => ['-include', path.join(stagingDir, ...h.path.split('/'))]);
    const compileWith = (cc: string) =>
      deps.exec(cc, ['-fsyntax-only', '-x', 'c', '-I', path.join(stagingDir, 'include'), ...includes, '-'], { input: 'int main(void) { return 0; }\n', timeoutMs: 60_000 });
    // The compiler on PATH is tried as it is; only a failure asks which compiler answers at all (a process each), so a
    // broken or missing compiler is passed over rather than blamed on the headers.
    const onPath = await firstGnuOnPath(deps, 'c');
    const first = onPath ? await compileWith(onPath) : undefined;
    if (first?.exitCode === 0) return [];
    const cc = (await findCompilers(deps, 'c', { firstGnu: true })).found.find((c) => c.style === 'gnu')?.path;
    if (!cc) return [];
    const r = cc === onPath && first ? first : await compileWith(cc);
    return r.exitCode === 0 ? [] : [`${headers.map((h) => h.path).join(', ')} does not compile with ${cc}: ${firstLines(r.stderr) || r.failedToStart || `exit ${r.exitCode}`}`];
  };
  return (await Promise.all([loads(), compile()])).flat();
}

/** What the whole-tree check found: problems refuse the tree; notes say what it took on trust. */
export interface TreeCheck {
  problems: string[];
  notes: string[];
}

/**
 * What would be missing once the whole new tree is the prefix: every shared library in its library directories must
 * find each library it needs, with each symbol version it needs, in the tree or on this machine; on Windows every DLL
 * and EXE each DLL it imports. Read from the files (no process, no library code run), after every archive is in, so a
 * library another component brings counts. A Windows tree is checked from any system (its own DLLs then taken as
 * present, and said so); a Linux tree only on Linux, where the system's libraries can be read. Every tree, for any
 * platform: each library and program is built for the platform's CPU.
 */
export async function checkStagedTree(stagingDir: string, plan: InstallPlan, deps: Deps): Promise<TreeCheck> {
  const [{ unmetLibraryNeeds, unmetDllImports, describeUnmet }, { foreignBinaries }] = await Promise.all([import('../machine/library-needs.js'), import('../machine/binary-arch.js')]);
  const target = layoutFor(plan.platform);
  const foreign = await foreignBinaries(stagingDir, [...target.prefixLibDirs, target.sharedLibDir, 'bin'].filter((d, i, all) => all.indexOf(d) === i), target);
  if (target.binaryFormat === 'pe') {
    const r = await unmetDllImports(deps, stagingDir, target.prefixLibDirs);
    const notes = r.assumed.length
      ? [`this system is not Windows: the Windows DLLs the new tree imports (${r.assumed.join(', ')}) were taken as present, as Windows 10 or later, its GPU driver or the Visual C++ Redistributable bring them`]
      : [];
    return { problems: [...foreign, ...r.damaged, ...r.unmet.map(describeUnmet)], notes };
  }
  if (!plan.host.native) return { problems: foreign, notes: [] };
  const { readLdconfig } = await import('../machine/ldconfig.js');
  const ldcache = (await readLdconfig(deps)).found;
  const unmet = await unmetLibraryNeeds(deps, stagingDir, nodeLayout(deps.platform).prefixLibDirs, ldcache);
  return { problems: [...foreign, ...unmet.map(describeUnmet)], notes: [] };
}
