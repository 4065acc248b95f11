// README's first block is what CI runs, and every link between README and docs/ lands on a file and a heading.
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.join(__dirname, '../..');
const read = (f: string) => fs.readFileSync(path.join(root, f), 'utf8');

/** The commands of README's first code block, comments dropped, `&&` chains split. */
function firstBlockCommands(readme: string): string[] {
  const block = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
  return block.split('\n').map((l) => l.replace(/#.*/, '').trim()).filter(Boolean).flatMap((l) => l.split('&&').map((c) => c.trim()));
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as dashes. */
const anchor = (heading: string) => heading.toLowerCase().replace(/[^\w\- ]/g, '').replace(/ /g, '-');

describe('README', () => {
  it('its first block sets up and runs the tool from a clone, then tests; .ci/run runs exactly those commands', () => {
    const commands = firstBlockCommands(read('README.md'));
    expect(commands).toEqual(['npm ci', 'node bin/xpu-setup.js', 'npm test']);
    // npx inside the clone would install and build it a second time into ~/.npm/_npx.
    expect(read('README.md').split('\n').slice(0, 6).join('\n')).not.toMatch(/npx/);
    const ci = read('.ci/run').split('\n').filter((l) => !l.trim().startsWith('#') && !/^\s*say /.test(l)).join('\n');
    for (const c of commands) expect(ci).toContain(c);
  });

  it('says the test command installs apt packages as root', () => {
    const second = read('README.md').split('\n').find((l) => l.startsWith('npm test'));
    expect(second).toMatch(/as root.*apt-get/);
  });

  it('is short, with a contents list', () => {
    const readme = read('README.md');
    expect(readme.split('\n').length).toBeLessThanOrEqual(260);
    expect(readme).toMatch(/^## Contents$/m);
  });

  it('every relative link in README and docs/ names a file that exists, and a heading that exists there', () => {
    const files = ['README.md', ...fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const broken: string[] = [];
    for (const f of files) {
      for (const m of read(f).matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1]!;
        if (/^[a-z]+:/.test(link)) continue;
        const [file, hash] = link.split('#') as [string, string | undefined];
        const target = file ? path.posix.join(path.posix.dirname(f), file) : f;
        if (!fs.existsSync(path.join(root, target))) {
          broken.push(`${f}: ${link} (no file)`);
          continue;
        }
        if (!hash || !target.endsWith('.md')) continue;
        const headings = [...read(target).matchAll(/^#+ (.+)$/gm)].map((h) => anchor(h[1]!));
        if (!headings.includes(hash)) broken.push(`${f}: ${link} (no heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('Clusters warns that a login node without a GPU gets no GPU driver, and names --gpu for the compute nodes\' GPUs', () => {
    const clusters = /^## Clusters\n([\s\S]*?)^## /m.exec(read('README.md'))?.[1] ?? '';
    const text = clusters.replace(/\s+/g, ' ');
    expect(text).toContain('A login node without a GPU gets no GPU driver');
    expect(text).toContain("`--gpu NAME|PCI-ID` (repeatable: `--gpu bmg`, `--gpu 0xe20b`) plans for the compute nodes' GPUs");
    expect(clusters).toMatch(/^xpu-setup --prefix \S+ --gpu bmg /m);
  });

  it('the action\'s uses: line is the one examples/ uses', () => {
    const uses = (text: string) => [...text.matchAll(/uses: (xpu-setup\/[^\s]+)/g)].map((m) => m[1]);
    expect(uses(read('README.md'))).toEqual(uses(read('examples/github-workflow.yml')));
  });
});
