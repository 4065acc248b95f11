#!/usr/bin/env node
// The GitHub Action's entry point (action.yml): `key` prints the cache key, `setup` (default) installs.
'use strict';

(async () => {
  const [{ runAction }, { realDeps }] = await Promise.all([import('../dist/cli/action.js'), import('../dist/real-deps.js')]);
  process.exitCode = await runAction(process.argv[2] ?? 'setup', realDeps());
})();
