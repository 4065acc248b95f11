// PowerShell (pwsh, Windows PowerShell): env.ps1, `xpu-setup env | Out-String | Invoke-Expression`.
import { psq } from '../base/shell-words.js';
import { regenerateLine, type EnvChange, type EnvFileContext, type EnvVar, type ShellTable } from './shell.js';

const psQuote = (s: string) => `'${s.replace(/'/g, "''")}'`;

/**
 * The same contract as env.sh. A path already in the list is left alone, so dot-sourcing the file twice adds it once
 * (-contains ignores case); the first time saves each variable for `xpu_setup_deactivate`.
 */
function render(vars: readonly EnvVar[], { prefix, key, sep }: EnvFileContext): string {
  const names = vars.map((v) => psQuote(v.name)).join(', ');
  return [
    `# ${regenerateLine(prefix, 'pwsh', psQuote)}`,
    "# Dot-sourcing this again changes nothing; dot-sourcing another prefix's env.ps1 first undoes this one;",
    '# xpu_setup_deactivate restores what was there before.',
    `if ($global:_XPU_SETUP_SAVED -and $global:_XPU_SETUP_ACTIVE -ne '${key}' -and (Get-Command xpu_setup_deactivate -ErrorAction SilentlyContinue)) { xpu_setup_deactivate }`,
    'if (-not $global:_XPU_SETUP_SAVED) {',
    `  $global:_XPU_SETUP_ACTIVE = '${key}'`,
    '  $global:_XPU_SETUP_SAVED = @{}',
    `  foreach ($n in @(${names})) { $global:_XPU_SETUP_SAVED[$n] = [Environment]::GetEnvironmentVariable($n) }`,
    '}',
    ...vars.map((v) =>
      v.mode === 'set'
        ? `$env:${v.name} = ${psQuote(v.value)}`
        : `if (-not (@($env:${v.name} -split ${psQuote(sep)}) -contains ${psQuote(v.value)})) { $env:${v.name} = if ($env:${v.name}) { ${psQuote(v.value + sep)} + $env:${v.name} } else { ${psQuote(v.value)} } }`,
    ),
    'function global:xpu_setup_deactivate {',
    '  if ($global:_XPU_SETUP_SAVED) {',
    '    foreach ($n in @($global:_XPU_SETUP_SAVED.Keys)) { [Environment]::SetEnvironmentVariable($n, $global:_XPU_SETUP_SAVED[$n]) }',
    '    Remove-Variable -Scope Global -Name _XPU_SETUP_SAVED, _XPU_SETUP_ACTIVE',
    '  }',
    '  Remove-Item Function:\\xpu_setup_deactivate',
    '}',
  ].join('\n') + '\n';
}

function unset(changes: readonly EnvChange[]): string {
  const lines = changes.map(({ name, value }) => (value === undefined ? `Remove-Item Env:${name} -ErrorAction SilentlyContinue` : `$env:${name} = ${psQuote(value)}`));
  lines.push('Remove-Variable -Scope Global -Name _XPU_SETUP_SAVED, _XPU_SETUP_ACTIVE -ErrorAction SilentlyContinue', 'Remove-Item Function:\\xpu_setup_deactivate -ErrorAction SilentlyContinue');
  return lines.join('\n') + '\n';
}

export const pwsh: ShellTable<'pwsh'> = {
  name: 'pwsh',
  title: 'PowerShell',
  aliases: ['powershell'],
  envFile: 'env.ps1',
  render,
  unset,
  user: {
    word: psq,
    source: (file) => `. ${psq(file)}`,
    evalLine: (self, prefix) => `${self} env --prefix ${psq(prefix)} | Out-String | Invoke-Expression`,
    exports: (vars, unset) => [...unset.map((n) => `Remove-Item Env:${n} -ErrorAction SilentlyContinue`), ...vars.map((v) => `$env:${v.name} = ${psQuote(v.value)}`)].map((l) => `${l}\n`).join(''),
    move: (from, to) => `Move-Item ${psq(from)} ${psq(to)}`,
    // PowerShell runs a quoted program name only after `&`.
    callQuoted: '& ',
  },
  startupFiles: [
    '.config/powershell/Microsoft.PowerShell_profile.ps1', '.config/powershell/profile.ps1',
    'Documents/PowerShell/Microsoft.PowerShell_profile.ps1', 'Documents/WindowsPowerShell/Microsoft.PowerShell_profile.ps1',
  ],
};
