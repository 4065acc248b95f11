// The project's data tables (data/*.csv): a header line, then rows whose fields may be double-quoted (with "" inside).

/** Pure: rows as records keyed by the header's names; a row with the wrong number of fields is an error naming its line. */
export function parseCsv(text: string, what: string): Record<string, string>[] {
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '');
  const header = splitCsvLine(lines.shift() ?? '');
  return lines.map((line, i) => {
    const f = splitCsvLine(line);
    if (f.length !== header.length) throw new Error(`${what}: line ${i + 2} has ${f.length} fields, the header ${header.length}`);
    return Object.fromEntries(header.map((h, j) => [h, f[j]!]));
  });
}

function splitCsvLine(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quoted) {
      if (c === '"' && line[i + 1] === '"') {
        cur += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cur += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      out.push(cur);
      cur = '';
    } else cur += c;
  }
  out.push(cur);
  return out;
}
