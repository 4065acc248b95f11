// Debian packages: dpkg-deb turns the .deb into its data tarball, which streams into the tar reader.
import { spawn } from 'node:child_process';
import { XpuError } from '../base/errors.js';
import type { EntryVisitor } from './entry.js';
import { readTar } from './tar.js';

export async function readDeb(file: string, visit: EntryVisitor, name = file): Promise<void> {
  const child = spawn('dpkg-deb', ['--fsys-tarfile', file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', (e) =>
      reject(new XpuError('BAD_ARCHIVE', `cannot run dpkg-deb to read ${file}`, {
        cause: e,
        details: { file },
        hints: ['the apt source needs dpkg-deb (Debian and Ubuntu have it); choose another source with --source'],
      })),
    );
    child.on('close', (code) => resolve(code ?? -1));
  });
  const reading = readTar(child.stdout, name, visit);
  const [code] = await Promise.all([exited, reading.catch(async (e) => { child.kill(); throw e; })]);
  if (code !== 0) {
    throw new XpuError('BAD_ARCHIVE', `dpkg-deb could not read ${name}: ${stderr.trim()}`, { details: { file, stderr } });
  }
}
