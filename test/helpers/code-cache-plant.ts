import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';

/**
 * The code-cache attack of issue 20, made real: V8 checks cached data against a script only by the source's length
 * (and its own build), so cached data compiled from OTHER code of the same length is accepted, and that other code
 * runs. These helpers make such data for the root pack of a generated request validator: code as long as the pack,
 * wrapped as the runtime's loader wraps a module, whose root definition accepts everything.
 */

/** The CommonJS wrapper the runtime's loader compiles a module in (runtime/loader.ts `WRAP_HEAD`/`WRAP_TAIL`). */
export const MODULE_PARAMS = 'exports, require, module, __filename, __dirname';

/** The pack a request validator entry reads its `validate` from, and the definition it reads. */
export interface RootPack {
  /** Absolute path of the pack module. */
  readonly file: string;
  readonly text: Buffer;
  /** The key of the root definition in the pack (`media-buy.create-media-buy-request-…`). */
  readonly definition: string;
}

/** The root pack of a tool's request validator in the release's validators module `entry` (`…/releases/3.0/validate.cjs`). */
export function rootPack(entry: string, tool: string): RootPack {
  // The tool's `request` getter reads the root definition of a pack: `require('…/packs/<pack>.cjs')['<key>']`.
  const text = readFileSync(entry, 'utf8');
  // As emitted (`tools["x"]`) or as prettier lays the committed set out (`tools['x']`).
  const at = Math.max(text.indexOf(`tools[${JSON.stringify(tool)}] = {`), text.indexOf(`tools['${tool}'] = {`));
  if (at < 0) throw new Error(`${entry} has no ${tool}`);
  const link = /require\((["'])([^"']+)\1\)\[\s*(["'])([^"']+)\3\s*\]/.exec(text.slice(at));
  if (link === null) throw new Error(`${entry} reads no pack`);
  const file = join(dirname(entry), link[2]!);
  return { file, text: readFileSync(file), definition: link[4]! };
}

/**
 * V8 cached data, from a script exactly as long as `pack` wrapped, whose root definition accepts every payload.
 * Its functions are run before the data is taken, so their bytecode is in it (rather than compiled later from the
 * real text at the same offsets).
 */
export function foreignCachedData(pack: RootPack): Buffer {
  const wrapped = `(function (${MODULE_PARAMS}) {${pack.text.toString('utf8')}\n})`;
  const head = `(function (${MODULE_PARAMS}) {exports[${JSON.stringify(pack.definition)}] = { validate: () => true };`;
  const evil = `${head}${' '.repeat(wrapped.length - head.length - 3)}\n})`;
  if (evil.length !== wrapped.length) throw new Error('the foreign script must be as long as the module');
  const script = new Script(evil);
  const fn = script.runInThisContext() as (exports: Record<string, { validate: () => boolean }>, require: null, module: object) => void;
  const module = { exports: {} as Record<string, { validate: () => boolean }> };
  fn(module.exports, null, module);
  module.exports[pack.definition]!.validate();
  return script.createCachedData();
}

/** A code-cache payload as the runtime's loader lays one out: the text's length, the text, then the data. */
export function codeCachePayload(text: Buffer, data: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32LE(text.length, 0);
  return Buffer.concat([head, text, data]);
}
