import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { generatorVersion, sha256 } from '../../shared/index.js';
import type { EmittedFile } from '../../load/index.js';
import { packSupportModule } from './compact.js';

/**
 * Ajv standalone code `require`s Ajv's run-time helpers and ajv-formats by package name; the generated set must
 * be self-contained, so these files are copied (vendored) beside the validators and the requires point at them.
 * Copied verbatim from the installed packages, so a validator checks a format exactly as run-time Ajv with
 * ajv-formats does (the differential tests rely on it). All three are MIT-licensed.
 */
const require = createRequire(import.meta.url);

interface SupportSource {
  readonly file: string;
  readonly pkg: string;
  readonly path: string;
  readonly transform?: (text: string) => string;
}

const SOURCES: readonly SupportSource[] = [
  // module.exports = function equal(a, b): Ajv's runtime/equal.js is this package re-exported.
  { file: 'equal.cjs', pkg: 'fast-deep-equal', path: 'index.js' },
  // exports.default = ucs2length; drop the line that attaches Ajv's own require path and the source-map comment.
  {
    file: 'ucs2length.cjs',
    pkg: 'ajv',
    path: 'dist/runtime/ucs2length.js',
    transform: (t) => t.replace(/^ucs2length\.code = .*$/m, '').replace(/^\/\/# sourceMappingURL=.*$/m, ''),
  },
  // exports.fullFormats / fastFormats: self-contained (no require).
  { file: 'formats.cjs', pkg: 'ajv-formats', path: 'dist/formats.js', transform: (t) => t.replace(/^\/\/# sourceMappingURL=.*$/m, '') },
];

function packageDir(pkg: string): string {
  // fast-deep-equal is Ajv's dependency: resolve it from Ajv's own location.
  const from = pkg === 'fast-deep-equal' ? createRequire(require.resolve('ajv')) : require;
  return dirname(from.resolve(`${pkg}/package.json`));
}

/** What every pack requires (compact.ts packSupportModule), the one support module the generator writes itself. */
export const PACK_SUPPORT_FILE = 'pack.cjs';

/** The vendored helper files for the validators (`validate/support/*.cjs`), and what every pack requires. */
export function supportFiles(dir: string): EmittedFile[] {
  const contents = packSupportModule();
  const helpers: EmittedFile = {
    path: `${dir}/${PACK_SUPPORT_FILE}`,
    contents,
    inputs: [{ name: `adcp-codegen ${generatorVersion}:generator/compile/validators/compact.ts`, hash: sha256(contents) }],
    verbatim: true,
  };
  return [helpers, ...vendored(dir)];
}

function vendored(dir: string): EmittedFile[] {
  return SOURCES.map((s) => {
    const root = packageDir(s.pkg);
    const version = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }).version;
    const raw = readFileSync(join(root, s.path), 'utf8');
    const header = `/* Vendored from ${s.pkg}@${version} ${s.path} (MIT license) so the validators need no package at run time. */\n`;
    const contents = header + (s.transform ? s.transform(raw) : raw).trimEnd() + '\n';
    return { path: `${dir}/${s.file}`, contents, inputs: [{ name: `${s.pkg}@${version}:${s.path}`, hash: sha256(raw) }] };
  });
}
