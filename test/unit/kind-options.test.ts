// The options that name a kind's index are the kinds' light table (kinds/names.ts): one entry there is an option of
// setup, plan, lock and bundle in help and completion, read from its flag or its variable into the request under the
// kind's name, blamed by name when bad, and spelled again by the hints; nothing outside the table is told of it.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type * as Names from '../../src/kinds/names.js';
import { fakeDeps } from '../fixtures/detect/fake-deps.js';

/** The table with one more entry: an option naming a mirror for the pinned-URL kind, which has none. */
function withMirrorOption(): void {
  vi.resetModules();
  vi.doMock('../../src/kinds/names.js', async (importOriginal) => {
    const real = await importOriginal<typeof Names>();
    const table: Record<string, Names.KindOption> = {
      ...real.KIND_OPTIONS,
      url: { flag: 'url-mirror', env: 'XPU_SETUP_URL_MIRROR', value: 'URL', description: 'a mirror of the pinned URLs', default: 'the URLs as pinned', example: 'https://mirror.example/pinned' },
    };
    return { ...real, KIND_OPTIONS: table, kindOptions: () => Object.entries(table), optionOf: (kind: string) => table[kind] };
  });
}

afterEach(() => {
  vi.doUnmock('../../src/kinds/names.js');
  vi.resetModules();
});

describe("a kind's index option comes from the kinds' table alone", () => {
  it('is in the help and the completion of every command that resolves, with its variable and default', async () => {
    withMirrorOption();
    const { findCommand, COMMANDS } = await import('../../src/cli/registry.js');
    const { commandHelp } = await import('../../src/cli/options.js');
    const { bashCompletion, fishCompletion } = await import('../../src/cli/completion.js');
    for (const name of ['setup', 'plan', 'lock', 'bundle']) {
      const help = commandHelp(findCommand(name)!);
      expect(help, name).toMatch(/--url-mirror URL\s+a mirror of the pinned URLs\n\s+\(env XPU_SETUP_URL_MIRROR; default: the URLs as pinned\)/);
    }
    expect(commandHelp(findCommand('env')!)).not.toContain('--url-mirror');
    expect(bashCompletion(COMMANDS)).toContain('--url-mirror');
    expect(fishCompletion(COMMANDS)).toContain('-l url-mirror');
  });

  it('is read from its flag, else its variable, into the request under the kind; a bad value names where it came from', async () => {
    withMirrorOption();
    const { findCommand } = await import('../../src/cli/registry.js');
    const { parseCommandArgs } = await import('../../src/cli/options.js');
    const { parsePlanOptions } = await import('../../src/cli/setup-options.js');
    const parse = (args: string[], env: Record<string, string> = {}) => parsePlanOptions(parseCommandArgs(findCommand('plan')!, args).values, fakeDeps({ env }));
    const byVariable = parse([], { XPU_SETUP_URL_MIRROR: 'https://m.example/pinned' });
    expect(byVariable.flags.indexes).toEqual({ url: ['https://m.example/pinned'] });
    expect(byVariable.plan.namedBy).toEqual({ '--url-mirror': 'XPU_SETUP_URL_MIRROR' });
    const byFlag = parse(['--url-mirror', 'https://flag.example/p', '--conda-channel', 'conda-forge'], { XPU_SETUP_URL_MIRROR: 'https://m.example/pinned' });
    expect(byFlag.flags.indexes).toEqual({ conda: ['https://conda.anaconda.org/conda-forge'], url: ['https://flag.example/p'] });
    expect(byFlag.plan.namedBy).toEqual({ '--conda-channel': '--conda-channel', '--url-mirror': '--url-mirror' });
    expect(() => parse(['--url-mirror', 'ftp://m.example/p'])).toThrow(/^--url-mirror "ftp:\/\/m\.example\/p" is not an http\(s\) URL$/);
    expect(() => parse([], { XPU_SETUP_URL_MIRROR: 'mirror' })).toThrow(/^XPU_SETUP_URL_MIRROR "mirror" is not an http\(s\) URL$/);
  });

  it('is merged over the recorded request and spelled again by the hints, in the table\'s order', async () => {
    withMirrorOption();
    const { mergeRequest, EMPTY_REQUEST } = await import('../../src/plan/request.js');
    const { requestArgs } = await import('../../src/hints/index.js');
    const recorded = { ...EMPTY_REQUEST, indexes: { url: ['https://old.example/p'], pypi: ['https://i.example/simple'] } };
    const { request } = mergeRequest(recorded, { indexes: { url: ['https://new.example/p'] } }, [], []);
    expect(request.indexes).toEqual({ url: ['https://new.example/p'], pypi: ['https://i.example/simple'] });
    expect(requestArgs(request)).toEqual(['--index-url', 'https://i.example/simple', '--url-mirror', 'https://new.example/p']);
  });

  it('is no input of the action unless the table says so', async () => {
    withMirrorOption();
    const { ACTION_INPUTS } = await import('../../src/cli/action-inputs.js');
    expect(Object.keys(ACTION_INPUTS)).not.toContain('url-mirror');
    expect(ACTION_INPUTS['conda-channel']).toBe('list');
    expect(ACTION_INPUTS['index-url']).toBe('string');
  });
});
