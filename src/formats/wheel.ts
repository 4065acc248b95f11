// Wheels: zip files whose `<dist>-<ver>.data/data/X` members install to `<prefix>/X`; only those are yielded.
import type { EntryVisitor } from './entry.js';
import { readZip } from './zip.js';

const DATA = /^[^/]+\.data\/data\/(.+)$/;

export async function readWheelData(file: string, visit: EntryVisitor): Promise<void> {
  await readZip(
    file,
    async (entry, body) => {
      const m = DATA.exec(entry.path);
      await visit({ ...entry, path: m![1]! }, body);
    },
    (name) => DATA.test(name.replace(/\\/g, '/')),
  );
}
