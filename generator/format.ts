import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { sha256 } from './hash.js';
import type { EmittedFile } from './model.js';

/** One fixed prettier configuration, never the user's: output must not depend on the machine it was made on. */
export const PRETTIER_OPTIONS: prettier.Options = {
  printWidth: 120,
  singleQuote: true,
  trailingComma: 'all',
  endOfLine: 'lf',
};

function parserFor(path: string): prettier.BuiltInParserName | undefined {
  if (/\.(c|m)?js$/.test(path)) return 'babel';
  if (/\.d\.(c|m)?ts$|\.ts$/.test(path)) return 'typescript';
  if (path.endsWith('.json')) return 'json';
  return undefined;
}

/**
 * Stage 6: every file through prettier; formatting never changes what code does. Prettier is the slowest stage by
 * far (megabytes of validator code), and its output is a pure function of its input, so results are cached by
 * content hash under node_modules/.cache/adcp-codegen: a regeneration formats only what changed.
 */
export async function format(files: readonly EmittedFile[], cacheDir: string | undefined = defaultCacheDir()): Promise<EmittedFile[]> {
  const salt = `${prettier.version}\0${JSON.stringify(PRETTIER_OPTIONS)}`;
  return Promise.all(
    files.map(async (file) => {
      const parser = file.verbatim === true ? undefined : parserFor(file.path);
      if (parser === undefined) return file;
      const key = sha256(`${salt}\0${parser}\0${file.contents}`);
      const cached = cacheDir === undefined ? undefined : readCache(cacheDir, key);
      if (cached !== undefined) return { ...file, contents: cached };
      let contents: string;
      try {
        contents = await prettier.format(file.contents, { ...PRETTIER_OPTIONS, parser });
      } catch (e) {
        // A formatting failure means the generator emitted invalid code: a bug to report, never to write.
        throw new Error(`adcp-codegen bug: emitted ${file.path} does not parse: ${(e as Error).message.split('\n')[0]}`);
      }
      if (cacheDir !== undefined) writeCache(cacheDir, key, contents);
      return { ...file, contents };
    }),
  );
}

function defaultCacheDir(): string | undefined {
  return process.env.ADCP_CODEGEN_NO_CACHE ? undefined : join(process.cwd(), 'node_modules', '.cache', 'adcp-codegen', 'prettier');
}

function readCache(dir: string, key: string): string | undefined {
  try {
    const text = readFileSync(join(dir, key.slice(0, 2), key), 'utf8');
    // An entry is its content's hash followed by the content: a torn or edited entry is never trusted.
    const nl = text.indexOf('\n');
    return nl === 64 && sha256(text.slice(65)) === text.slice(0, 64) ? text.slice(65) : undefined;
  } catch {
    return undefined;
  }
}

function writeCache(dir: string, key: string, contents: string): void {
  try {
    const sub = join(dir, key.slice(0, 2));
    mkdirSync(sub, { recursive: true });
    const tmp = join(sub, `${key}.${process.pid}.tmp`);
    writeFileSync(tmp, `${sha256(contents)}\n${contents}`);
    renameSync(tmp, join(sub, key));
  } catch {
    // A read-only or full disk only costs speed.
  }
}
