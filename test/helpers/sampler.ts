import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsImport from 'ajv-formats';
import RandExp from 'randexp';

/**
 * A small schema-driven sampler: the smallest instance a JSON Schema document admits that it can find, for handler
 * bodies and requests in the every-tool tests (no hand-written payload per tool). Required properties only; the
 * first `const`/`enum` value; for `oneOf`/`anyOf` the first arm whose sample satisfies the union node (checked with
 * Ajv against the document itself, so a discriminated union picks a consistent arm); `allOf` members merged;
 * `if`/`then`/`else` followed. Strings honour `format`, `pattern` (shortest match) and length bounds; numbers their
 * bounds. Deterministic. Callers validate the result with the schema they serve — the sampler proves nothing.
 *
 * Two richer variants (the conversion corpus): `rich` also fills every optional property down to a few levels and
 * gives arrays one element; `last` does too, preferring the last `enum` value and the last union arm that fits —
 * where releases append what they add, so a newer release's additions get exercised.
 */
export interface SampleOptions {
  readonly variant?: 'minimal' | 'rich' | 'last';
}

/** Optional properties are filled this many object levels down in the rich variants. */
const RICH_DEPTH = 6;
export class Sampler {
  private readonly ajv: Ajv;
  private readonly validators = new Map<string, ValidateFunction | null>();

  constructor(private readonly doc: Record<string, unknown>) {
    this.ajv = new Ajv({ strict: false, allErrors: false, validateFormats: true, validateSchema: false });
    (addFormatsImport as unknown as (a: Ajv) => void)(this.ajv);
    const { $id: _id, $schema: _dialect, ...rest } = doc;
    this.ajv.addSchema(rest, 'doc');
  }

  private seed: Record<string, unknown> = {};

  private variant: NonNullable<SampleOptions['variant']> = 'minimal';

  /** `seed`: root fields the instance must carry (the envelope a runtime adds), honoured by every branch choice. */
  sample(seed: Record<string, unknown> = {}, options: SampleOptions = {}): unknown {
    this.seed = seed;
    this.variant = options.variant ?? 'minimal';
    return this.gen(this.doc, '', 0, {}, undefined, 0);
  }

  /** At the root, the seed wins over anything generated. */
  private pin(pointer: string, value: unknown): unknown {
    return pointer === '' && Object.keys(this.seed).length > 0 ? merge(value, structuredClone(this.seed)) : value;
  }

  private valid(pointer: string, value: unknown): boolean {
    let v = this.validators.get(pointer);
    if (v === undefined) {
      try {
        v = this.ajv.getSchema(`doc#${pointer.split('/').map((t) => encodeURIComponent(t).replace(/%2F/gi, '/')).join('/')}`) ?? null;
      } catch {
        v = null;
      }
      this.validators.set(pointer, v);
    }
    return v === null ? true : v(value) === true;
  }

  private resolve(ref: string): { node: unknown; pointer: string } | undefined {
    if (!ref.startsWith('#')) return undefined;
    const pointer = decodeURIComponent(ref.slice(1));
    let node: unknown = this.doc;
    for (const raw of pointer.split('/').slice(1)) {
      const t = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      if (node === null || typeof node !== 'object') return undefined;
      node = (node as Record<string, unknown>)[t];
    }
    return { node, pointer };
  }

  /** `inherited`: the enclosing object's property schemas, for a `required` name a combinator arm only lists. */
  /** `outer`: what is already known of the same instance (the enclosing node's value), for branch decisions. */
  private gen(node: unknown, pointer: string, depth: number, inherited: Props = {}, outer: unknown = undefined, level = 0): unknown {
    if (node === true || node === undefined) return {};
    if (node === false || node === null || typeof node !== 'object' || depth > 60) return undefined;
    const s = node as Record<string, unknown>;
    let value: unknown;
    if (typeof s.$ref === 'string') {
      const target = this.resolve(s.$ref);
      if (target !== undefined) value = this.gen(target.node, target.pointer, depth + 1, inherited, outer, level);
    }
    if ('const' in s) return s.const;
    if (Array.isArray(s.enum)) {
      const values = this.variant === 'last' ? [...s.enum].reverse() : s.enum;
      return values.find((e) => e !== null) ?? values[0];
    }
    const props: Props = { ...inherited };
    if (s.properties !== null && typeof s.properties === 'object') {
      for (const [name, schema] of Object.entries(s.properties as Record<string, unknown>)) props[name] = { schema, pointer: `${pointer}/properties/${esc(name)}` };
    }
    value = this.pin(pointer, merge(value, this.typed(s, pointer, depth, props, level)));
    const whole = (v: unknown): unknown => merge(structuredClone(outer), v);
    if (Array.isArray(s.allOf)) s.allOf.forEach((m, i) => (value = this.pin(pointer, merge(value, this.gen(m, `${pointer}/allOf/${i}`, depth + 1, props, whole(value), level)))));
    for (const k of ['oneOf', 'anyOf'] as const) {
      const arms = s[k];
      if (!Array.isArray(arms)) continue;
      const candidates = arms.map((arm, i) => this.pin(pointer, merge(structuredClone(value), this.gen(arm, `${pointer}/${k}/${i}`, depth + 1, props, whole(value), level))));
      const order = this.variant === 'last' ? [...candidates].reverse() : candidates;
      value = order.find((c) => this.valid(pointer, whole(c))) ?? candidates[0];
    }
    if (s.if !== undefined && (s.then !== undefined || s.else !== undefined)) {
      const branch = this.valid(`${pointer}/if`, whole(value)) ? 'then' : 'else';
      if (s[branch] !== undefined) value = this.pin(pointer, merge(value, this.gen(s[branch], `${pointer}/${branch}`, depth + 1, props, whole(value), level)));
    }
    return value;
  }

  private typed(s: Record<string, unknown>, pointer: string, depth: number, props: Props, level: number): unknown {
    const rich = this.variant !== 'minimal' && level < RICH_DEPTH;
    const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];
    const type = types.find((t) => t !== 'null') ?? types[0] ?? (s.properties || s.required ? 'object' : s.items || s.prefixItems ? 'array' : undefined);
    switch (type) {
      case 'object': {
        const out: Record<string, unknown> = {};
        const names = [...((s.required as string[] | undefined) ?? [])];
        for (const name of Object.keys(props)) if ((rich || names.length < ((s.minProperties as number | undefined) ?? 0)) && !names.includes(name)) names.push(name);
        for (const name of names) {
          const p = props[name];
          const v = p !== undefined ? this.gen(p.schema, p.pointer, depth + 1, {}, undefined, level + 1) : {};
          if (v !== undefined) out[name] = v;
        }
        return out;
      }
      case 'array': {
        const prefix = Array.isArray(s.prefixItems) ? s.prefixItems : Array.isArray(s.items) ? s.items : [];
        const n = Math.max((s.minItems as number | undefined) ?? 0, prefix.length, rich && s.maxItems !== 0 ? 1 : 0);
        const items = Array.from({ length: n }, (_, i) =>
          i < prefix.length
            ? this.gen(prefix[i], `${pointer}/${Array.isArray(s.prefixItems) ? 'prefixItems' : 'items'}/${i}`, depth + 1, {}, undefined, level + 1)
            : this.gen(s.items, `${pointer}/items`, depth + 1, {}, undefined, level + 1),
        );
        // uniqueItems with several generated items: vary them so they differ.
        return s.uniqueItems === true ? items.map((v, i) => (i === 0 ? v : vary(v, i))) : items;
      }
      case 'string':
        return sampleString(s);
      case 'integer':
      case 'number':
        return sampleNumber(s, type === 'integer');
      case 'boolean':
        return true;
      case 'null':
        return null;
      default:
        return undefined;
    }
  }
}

type Props = Record<string, { schema: unknown; pointer: string }>;

function esc(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

const FORMATS: Record<string, string> = {
  'date-time': '2026-01-15T00:00:00Z',
  date: '2026-01-15',
  time: '00:00:00Z',
  uri: 'https://example.com/a',
  'uri-reference': 'https://example.com/a',
  url: 'https://example.com/a',
  'uri-template': 'https://example.com/{id}',
  email: 'buyer@example.com',
  hostname: 'example.com',
  uuid: '123e4567-e89b-42d3-a456-426614174000',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  duration: 'P1D',
  regex: '^a$',
};

function sampleString(s: Record<string, unknown>): string {
  const min = (s.minLength as number | undefined) ?? 0;
  const max = (s.maxLength as number | undefined) ?? Infinity;
  let out = typeof s.format === 'string' && FORMATS[s.format] !== undefined ? FORMATS[s.format]! : 'sample';
  if (typeof s.pattern === 'string') {
    const r = new RandExp(s.pattern);
    r.randInt = (a: number) => a; // shortest, first choice: deterministic
    r.max = Math.max(1, min);
    out = r.gen();
    if (out.length < min) {
      r.randInt = (a: number, b: number) => Math.min(b, a + min);
      r.max = min;
      out = r.gen();
    }
    return out;
  }
  while (out.length < min) out += 'x';
  return out.length > max ? out.slice(0, max) : out;
}

function sampleNumber(s: Record<string, unknown>, integer: boolean): number {
  let n = typeof s.minimum === 'number' ? s.minimum : typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + (integer ? 1 : 0.5) : 1;
  if (typeof s.maximum === 'number' && n > s.maximum) n = s.maximum;
  if (typeof s.multipleOf === 'number') n = Math.ceil(n / s.multipleOf) * s.multipleOf;
  return integer ? Math.ceil(n) : n;
}

function vary(v: unknown, i: number): unknown {
  if (typeof v === 'string') return `${v}${i}`;
  if (typeof v === 'number') return v + i;
  return v;
}

/** Deep merge for samples: objects merge key by key, anything else is replaced by the later defined value. */
function merge(a: unknown, b: unknown): unknown {
  if (b === undefined) return a;
  if (a === undefined) return b;
  if (isObject(a) && isObject(b)) {
    const out: Record<string, unknown> = { ...a };
    for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v;
    return out;
  }
  // A placeholder `{}` (a required name whose schema sits elsewhere) yields to a concrete value, and vice versa.
  if (isObject(b) && Object.keys(b).length === 0) return a;
  return b;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
