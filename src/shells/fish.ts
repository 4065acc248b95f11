// fish 3: env.fish, `xpu-setup env fish | source`.
import { shq } from '../base/shell-words.js';
import { COMPILERS_MODE_VAR, msysPath, regenerateLine, type EnvChange, type EnvFileContext, type EnvVar, type ShellTable } from './shell.js';

const fishQuote = (s: string) => `'${s.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

/**
 * On Linux *PATH variables are path lists; for a Windows prefix every list but PATH (INCLUDE, LIB, ...) is a ';'
 * string that is prepended to, never overwritten.
 * Sourcing twice adds nothing twice; `xpu_setup_deactivate` restores the saved values, and sourcing another prefix's
 * file first calls it.
 */
function render(vars: readonly EnvVar[], { prefix, file, key, sep }: EnvFileContext): string {
  const names = vars.map((v) => v.name).join(' ');
  const lines = [
    `# ${regenerateLine(prefix, 'fish', fishQuote)}`,
    '# Sourcing this again changes nothing; sourcing another prefix\'s env file first undoes this one;',
    '# xpu_setup_deactivate restores what was there before.',
    `# set -x ${COMPILERS_MODE_VAR} compilers; source ${fishQuote(sep === ':' ? file : msysPath(file))}: only what compilers, pkg-config, CMake and Triton read.`,
    // As in env.sh: the saved state is exported (a child fish undoes it too), and undone by the names it lists. An
    // exported list arrives in a child as one string, hence the split.
    'function _xpu_setup_undo',
    '    for v in (string split -n -- " " $_xpu_setup_names)',
    '        set -l old _xpu_setup_old_$v',
    '        if set -q $old',
    '            set -gx $v $$old',
    '            set -e $old',
    '        else',
    '            set -e $v',
    '        end',
    '    end',
    '    set -e _xpu_setup_saved _xpu_setup_active _xpu_setup_names',
    'end',
    `if set -q _xpu_setup_saved; and test "$_xpu_setup_active" != ${key}`,
    '    if not set -q _xpu_setup_names; and functions -q xpu_setup_deactivate',
    '        xpu_setup_deactivate',
    '    else',
    '        _xpu_setup_undo',
    '    end',
    'end',
    'if not set -q _xpu_setup_saved',
    '    set -gx _xpu_setup_saved 1',
    `    set -gx _xpu_setup_active ${key}`,
    `    set -gx _xpu_setup_names '${names}'`,
    `    for v in ${names}`,
    '        if set -q $v',
    '            set -gx _xpu_setup_old_$v $$v',
    '        end',
    '    end',
    'end',
  ];
  for (const v of vars) {
    let line: string;
    if (v.mode === 'set') line = `set -gx ${v.name} ${fishQuote(v.value)}`;
    else if (sep === ':' ? v.name.endsWith('PATH') : v.name === 'PATH') {
      // fish joins path variables with ':' when it exports them; on Windows that is fish's own (MSYS) PATH.
      const q = fishQuote(sep === ':' ? v.value : msysPath(v.value));
      line = `contains -- ${q} $${v.name}; or set -gx --path ${v.name} ${q} $${v.name}`;
    } else {
      const q = fishQuote(v.value);
      line = `if not set -q ${v.name}; or test -z "$${v.name}"; set -gx ${v.name} ${q}; else if not contains -- ${q} (string split -- ${fishQuote(sep)} "$${v.name}"); set -gx ${v.name} ${fishQuote(v.value + sep)}"$${v.name}"; end`;
    }
    lines.push(v.runtime ? `if test "$${COMPILERS_MODE_VAR}" != compilers; ${line}; end` : line);
  }
  lines.push(
    'function xpu_setup_deactivate',
    '    if set -q _xpu_setup_saved',
    '        _xpu_setup_undo',
    '    end',
    '    functions -e xpu_setup_deactivate _xpu_setup_undo',
    'end',
  );
  return lines.join('\n') + '\n';
}

function unset(changes: readonly EnvChange[]): string {
  const lines = changes.map(({ name, value }) => (value === undefined ? `set -e ${name}` : `set -gx ${name} ${fishQuote(value)}`));
  lines.push('set -e _xpu_setup_saved _xpu_setup_active _xpu_setup_names', 'functions -e xpu_setup_deactivate _xpu_setup_undo');
  return lines.join('\n') + '\n';
}

export const fish: ShellTable<'fish'> = {
  name: 'fish',
  title: 'fish',
  envFile: 'env.fish',
  render,
  unset,
  user: {
    word: shq,
    source: (file) => `source ${shq(file)}`,
    evalLine: (self, prefix) => `${self} env fish --prefix ${shq(prefix)} | source`,
    exports: (vars, unset) => [...unset.map((n) => `set -e ${n}`), ...vars.map((v) => `set -gx ${v.name} ${fishQuote(v.value)}`)].map((l) => `${l}\n`).join(''),
    move: (from, to) => `mv ${shq(from)} ${shq(to)}`,
  },
  startupFiles: ['.config/fish/config.fish'],
  startupDirs: [{ dir: '.config/fish/conf.d', ext: '.fish' }],
};
