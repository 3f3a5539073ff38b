import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { EmittedFile, Release } from '../../generator/load/index.js';
import { isPlainObject, walkSchema } from '../../generator/shared/index.js';

/**
 * Inputs for the differential tests and benches of the compiled validators: every `examples` entry of a release,
 * at the schema location that declares it, plus a few deliberate breakages of each so both verdicts get exercised.
 */
export interface ExampleCase {
  /** `<file path>#<pointer> examples/<i>[ variant]` */
  readonly id: string;
  /** The schema location as Ajv addresses it: `<file $id>#<URI-encoded pointer>`. */
  readonly uri: string;
  readonly data: unknown;
}

export function exampleCases(release: Release): ExampleCase[] {
  const out: ExampleCase[] = [];
  for (const file of release.schemas.byId.values()) {
    walkSchema(file.schema, (node, pointer) => {
      if (!isPlainObject(node) || !Array.isArray(node.examples)) return;
      const uri = `${file.id}#${pointer.split('/').map(encodeURIComponent).join('/')}`;
      node.examples.forEach((example, i) => {
        const id = `${file.path}#${pointer} examples/${i}`;
        out.push({ id, uri, data: example });
        for (const [name, data] of variants(example)) out.push({ id: `${id} ${name}`, uri, data });
      });
    });
  }
  return out;
}

/** Breakages that usually flip a verdict: an unknown field, a field removed, a field of the wrong type. */
function variants(example: unknown): [string, unknown][] {
  if (isPlainObject(example)) {
    const keys = Object.keys(example);
    const out: [string, unknown][] = [['unknown-field', { ...example, adcp_probe_unknown_field: true }]];
    if (keys.length > 0) {
      const [first, ...rest] = keys;
      const without: Record<string, unknown> = {};
      for (const k of rest) Object.defineProperty(without, k, { value: example[k], enumerable: true, writable: true, configurable: true });
      out.push([`without-${first}`, without]);
      out.push([`wrong-type-${first}`, { ...example, [first!]: typeof example[first!] === 'string' ? 12345 : 'not-the-right-type' }]);
    }
    return out;
  }
  if (Array.isArray(example)) return [['empty-array', []], ['array-of-null', [null]]];
  if (typeof example === 'string') return [['number', 12345], ['empty-string', '']];
  return [['string', 'not-the-right-type']];
}

/** Writes emitted files under `dir`, unformatted (tests and benches; generation itself writes through generator/write/). */
export function writeEmitted(dir: string, files: readonly EmittedFile[]): void {
  for (const f of files) {
    mkdirSync(dirname(join(dir, f.path)), { recursive: true });
    writeFileSync(join(dir, f.path), f.contents);
  }
}

/**
 * The examples differential: every `examples` entry (and its breakages) through the generated validators written
 * to `dir`, against `runtime` (run-time Ajv over the same release). Returns the disagreements and the counts.
 */
export function examplesDifferential(
  release: Release,
  dir: string,
  runtime: { getSchema(uri: string): ((data: unknown) => boolean | Promise<unknown>) | undefined },
  compile: (release: Release, uris: readonly string[]) => { files: readonly EmittedFile[]; modules: ReadonlyMap<string, string> },
  verdict: (dir: string, module: string, data: unknown) => boolean,
): { cases: number; locations: number; valid: number; disagreements: string[] } {
  const cases = exampleCases(release);
  const uris = [...new Set(cases.map((c) => c.uri))];
  const compiled = compile(release, uris);
  writeEmitted(dir, compiled.files);
  let valid = 0;
  const disagreements: string[] = [];
  for (const c of cases) {
    const expected = runtime.getSchema(c.uri)!(c.data) === true;
    const got = verdict(dir, compiled.modules.get(c.uri)!, c.data);
    if (got !== expected) disagreements.push(`${c.id}: generated ${got}, run-time Ajv ${expected}`);
    if (expected) valid++;
  }
  return { cases: cases.length, locations: uris.length, valid, disagreements };
}
