import { escapeToken, getAtPointer, isPlainObject, pointerFromFragment } from '../../shared/index.js';
import { type JsonSchema, type SchemaFile, resolveUri, splitFragment } from '../../load/index.js';

/**
 * The schema nodes deep-strip reasons about, each named by where it lives (`<document id>#<pointer>`) and interned,
 * so the analysis (analysis.ts), the `if` predicates (predicates.ts) and the interpreter meet the very same node
 * objects; `$ref`s are followed through a resolver (a release's registry, or `localResolver` for one in-memory
 * schema), and the documents looked at are tracked so a compiled function can name its inputs.
 */
export type Resolver = (ref: string, baseId: string) => { readonly schema: JsonSchema; readonly uri: string; readonly file?: SchemaFile };

/** One schema node, named by where it lives. */
export interface SchemaNode {
  /** `<document id>#<pointer>`: the identity shapes are keyed by. */
  readonly uri: string;
  readonly base: string;
  readonly pointer: string;
  readonly schema: JsonSchema;
  readonly file?: SchemaFile;
}

export class SchemaNodes {
  private readonly nodes = new Map<string, SchemaNode>();
  private readonly refs = new Map<string, SchemaNode>();
  private readonly regexps = new Map<string, RegExp>();
  /** Files whose nodes the analysis looked at since the last `takeTouched()`. */
  private touched = new Set<SchemaFile>();

  /**
   * `resolved` answers for the `$ref`s already resolved elsewhere (a release's schema graph resolved every one at
   * load, by node identity); `resolver` for any other (an in-memory schema).
   */
  constructor(
    private readonly resolver: Resolver,
    private readonly resolved?: (node: object) => ReturnType<Resolver> | undefined,
  ) {}

  root(schema: JsonSchema, base: string, file?: SchemaFile): SchemaNode {
    return this.intern(base, '', schema, file);
  }

  private intern(base: string, pointer: string, schema: JsonSchema, file?: SchemaFile): SchemaNode {
    const uri = `${base}#${pointer}`;
    let n = this.nodes.get(uri);
    if (n === undefined) {
      n = { uri, base, pointer, schema, file };
      this.nodes.set(uri, n);
    }
    return n;
  }

  child(node: SchemaNode, ...tokens: (string | number)[]): SchemaNode | undefined {
    let schema: unknown = node.schema;
    let pointer = node.pointer;
    for (const t of tokens) {
      if (schema === null || typeof schema !== 'object') return undefined;
      if (Array.isArray(schema)) {
        const i = typeof t === 'number' ? t : /^(0|[1-9]\d*)$/.test(t) ? Number(t) : -1;
        if (i < 0 || i >= schema.length) return undefined;
        schema = schema[i];
      } else {
        if (!Object.hasOwn(schema, String(t))) return undefined;
        schema = (schema as Record<string, unknown>)[String(t)];
      }
      pointer += '/' + escapeToken(t);
    }
    if (typeof schema !== 'boolean' && !isPlainObject(schema)) return undefined;
    return this.intern(node.base, pointer, schema as JsonSchema, node.file);
  }

  deref(node: SchemaNode): SchemaNode | undefined {
    const s = node.schema;
    if (!isPlainObject(s) || typeof s.$ref !== 'string') return undefined;
    const key = `${node.base}\0${s.$ref}`;
    let target = this.refs.get(key);
    if (target === undefined) {
      const r = this.resolved?.(s) ?? this.resolver(s.$ref, node.base);
      const hash = r.uri.indexOf('#');
      const base = hash < 0 ? r.uri : r.uri.slice(0, hash);
      const pointer = hash < 0 ? '' : r.uri.slice(hash + 1);
      target = this.intern(base, pointer, r.schema, r.file);
      this.refs.set(key, target);
    }
    return target;
  }

  touch(node: SchemaNode): void {
    if (node.file !== undefined) this.touched.add(node.file);
  }

  takeTouched(): SchemaFile[] {
    const out = [...this.touched];
    this.touched = new Set();
    return out;
  }

  regexp(source: string): RegExp {
    let re = this.regexps.get(source);
    if (re === undefined) {
      re = new RegExp(source, 'u');
      this.regexps.set(source, re);
    }
    return re;
  }
}

/** A resolver for one in-memory schema: references into itself (`#/definitions/x`, or by its own `$id`). */
export function localResolver(root: JsonSchema, base: string): Resolver {
  return (ref, from) => {
    const { doc, fragment } = splitFragment(ref.startsWith('#') ? `${from}${ref}` : resolveUri(from === '' ? base : from, ref));
    if (doc !== base) throw new Error(`cannot resolve $ref ${JSON.stringify(ref)}: pass a resolver for schemas outside this one`);
    const pointer = pointerFromFragment(fragment);
    const schema = getAtPointer(root, pointer);
    if (typeof schema !== 'boolean' && !isPlainObject(schema)) throw new Error(`$ref ${JSON.stringify(ref)} does not resolve`);
    return { schema: schema as JsonSchema, uri: `${base}#${pointer}` };
  };
}
