// cmd.exe: env.bat, `call env.bat` (`call env.bat deactivate` undoes it).
import { regenerateLine, type EnvChange, type EnvFileContext, type EnvVar, type ShellTable } from './shell.js';

/**
 * cmd.exe reads each line of a .bat file twice over: first `%` expands (a literal `%` is written `%%`); then, when
 * delayed expansion is on (a caller's `setlocal EnableDelayedExpansion`, or `cmd /v:on`), each command holding `!`
 * is read again, `!` expanding and `^` escaping the next character (a literal `!` is written `^!`, and in such a
 * command a literal `^` is `^^`). What an expansion inserts is not read again. A value is written for one of the
 * two readings: `cmdPlain` without delayed expansion, `cmdDelayed` with it.
 */
export const cmdPlain = (s: string): string => s.replace(/%/g, '%%');
export const cmdDelayed = (s: string): string => (s.includes('!') ? cmdPlain(s).replace(/\^/g, '^^').replace(/!/g, '^!') : cmdPlain(s));

type CmdMode = 'plain' | 'delayed';
/** A variable's value in a line of the given reading: `%NAME%`, or `!NAME!` (which, unlike `%NAME%`, a value holding `!` survives). */
const cmdRef = (mode: CmdMode, name: string, tail = '') => (mode === 'plain' ? `%${name}${tail}%` : `!${name}${tail}!`);
/**
 * Lines for both readings of a .bat file: `body('plain')`, or, when delayed expansion is on (only then does `"!!"`
 * read as `""`), `body('delayed')`; both go on at the label `done`.
 */
const bothReadings = (label: string, body: (mode: CmdMode) => string[], done: string): string[] => [
  `if "!!"=="" goto ${label}_delayed`,
  ...body('plain'),
  `goto ${done}`,
  `:${label}_delayed`,
  ...body('delayed'),
  `:${done}`,
];

/**
 * cmd: the same contract as env.sh, through environment variables (cmd has no others): the first call saves each
 * variable and the list of names, `call env.bat deactivate` (any prefix's) puts them back, and calling another
 * prefix's env.bat first does that. Every line that carries a value comes twice, once for each reading of the file
 * (with and without delayed expansion, which the caller decides), so a path holding `%`, `!` or `^` arrives as it
 * is. A search path is prepended unless the list already starts with it: that test runs with delayed expansion off
 * (setlocal, handing back only a flag) and compares a substring of the list's length, so the value never goes into
 * a `:find=replace` expression, where `%` or `!` cannot be written. Calling the file twice adds it once.
 */
function render(vars: readonly EnvVar[], { prefix, key, sep }: EnvFileContext): string {
  const header = regenerateLine(prefix, 'cmd', (p) => `"${p}"`);
  const lists = vars.filter((v) => v.mode === 'prepend');
  const save = (mode: CmdMode) => vars.map((v) => `set "_XPU_SETUP_OLD_${v.name}=${cmdRef(mode, v.name)}"`);
  const apply = (mode: CmdMode) =>
    vars.flatMap((v) => {
      // With delayed expansion a value goes into _XPU_V on a line of its own, so no command mixes a literal with an
      // expansion (the carets of such a command are read as escapes only when it holds a `!`).
      const [first, value] = mode === 'plain' ? [[], cmdPlain(v.value)] : [[`set "_XPU_V=${cmdDelayed(v.value)}"`], '!_XPU_V!'];
      if (v.mode === 'set') return [...first, `set "${v.name}=${value}"`];
      return [...first, `if not defined ${v.name} (set "${v.name}=${value}") else if not defined _XPU_IN_${v.name} (set "${v.name}=${value}${sep}${cmdRef(mode, v.name)}")`];
    });
  return [
    '@echo off',
    `rem ${cmdPlain(header)}`,
    "rem Calling this again changes nothing; calling another prefix's env.bat first undoes this one;",
    'rem "call env.bat deactivate" restores what was there before. It works with and without delayed expansion.',
    'if /i "%~1"=="deactivate" goto xpu_setup_deactivate',
    'if not defined _XPU_SETUP_ACTIVE goto xpu_setup_save',
    `if "%_XPU_SETUP_ACTIVE%"=="${key}" goto xpu_setup_apply`,
    'call :xpu_setup_undo',
    ':xpu_setup_save',
    `set "_XPU_SETUP_ACTIVE=${key}"`,
    `set "_XPU_SETUP_NAMES=${vars.map((v) => v.name).join(' ')}"`,
    ...vars.map((v) => `if defined ${v.name} (set "_XPU_SETUP_HAD_${v.name}=1") else (set "_XPU_SETUP_HAD_${v.name}=")`),
    ...bothReadings('xpu_setup_save', save, 'xpu_setup_apply'),
    // Which lists start with their path already, read with delayed expansion off; only the flags leave the setlocal.
    'setlocal DisableDelayedExpansion',
    ...lists.flatMap((v) => [
      `set "_XPU_HAD=%${v.name}%${sep}"`,
      `set "_XPU_IN_${v.name}="`,
      `if /i "%_XPU_HAD:~0,${v.value.length + sep.length}%"=="${cmdPlain(v.value)}${sep}" set "_XPU_IN_${v.name}=1"`,
    ]),
    `endlocal & ${lists.map((v) => `set "_XPU_IN_${v.name}=%_XPU_IN_${v.name}%"`).join(' & ')}`,
    ...bothReadings('xpu_setup_apply', apply, 'xpu_setup_applied'),
    ...['_XPU_V', ...lists.map((v) => `_XPU_IN_${v.name}`)].map((n) => `set "${n}="`),
    'goto :eof',
    ':xpu_setup_deactivate',
    'call :xpu_setup_undo',
    'goto :eof',
    'rem Puts back what the active env.bat saved, by the names it saved (another prefix may have set other ones).',
    ':xpu_setup_undo',
    'if not defined _XPU_SETUP_ACTIVE goto :eof',
    'for %%n in (%_XPU_SETUP_NAMES%) do call :xpu_setup_restore %%n',
    'set "_XPU_SETUP_ACTIVE="',
    'set "_XPU_SETUP_NAMES="',
    'goto :eof',
    ':xpu_setup_restore',
    // Without delayed expansion `call` expands the saved value in a second reading (what it inserts is not read again).
    'if not defined _XPU_SETUP_HAD_%1 (set "%1=") else if "!!"=="" (set "%1=!_XPU_SETUP_OLD_%1!") else call set "%1=%%_XPU_SETUP_OLD_%1%%"',
    'set "_XPU_SETUP_OLD_%1="',
    'set "_XPU_SETUP_HAD_%1="',
    'goto :eof',
  ].join('\r\n') + '\r\n';
}

function unset(changes: readonly EnvChange[]): string {
  // As in env.bat: each value once for each reading of the file, with and without delayed expansion.
  const sets = (mode: CmdMode) => changes.map(({ name, value }) => `set "${name}=${value === undefined ? '' : (mode === 'plain' ? cmdPlain : cmdDelayed)(value)}"`);
  const lines = [
    ...bothReadings('xpu_setup_unset', sets, 'xpu_setup_unset_done'),
    'set "_XPU_SETUP_ACTIVE="',
    'set "_XPU_SETUP_NAMES="',
  ];
  return lines.join('\r\n') + '\r\n';
}

export const cmd: ShellTable<'cmd'> = {
  name: 'cmd',
  title: 'cmd',
  envFile: 'env.bat',
  render,
  unset,
  sideLoad: (file) => `call "${file}"`,
};
