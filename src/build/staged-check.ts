// Before a new tree replaces the prefix: its libraries load in a child process and its headers compile, on this host.
import * as path from 'node:path';
import type { Deps } from '../deps.js';
import { tryLoad } from '../inspect/load-check.js';
import type { InstallPlan } from '../plan/plan.js';
import { findCompilers } from './compilers.js';

const LIBRARY = { linux: /\.so(\.\d+)*$/, win32: /\.dll$/i } as const;

function firstLines(text: string, n = 3): string {
  return text.split('\n').map((l) => l.trim()).filter(Boolean).slice(0, n).join(' / ');
}

/**
 * What would be wrong with `stagingDir` as the prefix; empty when it works. A loader that needs a newer libstdc++
 * than this system has, or a header that does not compile, fails here instead of after the working prefix is gone.
 */
export async function checkStagedTree(stagingDir: string, plan: InstallPlan, deps: Deps): Promise<string[]> {
  if (!plan.host.native) return [];
  const problems: string[] = [];
  const required = plan.components.filter((c) => c.status === 'planned').flatMap((c) => c.provides.filter((p) => p.required));
  const libPattern = deps.platform === 'win32' ? LIBRARY.win32 : LIBRARY.linux;
  for (const p of required.filter((x) => libPattern.test(x.path))) {
    const r = await tryLoad(deps, path.join(stagingDir, ...p.path.split('/')));
    if (!r.ok) {
      const d = r.diagnosis;
      problems.push(`${p.path} does not load on this system: ${d?.summary ?? r.error}${d?.kind === 'glibcxx' ? " (on Debian/Ubuntu, `xpu-setup --source apt` installs the distribution's own loader)" : ''}`);
    }
  }
  const headers = required.filter((x) => /\.h$/.test(x.path));
  if (headers.length && deps.platform !== 'win32') {
    const cc = (await findCompilers(deps, 'c')).found.find((c) => c.style === 'gnu');
    if (cc) {
      const source = headers.map((h) => `#include "${path.join(stagingDir, ...h.path.split('/'))}"`).join('\n') + '\nint main(void) { return 0; }\n';
      const r = await deps.exec(cc.path, ['-fsyntax-only', '-x', 'c', '-I', path.join(stagingDir, 'include'), '-'], { input: source, timeoutMs: 60_000 });
      if (r.exitCode !== 0) problems.push(`${headers.map((h) => h.path).join(', ')} does not compile with ${cc.path}: ${firstLines(r.stderr) || r.failedToStart || `exit ${r.exitCode}`}`);
    }
  }
  return problems;
}
