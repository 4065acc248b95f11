// Which files a vitest run was asked for, for the suite-wide setups that prepare only what those files use.
import type { TestProject } from 'vitest/node';

/** The run's file filters as given on the command line; undefined when the whole suite runs. */
export function fileFilters(project: TestProject): string[] | undefined {
  // vitest keeps them on its instance for the run (not in its typed API).
  const filters = (project.vitest as unknown as { filenamePattern?: string[] }).filenamePattern;
  return filters?.length ? filters : undefined;
}

/** Whether a run with these filters (undefined: every file) includes `file`, as vitest matches them: by substring. */
export function runIncludes(filters: string[] | undefined, file: string): boolean {
  return !filters || filters.some((f) => file.includes(f) || f.endsWith(file));
}
