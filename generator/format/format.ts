import type * as Prettier from 'prettier';
import { buildCache, dependencyVersion, sha256, type BuildCache } from '../shared/index.js';
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

/** Whether `format` would run prettier over this file (the rest is written as emitted). */
export function formatted(file: EmittedFile): boolean {
  return file.verbatim !== true && parserFor(file.path) !== undefined;
}

/** Prettier over one file with the fixed configuration; the parser follows from its path. */
export async function prettierFormat(prettier: typeof Prettier, path: string, contents: string): Promise<string> {
  try {
    return await prettier.format(contents, { ...PRETTIER_OPTIONS, parser: parserFor(path) });
  } catch (e) {
    // A formatting failure means the generator emitted invalid code: a bug to report, never to write.
    throw new Error(`adcp-codegen bug: emitted ${path} does not parse: ${(e as Error).message.split('\n')[0]}`);
  }
}

/**
 * Formatting started before the format stage (format-ahead.ts): by path and exact contents, the formatted text, or
 * undefined when it was not (or could not be) formatted ahead.
 */
export interface FormattedAhead {
  get(file: EmittedFile): AheadResult | undefined;
}

/** A file's formatting as found ahead: its cache key, whether the cache already held it, and the text. */
export interface AheadResult {
  readonly key: string;
  readonly cached: boolean;
  readonly text: Promise<string | undefined>;
}

/** The installed prettier's version (part of every cache key), read without loading prettier. */
export function prettierVersion(): string {
  const version = dependencyVersion('prettier');
  if (version === undefined) throw new Error('adcp-codegen: prettier is not installed');
  return version;
}

/** The cache key of one file's formatting: prettier's version, the configuration, the parser and the text. */
export function cacheKey(prettierVersion: string, file: EmittedFile): string {
  return sha256(`${prettierVersion}\0${JSON.stringify(PRETTIER_OPTIONS)}\0${parserFor(file.path)}\0${file.contents}`);
}

/**
 * Stage 6: prettier over the files people read; formatting never changes what code does. Its output is a pure
 * function of its input, so results are kept in the build cache (this user's, authenticated: shared/build-cache.ts)
 * by content hash: a regeneration formats only what changed. Files formatted ahead, on another thread while the compile stage ran
 * (`ahead`), are taken from there; the rest are formatted here one after the other, so only one syntax tree is alive
 * at a time (formatting them all at once held every tree in memory together).
 */
export async function format(files: readonly EmittedFile[], cache: BuildCache = buildCache(), ahead?: FormattedAhead): Promise<EmittedFile[]> {
  if (!files.some(formatted)) return [...files];
  const version = prettierVersion();
  // Loaded only when something is left to format here: prettier and its parsers are a large part of a small run's
  // start-up, and files formatted ahead were formatted on the other thread.
  let prettier: typeof Prettier | undefined;
  const out: EmittedFile[] = [];
  for (const file of files) {
    if (!formatted(file)) {
      out.push(file);
      continue;
    }
    // A file submitted ahead was looked up in the cache then: no second lookup, and a hit is not written back.
    const early = ahead?.get(file);
    const cached = early === undefined ? cache.get('prettier', cacheKey(version, file)) : undefined;
    if (cached !== undefined) {
      out.push({ ...file, contents: cached });
      continue;
    }
    const contents = (await early?.text) ?? (await prettierFormat((prettier ??= await import('prettier')), file.path, file.contents));
    if (early?.cached !== true) cache.set('prettier', early?.key ?? cacheKey(version, file), contents);
    out.push({ ...file, contents });
  }
  return out;
}
