// Which release of a library first exports a symbol other libraries call: data/loader-symbols.json, read once.
import { readFileSync } from 'node:fs';
import { packagePath } from '../package-dir.js';

/** One symbol as the table knows it. */
export interface SymbolOrigin {
  symbol: string;
  /** The first release of the library that exports it (`1.25.0`). */
  since: string;
  /** What the version rests on: a changelog entry, a header, a release. */
  source: string;
  /** The library in words (`the Level Zero loader`) and the component that installs it (`level-zero`). */
  library: string;
  component: string;
  /** Its file name by binary format (`libze_loader.so.1`, `ze_loader.dll`). */
  libraries: Partial<Record<'elf' | 'pe', string>>;
}

interface TableFile {
  libraries: { name: string; component: string; files: Partial<Record<'elf' | 'pe', string>>; symbols: Record<string, { since: string; source: string }> }[];
}

/** Pure: the table's entries by symbol name. */
export function parseSymbolTable(text: string): Map<string, SymbolOrigin> {
  const data = JSON.parse(text) as TableFile;
  const out = new Map<string, SymbolOrigin>();
  for (const lib of data.libraries) {
    for (const [symbol, { since, source }] of Object.entries(lib.symbols)) {
      out.set(symbol, { symbol, since, source, library: lib.name, component: lib.component, libraries: lib.files });
    }
  }
  return out;
}

let table: Map<string, SymbolOrigin> | undefined;

/** The table shipped with the package (data/loader-symbols.json). */
export function symbolTable(): Map<string, SymbolOrigin> {
  return (table ??= parseSymbolTable(readFileSync(packagePath('data', 'loader-symbols.json'), 'utf8')));
}

