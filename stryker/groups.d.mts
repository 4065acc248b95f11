// Types of groups.mjs, for the test that checks every group still names code that exists.
export type MutateEntry = string | { file: string; fn: string; from?: undefined } | { file: string; from: string; fn?: undefined };
export interface Group {
  mutate: MutateEntry[];
  testFiles: string[];
  coverageAnalysis?: 'all' | 'perTest' | 'off';
  timeoutMS?: number;
}
export const GROUPS: Record<string, Group>;
export function resolveEntry(group: string, entry: MutateEntry): string;
export function resolveGroup(name: string): Omit<Group, 'mutate'> & { mutate: string[] };
