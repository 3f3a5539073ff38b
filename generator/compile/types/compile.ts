import { compile, type JSONSchema } from 'json-schema-to-typescript';
import { CodegenError, defineOwn, escapeToken, fragmentFromPointer, isPlainObject, subschemas } from '../../shared/index.js';
import type { EmittedFile, InputRef, Release, SchemaFile, ToolDef } from '../../load/index.js';
import { selectTools } from '../select-tools.js';
import { NAME_MAP_KEYWORDS, ReservedNames } from './reserved-names.js';

/**
 * TypeScript types for every tool's request, response and async responses of one release, in one file
 * (`releases/<key>/types.d.ts`), so handlers and the normalizers' declarations are typed.
 *
 * json-schema-to-typescript runs once per release over one synthetic schema: every modular file the tools reach
 * becomes a `definitions` entry, and every `$ref` is rewritten (to where the release's schema graph resolved it,
 * never through the network) to
 * point at it. Because each shared definition is one object in that document, it is declared once per release,
 * not once per tool. The root is the `ToolTypes` map itself.
 */
export async function compileTypes(release: Release, tools?: readonly string[]): Promise<EmittedFile[]> {
  const selected = selectTools(release, tools);
  const closure = referenceClosure(release, selected);

  // Names plain objects inherit go through json-schema-to-typescript disguised (reserved-names.ts).
  const names = new ReservedNames(release.hash);
  const definitions: Record<string, unknown> = {};
  for (const file of closure) defineOwn(definitions, file.path, rewriteRefs(release, file, file.schema, '', names));

  const properties: Record<string, unknown> = {};
  for (const tool of selected) {
    const entry: Record<string, unknown> = {
      request: titled(definitions, tool.requestSchema, typeName(tool.name, 'request')),
      response: titled(definitions, tool.responseSchema, typeName(tool.name, 'response')),
    };
    const required = ['request', 'response'];
    if (tool.asyncResponseSchemas.length > 0) {
      const asyncProps: Record<string, unknown> = {};
      for (const path of tool.asyncResponseSchemas) {
        const status = asyncStatus(path);
        defineOwn(asyncProps, names.key(status), titled(definitions, path, typeName(tool.name, `async_response_${status}`)));
      }
      entry.async = { type: 'object', properties: asyncProps, required: Object.keys(asyncProps), additionalProperties: false };
      required.push('async');
    }
    defineOwn(properties, names.key(tool.name), { type: 'object', properties: entry, required, additionalProperties: false });
  }

  const root = {
    title: 'ToolTypes',
    description: `Request, response and async response types of every tool of AdCP ${release.version}, keyed by tool name.`,
    type: 'object',
    properties,
    required: selected.map((t) => names.key(t.name)),
    additionalProperties: false,
    definitions,
  };

  let code: string;
  try {
    code = await compile(root as JSONSchema, 'ToolTypes', {
      bannerComment: '',
      format: false,
      declareExternallyReferenced: true,
      unreachableDefinitions: false,
      unknownAny: true,
      strictIndexSignatures: false,
      additionalProperties: true,
      // Tuples from minItems/maxItems explode the output and add no safety a handler needs.
      ignoreMinAndMaxItems: true,
      $refOptions: { resolve: { external: false } },
      customName: (schema) => (typeof schema.title === 'string' ? pascal(schema.title) : undefined),
    });
  } catch (e) {
    throw new CodegenError(`${release.label}`, '', `json-schema-to-typescript failed: ${(e as Error).message}`);
  }
  code = names.restore(code);

  // The types reach most of the release (400+ files for 3.0.6): the release's own hash names them all at once.
  const inputs: InputRef[] = [{ name: release.label, hash: release.hash }];
  return [{ path: `releases/${release.key}/types.d.ts`, contents: code, inputs }];
}

/** `create_media_buy` + `request` → `CreateMediaBuyRequest`: the names handlers import. */
export function typeName(tool: string, part: string): string {
  return pascal(`${tool}_${part}`);
}

function pascal(s: string): string {
  const words = s.split(/[^A-Za-z0-9]+/).filter((w) => w !== '');
  const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return /^[0-9]/.test(name) ? `T${name}` : name;
}

/** `media-buy/build-creative-async-response-input-required.json` → `input_required`. */
function asyncStatus(path: string): string {
  const m = /-async-response-([a-z0-9-]+)\.json$/.exec(path);
  return (m ? m[1]! : path.replace(/\.json$/, '')).replace(/-/g, '_');
}

/** Every schema file the tools' schemas reach (the release's schema graph), in path order: deterministic output. */
function referenceClosure(release: Release, tools: readonly ToolDef[]): readonly SchemaFile[] {
  const roots = tools.flatMap((tool) =>
    [tool.requestSchema, tool.responseSchema, ...tool.asyncResponseSchemas].map((path) => {
      const file = release.schemas.byPath.get(path);
      if (file === undefined) throw new CodegenError(`${release.label}/manifest.json`, `/tools/${escapeToken(tool.name)}`, `schema ${path} is not in the release`);
      return file;
    }),
  );
  return release.graph.reach(roots);
}

/**
 * A copy of one schema node with every `$ref` pointing into the synthetic document's `definitions`, and with
 * `$id`/`$schema` removed so the ref parser never tries to change base URI or fetch anything. Only subschema
 * positions are rewritten; data keywords (enum, const, examples, x-*) are copied as they are.
 */
function rewriteRefs(release: Release, file: SchemaFile, node: unknown, pointer: string, names: ReservedNames): unknown {
  if (!isPlainObject(node)) return node;
  if (typeof node.$ref === 'string') {
    // Draft-07 ignores every keyword beside `$ref`; dropping them also keeps each reference site the very same
    // object as its target, which is what makes a shared definition one declaration instead of one per site.
    let target;
    try {
      target = release.graph.target(node);
    } catch (e) {
      throw new CodegenError(`${release.label}/${file.path}`, `${pointer}/$ref`, (e as Error).message);
    }
    return { $ref: `#/definitions/${escapeToken(target.file.path)}${fragmentFromPointer(names.pointer(target.pointer))}` };
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(node)) {
    // tsType and tsEnumNames are json-schema-to-typescript's own keywords: schema content never writes TypeScript.
    if (key === '$id' || key === '$schema' || key === 'examples' || key === '$comment' || key === 'tsType' || key === 'tsEnumNames') continue;
    defineOwn(out, key, node[key]);
  }
  for (const sub of subschemas(node, pointer)) {
    const rewritten = rewriteRefs(release, file, sub.schema, sub.pointer, names);
    if (sub.key === undefined) defineOwn(out, sub.keyword, rewritten);
    else {
      const holder = out[sub.keyword];
      const copy = Array.isArray(holder) ? holder : isPlainObject(holder) ? holder : undefined;
      if (copy === undefined) continue;
      if (Array.isArray(copy)) {
        if (copy === node[sub.keyword]) out[sub.keyword] = copy.slice();
        (out[sub.keyword] as unknown[])[sub.key as number] = rewritten;
      } else {
        if (copy === node[sub.keyword]) out[sub.keyword] = { ...copy };
        defineOwn(out[sub.keyword] as Record<string, unknown>, String(sub.key), rewritten);
      }
    }
  }
  return conditionalAsUnion(requiredDeclared(disguised(out, names)));
}

/** The node with every property name it declares or requires as json-schema-to-typescript may see it. */
function disguised(node: Record<string, unknown>, names: ReservedNames): Record<string, unknown> {
  const list = (v: unknown): unknown => (Array.isArray(v) ? v.map((n) => (typeof n === 'string' ? names.key(n) : n)) : v);
  if (Array.isArray(node.required)) defineOwn(node, 'required', list(node.required));
  for (const keyword of NAME_MAP_KEYWORDS) {
    const map = Object.prototype.hasOwnProperty.call(node, keyword) ? node[keyword] : undefined;
    if (!isPlainObject(map)) continue;
    const renamed: Record<string, unknown> = {};
    // dependencies/dependentRequired list names as values too.
    for (const key of Object.keys(map)) defineOwn(renamed, names.key(key), keyword === 'dependencies' || keyword === 'dependentRequired' ? list(map[key]) : map[key]);
    defineOwn(node, keyword, renamed);
  }
  return node;
}

/**
 * json-schema-to-typescript only makes a property required when the same schema declares it under `properties`;
 * AdCP often requires names declared elsewhere (an `allOf` sibling, the object a `then` arm refines). Declaring
 * each such name as `{}` (any value) changes nothing that validates and makes the type require it.
 */
function requiredDeclared(node: Record<string, unknown>): Record<string, unknown> {
  if (!Array.isArray(node.required)) return node;
  const properties = isPlainObject(node.properties) ? node.properties : {};
  const undeclared = node.required.filter((n): n is string => typeof n === 'string' && !Object.prototype.hasOwnProperty.call(properties, n));
  if (undeclared.length === 0) return node;
  const declared: Record<string, unknown> = { ...properties };
  for (const name of undeclared) defineOwn(declared, name, {});
  defineOwn(node, 'properties', declared);
  return node;
}

/**
 * json-schema-to-typescript ignores `if`/`then`/`else`, and AdCP states real requirements that way (3.2's
 * get_products response requires `products` and `cache_scope` in its `else` arm), so a handler body missing them
 * would type-check. `if: I, then: T, else: E` is rewritten as one more `allOf` member, `anyOf: [I ∧ T, E]`: a union
 * TypeScript checks. It is a superset of the original (the `E` arm does not carry `¬I`, which has no type), so the
 * types never reject a valid payload; they only stop missing what a branch requires.
 */
function conditionalAsUnion(node: Record<string, unknown>): Record<string, unknown> {
  if (!Object.prototype.hasOwnProperty.call(node, 'if')) return node;
  const { if: cond, then: yes, else: no, ...rest } = node;
  if (yes === undefined && no === undefined) return rest;
  const arm = { anyOf: [{ allOf: [cond, yes ?? {}] }, no ?? {}] };
  const allOf = Array.isArray(rest.allOf) ? [...(rest.allOf as unknown[]), arm] : [arm];
  defineOwn(rest, 'allOf', allOf);
  return rest;
}


/** The definition of a tool schema, with its title set to the exported type name. */
function titled(definitions: Record<string, unknown>, path: string, name: string): { $ref: string } {
  const def = definitions[path];
  if (isPlainObject(def)) defineOwn(definitions, path, { ...def, title: name });
  return { $ref: `#/definitions/${escapeToken(path)}` };
}
