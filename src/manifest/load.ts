// Loads the component manifests shipped in manifests/ (or a directory given with --manifests).
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { XpuError } from '../base/errors.js';
import { packagePath } from '../package-dir.js';
import { overclaimed } from '../roles/index.js';
import { checkVersionRanges, validateManifest, type ComponentManifest } from './schema.js';

export const BUILTIN_MANIFESTS = packagePath('manifests');

export async function loadManifests(dir: string = BUILTIN_MANIFESTS): Promise<ComponentManifest[]> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  } catch (e) {
    throw new XpuError('BAD_MANIFEST', `cannot read the manifest directory ${dir}`, { cause: e, details: { dir }, hints: ['check --manifests'] });
  }
  const out: ComponentManifest[] = [];
  for (const n of names) {
    const file = path.join(dir, n);
    let doc: unknown;
    try {
      doc = JSON.parse(await fs.readFile(file, 'utf8'));
    } catch (e) {
      throw new XpuError('BAD_MANIFEST', `manifest ${file} is not valid JSON`, { cause: e, details: { file }, hints: ['fix the JSON syntax'] });
    }
    const m = validateManifest(file, doc);
    await checkVersionRanges(file, m);
    out.push(m);
  }
  if (out.length === 0) throw new XpuError('BAD_MANIFEST', `no manifests (*.json) in ${dir}`, { details: { dir }, hints: ['check --manifests'] });
  for (const { role, names } of overclaimed(out)) {
    throw new XpuError('BAD_MANIFEST', `more than one manifest in ${dir} says it is ${role.title}: ${names.join(', ')}`, {
      details: { dir, components: names, role: role.name },
      hints: [`name the role "${role.name}" in one manifest only`],
    });
  }
  return out;
}
