// JSON: env.json, the variables as data (what a moved prefix's env is read back from; `xpu-setup env --json`).
import type { ShellTable } from './shell.js';

export const json: ShellTable<'json'> = {
  name: 'json',
  title: 'JSON',
  envFile: 'env.json',
  render: (vars, { sep }) => JSON.stringify({ schema: 1, separator: sep, vars }, null, 2) + '\n',
  unset: (changes) => JSON.stringify({ schema: 1, unset: changes }, null, 2) + '\n',
};
