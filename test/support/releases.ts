// The rows of data/compute-runtime-releases.json, as the tests read them.
import { readFileSync } from 'node:fs';
import { REPO } from '../e2e/cli.js';

export interface ReleaseRow {
  release: string;
  packagedBy: 'intel-github' | 'debian-12' | 'debian-sid';
  igc: string;
  gmmlib: string | null;
  levelZero: string | null;
  debsTarget: string;
  glibc: string;
  glibcChecked: boolean;
  source: string;
}

export const releaseRows = (): ReleaseRow[] =>
  (JSON.parse(readFileSync(`${REPO}/data/compute-runtime-releases.json`, 'utf8')) as { releases: ReleaseRow[] }).releases;
