// "Did you mean": the closest known name to a mistyped one, for commands, options and values.

/** Levenshtein distance; names are short, so the quadratic table is fine. */
export function editDistance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length]!;
}

/** The closest candidate, when it is close enough to be what was meant (or `word` is a prefix of exactly one). */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const prefixed = candidates.filter((c) => word.length >= 2 && c.startsWith(word));
  if (prefixed.length === 1) return prefixed[0];
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(word, c);
    if (d < bestD) [best, bestD] = [c, d];
  }
  return best !== undefined && bestD <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined;
}
