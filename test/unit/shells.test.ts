// The shells' tables (src/shells/) are the one list of shells: the CLI's choices, the env files setup writes, the names
// people type, the start-up files uninstall reads and the lines shown to people all come from them.
import { describe, expect, it } from 'vitest';
import { SHELL_NAMES, TRITON_ENV_SHELLS } from '../../src/cli/choices.js';
import { bashCompletion, fishCompletion, zshCompletion } from '../../src/cli/completion.js';
import { COMMANDS, findCommand } from '../../src/cli/registry.js';
import { ENV_FILES, SHELL_SYNTAX, SHELL_TABLES, SHELLS, STARTUP_DIRS, STARTUP_FILES, syntaxOf, USER_SHELLS, userShell } from '../../src/shells/index.js';

describe('the shells\' tables', () => {
  it('give the CLI its shell choices, in the order they are offered', () => {
    expect(SHELL_NAMES).toEqual(['sh', 'bash', 'zsh', 'fish', 'pwsh', 'cmd', 'json', 'dotenv', 'github', 'lmod', 'tcl', 'spack']);
    expect(TRITON_ENV_SHELLS).toEqual(['sh', 'fish', 'pwsh', 'dotenv', 'github']);
    expect(findCommand('env')?.argument?.choices).toEqual(SHELL_NAMES);
    expect(findCommand('env')?.options.find((o) => o.name === 'shell')?.choices).toEqual(SHELL_NAMES);
    // Completion offers them from the same option table.
    for (const script of [bashCompletion(COMMANDS), zshCompletion(COMMANDS), fishCompletion(COMMANDS)]) {
      expect(script).toContain(SHELL_NAMES.join(' '));
    }
  });

  it('name one env file per shell, written in this order', () => {
    expect(SHELLS).toEqual(['sh', 'fish', 'pwsh', 'cmd', 'json']);
    expect(Object.values(ENV_FILES)).toEqual(['env.sh', 'env.fish', 'env.ps1', 'env.bat', 'env.json']);
  });

  it('read each name a user types as one syntax; no name belongs to two shells, and an Object member is no shell', () => {
    expect(SHELL_SYNTAX).toEqual({
      sh: 'sh', bash: 'sh', zsh: 'sh', dash: 'sh', ksh: 'sh', mksh: 'sh', ash: 'sh', busybox: 'sh',
      fish: 'fish', pwsh: 'pwsh', powershell: 'pwsh', cmd: 'cmd', json: 'json',
    });
    const names = SHELL_TABLES.flatMap((t) => [t.name, ...(t.also ?? []), ...(t.aliases ?? [])]);
    expect(new Set(names).size).toBe(names.length);
    for (const n of ['constructor', '__proto__', 'toString']) expect(syntaxOf(n)).toBeUndefined();
  });

  it('list the start-up files uninstall reads, each shell\'s', () => {
    expect(STARTUP_FILES).toEqual([
      '.profile', '.bashrc', '.bash_profile', '.bash_login', '.zshenv', '.zprofile', '.zshrc', '.zlogin',
      '.config/fish/config.fish', '.config/powershell/Microsoft.PowerShell_profile.ps1', '.config/powershell/profile.ps1',
      'Documents/PowerShell/Microsoft.PowerShell_profile.ps1', 'Documents/WindowsPowerShell/Microsoft.PowerShell_profile.ps1',
    ]);
    expect(STARTUP_DIRS).toEqual([{ dir: '.config/fish/conf.d', ext: '.fish' }]);
  });

  it('give each shell people type into its pasted lines: load the env file, evaluate `env`, set variables, move a directory', () => {
    expect(USER_SHELLS).toEqual(['sh', 'fish', 'pwsh']);
    expect(USER_SHELLS.map((s) => userShell(s).source('/p q/env'))).toEqual([". '/p q/env'", "source '/p q/env'", ". '/p q/env'"]);
    expect(USER_SHELLS.map((s) => userShell(s).evalLine('xpu-setup', '/p'))).toEqual([
      'eval "$(xpu-setup env --prefix /p)"', 'xpu-setup env fish --prefix /p | source', 'xpu-setup env --prefix /p | Out-String | Invoke-Expression',
    ]);
    expect(USER_SHELLS.map((s) => userShell(s).exports([{ name: 'A', value: "it's" }], ['B']))).toEqual([
      "unset B\nexport A='it'\\''s'\n", "set -e B\nset -gx A 'it\\'s'\n", "Remove-Item Env:B -ErrorAction SilentlyContinue\n$env:A = 'it''s'\n",
    ]);
    expect(USER_SHELLS.map((s) => userShell(s).move('/a b', '/c'))).toEqual(["mv '/a b' /c", "mv '/a b' /c", "Move-Item '/a b' /c"]);
  });
});
