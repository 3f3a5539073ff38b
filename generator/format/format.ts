import type * as Prettier from 'prettier';
import { cacheDir, readCache, writeCache, sha256 } from '../shared/index.js';
import type { EmittedFile } from '../load/index.js';

/** One fixed prettier configuration, never the user's: output must not depend on the machine it was made on. */
const PRETTIER_OPTIONS: Prettier.Options = {
  printWidth: 120,
  singleQuote: true,
  trailingComma: 'all',
  endOfLine: 'lf',
};

/**
 * Only code people read goes through prettier: TypeScript declarations (json-schema-to-typescript writes them
 * unindented), the normalizers and the entry files. JSON is data laid out by its writer (JSON.stringify), and
 * `verbatim` files (validator definitions, deep-strip modules, the copied runtime) are machine code their emitter
 * already lays out; formatting megabytes of either was most of a cold run's time and memory.
 */
function parserFor(path: string): Prettier.BuiltInParserName | undefined {
  if (/\.(c|m)?js$/.test(path)) return 'babel';
  // Babel's TypeScript parser: the same output as prettier's `typescript` parser on declarations, in half the time.
  if (/\.d\.(c|m)?ts$|\.ts$/.test(path)) return 'babel-ts';
  return undefined;
}

/**
 * Stage 6: prettier over the files people read; formatting never changes what code does. Its output is a pure
 * function of its input, so results are cached by content hash under node_modules/.cache/adcp-codegen: a
 * regeneration formats only what changed. Files are formatted one after the other, so only one syntax tree is
 * alive at a time (formatting them all at once held every tree in memory together).
 */
export async function format(files: readonly EmittedFile[], cache: string | undefined = cacheDir('prettier')): Promise<EmittedFile[]> {
  if (!files.some(formatted)) return [...files];
  // Loaded only when something needs it: prettier and its parsers are a large part of a small run's start-up.
  const prettier = await import('prettier');
  const salt = `${prettier.version}\0${JSON.stringify(PRETTIER_OPTIONS)}`;
  const out: EmittedFile[] = [];
  for (const file of files) {
    const parser = file.verbatim === true ? undefined : parserFor(file.path);
    if (parser === undefined) {
      out.push(file);
      continue;
    }
    const key = sha256(`${salt}\0${parser}\0${file.contents}`);
    const cached = cache === undefined ? undefined : readCache(cache, key);
    if (cached !== undefined) {
      out.push({ ...file, contents: cached });
      continue;
    }
    let contents: string;
    try {
      contents = await prettier.format(file.contents, { ...PRETTIER_OPTIONS, parser });
    } catch (e) {
      // A formatting failure means the generator emitted invalid code: a bug to report, never to write.
      throw new Error(`adcp-codegen bug: emitted ${file.path} does not parse: ${(e as Error).message.split('\n')[0]}`);
    }
    if (cache !== undefined) writeCache(cache, key, contents);
    out.push({ ...file, contents });
  }
  return out;
}

/** Whether `format` would run prettier over this file (the rest is written as emitted). */
export function formatted(file: EmittedFile): boolean {
  return file.verbatim !== true && parserFor(file.path) !== undefined;
}
