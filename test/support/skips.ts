// Says why a suite did not run: on stderr, and as a line of the file XPU_SETUP_SKIP_REPORT names (.ci/run prints
// those lines in its closing summary), so a skip is never silent and never for a reason nobody stated.
import * as fs from 'node:fs';

export const SKIP_REPORT_ENV = 'XPU_SETUP_SKIP_REPORT';

export function reportSkip(suite: string, reason: string): void {
  const line = `${suite}: skipped: ${reason}`;
  process.stderr.write(`${line}\n`);
  const file = process.env[SKIP_REPORT_ENV];
  if (file) fs.appendFileSync(file, `${line}\n`);
}
