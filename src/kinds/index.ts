// The kinds of source a manifest names: a leaf, so the version rules of each kind (sources/) can name them too.

export type SourceKind = 'conda' | 'pypi' | 'url' | 'apt';
export const SOURCE_KINDS: readonly SourceKind[] = ['conda', 'pypi', 'url', 'apt'];
