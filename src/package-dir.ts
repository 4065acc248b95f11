// Where this package's own non-code files (native/ sources, kernels) are on disk, from src/ and from dist/ alike.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

/** native/ in the package (src -> ../native, and the same from dist). */
export function nativeDir(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'native');
}
