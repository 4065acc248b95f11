// The kinds' names alone, for the CLI's option table (help, completion, parsing), which must not load the kinds'
// modules (their index clients and archive readers) on every start. kinds/index.ts checks it lists KINDS' names.
export const KIND_NAMES = ['conda', 'pypi', 'url', 'apt', 'github'] as const;
