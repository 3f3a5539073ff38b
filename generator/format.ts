import * as prettier from 'prettier';
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

/** Stage 6: every file through prettier, in parallel batches; formatting never changes what code does. */
export async function format(files: readonly EmittedFile[]): Promise<EmittedFile[]> {
  return Promise.all(
    files.map(async (file) => {
      const parser = parserFor(file.path);
      if (parser === undefined) return file;
      try {
        return { ...file, contents: await prettier.format(file.contents, { ...PRETTIER_OPTIONS, parser }) };
      } catch (e) {
        // A formatting failure means the generator emitted invalid code: a bug to report, never to write.
        throw new Error(`adcp-codegen bug: emitted ${file.path} does not parse: ${(e as Error).message.split('\n')[0]}`);
      }
    }),
  );
}
