// POSIX sh and the shells that read it (bash, zsh, dash; Git Bash on Windows): env.sh, `eval "$(xpu-setup env)"`.
import { shq } from '../base/shell-words.js';
import { COMPILERS_MODE_VAR, msysPath, regenerateLine, type EnvChange, type EnvFileContext, type EnvVar, type ShellTable } from './shell.js';

const shQuote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * Sourcing it twice adds nothing twice; the first time saves what each variable held so `xpu_setup_deactivate` can
 * put it back; sourcing another prefix's file first calls that; XPU_SETUP_ENV=compilers skips the loader's path.
 */
function render(vars: readonly EnvVar[], { prefix, file, key, sep, msys }: EnvFileContext): string {
  // Git Bash reads PATH as POSIX paths joined by ':' (it converts PATH for Windows programs itself); INCLUDE, LIB
  // and the SDK path are read by Windows programs (MSVC, Python) as they are.
  const sepOf = (v: EnvVar) => (msys ? (v.name === 'PATH' ? ':' : ';') : sep);
  const valueOf = (v: EnvVar) => (msys && v.name === 'PATH' ? msysPath(v.value) : v.value);
  const names = vars.map((v) => v.name);
  const lines = [
    `# ${regenerateLine(prefix, 'sh', shQuote)}`,
    '# Sourcing this again changes nothing; sourcing another prefix\'s env file first undoes this one;',
    '# xpu_setup_deactivate restores what was there before.',
    `# ${COMPILERS_MODE_VAR}=compilers . ${shQuote(msys ? msysPath(file) : file)}: only what compilers, pkg-config, CMake and Triton read.`,
    // The saved state is exported, so a child shell that sources another prefix's file undoes this one too; the undo
    // goes by the names the active file saved, which may be other names than this file's.
    '_xpu_setup_undo() {',
    '  for _xpu_n in $(printf \'%s\' "${_XPU_SETUP_NAMES-}"); do',
    '    eval "if [ -n \\"\\${_XPU_SETUP_OLD_$_xpu_n+x}\\" ]; then export $_xpu_n=\\"\\$_XPU_SETUP_OLD_$_xpu_n\\"; else unset $_xpu_n; fi; unset _XPU_SETUP_OLD_$_xpu_n"',
    '  done',
    '  unset _xpu_n _XPU_SETUP_SAVED _XPU_SETUP_ACTIVE _XPU_SETUP_NAMES',
    '}',
    `if [ -n "\${_XPU_SETUP_SAVED+x}" ] && [ "\${_XPU_SETUP_ACTIVE-}" != ${key} ]; then`,
    // An env file of an earlier xpu-setup saved no list of names: its own function undoes it.
    '  if [ -z "${_XPU_SETUP_NAMES+x}" ] && command -v xpu_setup_deactivate >/dev/null 2>&1; then xpu_setup_deactivate; else _xpu_setup_undo; fi',
    'fi',
    'if [ -z "${_XPU_SETUP_SAVED+x}" ]; then',
    `  export _XPU_SETUP_SAVED=1 _XPU_SETUP_ACTIVE=${key} _XPU_SETUP_NAMES='${names.join(' ')}'`,
    // Only what was set is saved: a variable without a saved value was unset, and is unset again.
    ...names.map((n) => `  [ -z "\${${n}+x}" ] || export _XPU_SETUP_OLD_${n}="$${n}"`),
    'fi',
  ];
  for (const v of vars) {
    let line: string;
    if (v.mode === 'set') line = `export ${v.name}=${shQuote(v.value)}`;
    else {
      const sep = sepOf(v);
      const value = valueOf(v);
      line = `case "${sep}\${${v.name}-}${sep}" in *${shQuote(`${sep}${value}${sep}`)}*) ;; *) export ${v.name}=${shQuote(value)}"\${${v.name}:+${sep}\$${v.name}}" ;; esac`;
    }
    lines.push(v.runtime ? `[ "\${${COMPILERS_MODE_VAR}-}" = compilers ] || ${line.startsWith('case') ? `{ ${line}; }` : line}` : line);
  }
  lines.push(
    'xpu_setup_deactivate() {',
    '  if [ -n "${_XPU_SETUP_SAVED+x}" ]; then _xpu_setup_undo; fi',
    '  unset -f xpu_setup_deactivate _xpu_setup_undo',
    '}',
  );
  return lines.join('\n') + '\n';
}

function unset(changes: readonly EnvChange[]): string {
  const lines = changes.map(({ name, value }) => (value === undefined ? `unset ${name}` : `export ${name}=${shQuote(value)}`));
  // The env file's own bookkeeping, so that sourcing it again saves afresh.
  lines.push('unset _XPU_SETUP_SAVED _XPU_SETUP_ACTIVE _XPU_SETUP_NAMES', 'unset -f xpu_setup_deactivate _xpu_setup_undo 2>/dev/null || true');
  return lines.join('\n') + '\n';
}

export const sh: ShellTable<'sh'> = {
  name: 'sh',
  title: 'sh',
  also: ['bash', 'zsh'],
  aliases: ['dash', 'ksh', 'mksh', 'ash', 'busybox'],
  envFile: 'env.sh',
  render,
  unset,
  user: {
    word: shq,
    source: (file) => `. ${shq(file)}`,
    evalLine: (self, prefix) => `eval "$(${self} env --prefix ${shq(prefix)})"`,
    exports: (vars, unset) => [...unset.map((n) => `unset ${n}`), ...vars.map((v) => `export ${v.name}=${shQuote(v.value)}`)].map((l) => `${l}\n`).join(''),
    move: (from, to) => `mv ${shq(from)} ${shq(to)}`,
  },
  startupFiles: ['.profile', '.bashrc', '.bash_profile', '.bash_login', '.zshenv', '.zprofile', '.zshrc', '.zlogin'],
};
