// Suite-wide fixture build: a run of the whole suite builds (or finds in the cache) the fixture packages once, before
// any test file starts, so the files that run side by side do not each build them on a fresh machine. A run of
// chosen files leaves it to the files that use them.
import type { TestProject } from 'vitest/node';
import { buildFixturePackages } from './packages.js';
import { fileFilters } from './run-files.js';

export default async function setup(project: TestProject): Promise<void> {
  if (fileFilters(project)) return;
  await buildFixturePackages();
}
