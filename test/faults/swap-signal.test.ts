// A signal between the swap's two renames: it waits for the second, and the message says the new prefix is in place.
// Run in a child process on the built module (dist/base/lock-owner.js), with the renames slowed so the signal lands between them.
import { execa } from 'execa';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { expect, it } from 'vitest';
import { REPO } from '../e2e/cli.js';
import { withFixtureRun } from '../support/fixture-run.js';

const fx = withFixtureRun('swap-signal', { noIndex: true });

it('SIGTERM between the two renames: both happen, then the run ends by the signal, saying the new prefix is in place', async () => {
  const prefix = fx.at('prefix');
  const staging = fx.at('.prefix.staging');
  await fs.mkdir(prefix);
  await fs.writeFile(path.join(prefix, 'old'), 'old\n');
  await fs.mkdir(staging);
  await fs.writeFile(path.join(staging, 'new'), 'new\n');
  const script = `
    const { removeOnInterrupt, withSignalsHeld } = await import(${JSON.stringify(path.join(REPO, 'dist/base/lock-owner.js'))});
    const fs = await import('node:fs/promises');
    const [prefix, staging] = process.argv.slice(1);
    removeOnInterrupt(staging + '.lock');
    await withSignalsHeld(prefix, async () => {
      await fs.rename(prefix, prefix + '.old');
      process.stdout.write('between\\n');
      await new Promise((r) => setTimeout(r, 500));
      await fs.rename(staging, prefix);
    });
    await new Promise((r) => setTimeout(r, 5000));
  `;
  const child = execa(process.execPath, ['--input-type=module', '-e', script, prefix, staging], { reject: false });
  await new Promise<void>((resolve) => child.stdout!.on('data', (d: Buffer) => d.toString().includes('between') && resolve()));
  const sent = Date.now();
  child.kill('SIGTERM');
  const r = await child;
  expect(Date.now() - sent).toBeLessThan(1500);
  expect(r.signal).toBe('SIGTERM');
  expect(String(r.stderr)).toMatch(/interrupted \(SIGTERM\): .*the new prefix is in place at .*prefix/);
  expect(await fs.readdir(prefix)).toEqual(['new']);
});
