// action.yml and the example workflow against SchemaStore's schemas for action metadata and workflows (what editors and linters check).
import { Ajv } from 'ajv';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');
const schema = (name: string) => JSON.parse(read(`test/fixtures/schemastore/${name}`)) as object;

function errors(schemaFile: string, doc: unknown): string[] {
  const validate = new Ajv({ strict: false, allErrors: true }).compile(schema(schemaFile));
  return validate(doc) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''} ${JSON.stringify(e.params)}`);
}

describe('SchemaStore schemas', () => {
  it('action.yml is valid action metadata: a JavaScript action with main and post', () => {
    const action = parse(read('action.yml')) as { runs: Record<string, string> };
    expect(errors('github-action.json', action)).toEqual([]);
    expect(action.runs).toMatchObject({ using: 'node24', main: 'dist/xpu-setup-action-main.cjs', post: 'dist/xpu-setup-action-post.cjs' });
  });

  it('the example workflow is a valid workflow, and its run scripts splice in no step outputs', () => {
    const text = read('examples/github-workflow.yml');
    const wf = parse(text) as { jobs: Record<string, { steps: { run?: string }[] }> };
    expect(errors('github-workflow.json', wf)).toEqual([]);
    for (const step of Object.values(wf.jobs).flatMap((j) => j.steps)) expect(step.run ?? '').not.toMatch(/\$\{\{/);
  });

  it('the schema catches what it should: a wrong runtime, an unknown key', () => {
    const action = parse(read('action.yml')) as { runs: Record<string, string> };
    expect(errors('github-action.json', { ...action, runs: { ...action.runs, using: 'node8' } })).not.toEqual([]);
    expect(errors('github-action.json', { ...action, output: {} })).not.toEqual([]);
  });
});
