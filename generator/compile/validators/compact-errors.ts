import { jsonText } from './code.js';
import { ERROR_HELPER, ITEM_ERROR_HELPER, PROPERTY_ERROR_HELPER, PROPERTY_TYPE_HELPER } from './compact.js';
import { joinTexts, topLevelEnd } from './compact-text.js';

/**
 * Ajv's error object literals (`{instancePath:…,schemaPath:…,keyword:…,params:…}`) as calls of compact.ts's error
 * helpers, for compact-code.ts.
 */

const ERROR_KEYS = ['instancePath', 'schemaPath', 'keyword', 'params'];

/** The text of tokens [start, end), error literals inside it rewritten. */
export function spanText(texts: readonly string[], start: number, end: number): string {
  const parts: string[] = [];
  let i = start;
  while (i < end) {
    const err = errorLiteral(texts, i);
    if (err !== undefined && err.end <= end) {
      parts.push(err.text);
      i = err.end;
    } else {
      parts.push(texts[i]!);
      i++;
    }
  }
  return joinTexts(parts);
}

/** An error literal rewritten as a call of one of the helpers: its text, and the helper and arguments it calls. */
export interface ErrorCall {
  readonly helper: string;
  readonly args: readonly string[];
  readonly text: string;
  readonly end: number;
}

export function errorLiteral(texts: readonly string[], i: number): ErrorCall | undefined {
  if (texts[i] !== '{' || texts[i + 1] !== 'instancePath' || !['[', '=', '(', ','].includes(texts[i - 1] ?? '')) return undefined;
  const close = topLevelEnd(texts, i + 1, '}');
  if (close === undefined) return undefined;
  // Entries split at top-level commas.
  const entries: [number, number][] = [];
  let start = i + 1;
  for (;;) {
    const end = topLevelEnd(texts, start, ',', close);
    entries.push([start, end ?? close]);
    if (end === undefined) break;
    start = end + 1;
  }
  if (entries.length !== ERROR_KEYS.length) return undefined;
  const values: string[] = [];
  for (let k = 0; k < entries.length; k++) {
    const [s, e] = entries[k]!;
    const key = ERROR_KEYS[k]!;
    if (texts[s] !== key) return undefined;
    if (e === s + 1) values.push(key); // shorthand `{instancePath,…}`
    else if (texts[s + 1] === ':' && e > s + 2) values.push(spanText(texts, s + 2, e));
    else return undefined;
  }
  const [path, keyword] = [values[1]!, values[2]!];
  if (!isStringToken(path) || !isStringToken(keyword)) return undefined;
  const p = JSON.parse(path) as string;
  const kw = JSON.parse(keyword) as string;
  if (!p.endsWith(`/${kw}`)) return undefined;
  const at = p.slice(0, -kw.length - 1);
  const call = (helper: string, args: string[]): ErrorCall => ({ helper, args, text: `${helper}(${args.join(',')})`, end: close + 1 });
  const run = propertyRun(values[0]!, at);
  if (run === undefined) return call(ERROR_HELPER, [values[0]!, jsonText(at), keyword, values[3]!]);
  if (run.indexes) return call(ITEM_ERROR_HELPER, [values[0]!, jsonText(run.names), keyword, values[3]!]);
  const type = kw === 'type' ? /^\{type:("[a-z]+")\}$/.exec(values[3]!)?.[1] : undefined;
  return type !== undefined ? call(PROPERTY_TYPE_HELPER, [run.base, jsonText(run.names), type]) : call(PROPERTY_ERROR_HELPER, [run.base, jsonText(run.names), keyword, values[3]!]);
}

/**
 * An instance path expression, the function's own (`P` or `instancePath`) followed by string literals and loop
 * indexes (`P+"/a/"+i0+"/b"`), whose schema path `at` walks the same names through `properties` and each index
 * through `items` (`#/properties/a/items/properties/b`): the base, the run (a `*` for each index) and whether it
 * has one; else undefined.
 */
function propertyRun(instance: string, at: string): { base: string; names: string; indexes: boolean } | undefined {
  // A literal holding `+` is no plain name either: splitting at every `+` loses nothing that could match.
  const [base, ...parts] = instance.split('+');
  if (base !== 'P' && base !== 'instancePath') return undefined;
  let run = '';
  let indexes = false;
  for (const part of parts) {
    if (/^i\d+$/.test(part)) {
      if (!run.endsWith('/')) return undefined;
      run += '*';
      indexes = true;
    } else if (/^"[A-Za-z0-9_/-]*"$/.test(part)) {
      const text = JSON.parse(part) as string;
      if (run.endsWith('*') && !text.startsWith('/')) return undefined;
      run += text;
    } else return undefined;
  }
  if (run === '') return at === '#' ? { base, names: '', indexes } : undefined;
  if (!run.startsWith('/')) return undefined;
  const names = run.slice(1).split('/');
  if (!names.every((n) => n === '*' || PLAIN_NAME.test(n))) return undefined;
  return `#${names.map((n) => (n === '*' ? '/items' : `/properties/${n}`)).join('')}` === at ? { base, names: run, indexes } : undefined;
}

/** Property names as they appear unescaped alike in an instance path and in Ajv's schema paths. */
const PLAIN_NAME = /^[A-Za-z0-9_-]+$/;

function isStringToken(text: string): boolean {
  if (!/^"(?:[^"\\]|\\.)*"$/.test(text)) return false;
  try {
    return typeof JSON.parse(text) === 'string';
  } catch {
    return false;
  }
}
