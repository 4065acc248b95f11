// The option tables: parsing, suggestions, conflicts, help, completion, and that help/version load nothing heavy.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { bashCompletion, fishCompletion, zshCompletion } from '../../src/cli/completion.js';
import { commandHelp, editDistance, nearest, parseCommandArgs } from '../../src/cli/options.js';
import { COMPONENT_NAMES, DOCTOR_CHECK_IDS } from '../../src/cli/choices.js';
import { COMMANDS, findCommand } from '../../src/cli/registry.js';
import { indexValue } from '../../src/cli/setup-options.js';
import { optionOf } from '../../src/kinds/names.js';
import { ALL_CHECKS } from '../../src/doctor/index.js';
import { usage } from '../support/failure.js';

const spec = (name: string) => findCommand(name)!;

describe('option tables', () => {
  it('every option has a description, and every command examples and exit codes', () => {
    for (const c of COMMANDS) {
      for (const o of c.options) expect(o.description, `${c.name} --${o.name}`).toMatch(/\w/);
      expect(c.exitCodes.length, c.name).toBeGreaterThan(0);
      if (c.name !== 'help') expect(c.examples.length, c.name).toBeGreaterThan(0);
    }
  });

  it('doctor --check offers exactly the doctor\'s checks', () => {
    expect([...DOCTOR_CHECK_IDS]).toEqual(ALL_CHECKS.map((c) => c.id));
  });

  it('--component, --remove, help and completion offer exactly the shipped manifests\' components', () => {
    const dir = path.join(__dirname, '..', '..', 'manifests');
    const names = fs.readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')).name as string);
    expect([...COMPONENT_NAMES].sort()).toEqual(names.sort());
    for (const option of ['component', 'remove']) expect(spec('setup').options.find((o) => o.name === option)?.choices).toEqual(COMPONENT_NAMES);
    expect(commandHelp(spec('setup'))).toContain('gpu-driver');
    for (const script of [bashCompletion(COMMANDS), zshCompletion(COMMANDS), fishCompletion(COMMANDS)]) expect(script).toContain('gpu-driver');
  });

  it('parses values and lists from the table', () => {
    const p = parseCommandArgs(spec('plan'), ['--component', 'level-zero', '--prefix=/p', '--json']);
    expect(p.values).toMatchObject({ component: ['level-zero'], prefix: '/p', json: true });
  });

  it('suggests the nearest option and command', () => {
    expect(usage(() => parseCommandArgs(spec('doctor'), ['--prefx', '/x'])).hints).toContain('did you mean --prefix?');
    expect(usage(() => parseCommandArgs(spec('setup'), ['--conda-chanel', 'x'])).hints).toContain('did you mean --conda-channel?');
    expect(nearest('docter', COMMANDS.map((c) => c.name))).toBe('doctor');
    expect(nearest('zzzzzz', COMMANDS.map((c) => c.name))).toBeUndefined();
    expect(editDistance('kitten', 'sitting')).toBe(3);
  });

  it('conflicting options are a usage error that says why', () => {
    expect(usage(() => parseCommandArgs(spec('probe'), ['--json', '--verbose'])).message).toMatch(/--json already holds every detail/);
    expect(usage(() => parseCommandArgs(spec('probe'), ['--format', 'pytorch', '--json'])).message).toMatch(/pick one/);
    expect(usage(() => parseCommandArgs(spec('setup'), ['--quiet', '--verbose'])).message).toMatch(/--quiet prints only errors/);
    expect(usage(() => parseCommandArgs(spec('setup'), ['--refdriver', '--platform', 'win-x64'])).message).toMatch(/cannot be combined with --platform/);
    // The natural spelling of the same request is not a conflict.
    expect(parseCommandArgs(spec('probe'), ['--format', 'json', '--json']).values.format).toBe('json');
  });

  it('help lists every option with its variable and default, examples and exit codes', () => {
    const text = commandHelp(spec('setup'));
    for (const o of spec('setup').options) expect(text).toContain(`--${o.name}`);
    expect(text).toMatch(/--conda-channel URL\|NAME\s+conda channel[^\n]*\n\s+\([^)]*env XPU_SETUP_CONDA_CHANNELS; default: /);
    expect(text).toMatch(/examples:\n {2}npx xpu-setup\n/);
    expect(text).toMatch(/exit codes:\n {2}0 /);
  });

  it('a channel name is a channel on anaconda.org; a bad URL names what the user set', () => {
    const channelUrl = (g: { value: string; from: string }) => indexValue(optionOf('conda')!, g);
    expect(channelUrl({ value: 'conda-forge', from: '--conda-channel' })).toBe('https://conda.anaconda.org/conda-forge');
    expect(channelUrl({ value: 'http://127.0.0.1:8/c', from: '--conda-channel' })).toBe('http://127.0.0.1:8/c');
    expect(() => channelUrl({ value: 'ftp://x/y', from: 'XPU_SETUP_CONDA_CHANNELS' })).toThrow(/^XPU_SETUP_CONDA_CHANNELS "ftp:\/\/x\/y" is not an http\(s\) URL$/);
  });
});

describe('completion scripts', () => {
  it('come from the same tables', () => {
    const bash = bashCompletion(COMMANDS);
    const zsh = zshCompletion(COMMANDS);
    const fish = fishCompletion(COMMANDS);
    for (const c of COMMANDS) {
      for (const o of c.options) {
        expect(bash, `${c.name} --${o.name}`).toContain(`--${o.name}`);
        expect(zsh).toContain(`--${o.name}[`);
        expect(fish).toContain(`-l ${o.name}`);
      }
    }
    expect(fish).toContain("complete -c xpu-setup -n '__fish_seen_subcommand_from doctor' -l check -x -a 'platform gpu");
    expect(zsh).toContain("'*--component[install only these components]:NAME:(level-zero unified-runtime gpu-driver)'");
  });
});

/** Static imports of a built module, recursively (dynamic import() is what keeps the others out). */
function staticGraph(entry: string): Set<string> {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const text = fs.readFileSync(file, 'utf8');
    for (const m of text.matchAll(/^(?:import|export)\s[^;]*?from\s+'([^']+)';/gms)) {
      const spec = m[1]!;
      if (spec.startsWith('.')) visit(path.resolve(path.dirname(file), spec));
      else seen.add(spec);
    }
  };
  visit(entry);
  return seen;
}

describe('start-up', () => {
  it('main.js statically imports no command, no execa/undici/ora/koffi (dist/ is built by npm test)', () => {
    const graph = [...staticGraph(path.join(__dirname, '../../dist/cli/main.js'))];
    expect(graph.filter((s) => /^(execa|undici|ora|koffi)$/.test(s))).toEqual([]);
    expect(graph.filter((s) => s.includes('/commands/') || s.endsWith('/output.js') || s.endsWith('/deps.js'))).toEqual([]);
  });

  it("main.js reads the kinds' options from their light table alone, never a kind's module", () => {
    const graph = [...staticGraph(path.join(__dirname, '../../dist/cli/main.js'))];
    expect(graph.filter((s) => s.includes(`${path.sep}kinds${path.sep}`))).toEqual([path.resolve(__dirname, '../../dist/kinds/names.js')]);
  });
});

describe('list values', () => {
  it("--component '' (or ',') is a usage error naming the option, never every component", async () => {
    const { list } = await import('../../src/cli/command.js');
    for (const v of ['', ' , ', '\n']) {
      let err: unknown;
      try {
        list({ component: [v] }, 'component');
      } catch (e) {
        err = e;
      }
      expect(err).toMatchObject({ code: 'USAGE', message: `--component ${JSON.stringify(v)} names nothing` });
    }
    expect(list({ component: ['level-zero, unified-runtime'] }, 'component')).toEqual(['level-zero', 'unified-runtime']);
    expect(list({}, 'component')).toEqual([]);
  });
});
