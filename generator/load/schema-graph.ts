import { isPlainObject, stronglyConnected, walkSchema } from '../shared/index.js';
import type { SchemaFile, SchemaGraph, SchemaReference, SchemaRegistry, ToolDef, ToolReach } from './model.js';

interface DocumentFacts {
  readonly references: SchemaReference[];
  readonly keywords: Set<string>;
}

/**
 * Builds the schema graph (model.ts SchemaGraph) of a release's registry: one walk over every document's schema positions. A dangling `$ref` is
 * recorded, not thrown: a document no tool reaches may dangle harmlessly (release.ts reports the ones a tool
 * reaches, with the file and pointer).
 */
export function buildSchemaGraph(registry: SchemaRegistry, tools: ReadonlyMap<string, ToolDef>): SchemaGraph {
  const facts = new Map<SchemaFile, DocumentFacts>();
  const byNode = new Map<object, SchemaReference>();
  const vocabulary = new Set<string>();
  const propertyNames = new Set<string>();
  // Every file, not only the first of each `$id`: a release may ship the same document twice (same `$id`, same
  // content, two paths), and a tool's schema path can name either copy.
  for (const file of registry.byPath.values()) {
    const references: SchemaReference[] = [];
    const keywords = new Set<string>();
    walkSchema(file.schema, (node, pointer) => {
      if (!isPlainObject(node)) return;
      for (const key of Object.keys(node)) keywords.add(key);
      if (isPlainObject(node.properties)) for (const name of Object.keys(node.properties)) propertyNames.add(name);
      if (Array.isArray(node.required)) for (const name of node.required) if (typeof name === 'string') propertyNames.add(name);
      if (isPlainObject(node.dependencies)) for (const name of Object.keys(node.dependencies)) propertyNames.add(name);
      if (typeof node.$ref !== 'string') return;
      let reference: SchemaReference;
      try {
        reference = { from: file, pointer, ref: node.$ref, target: registry.resolve(node.$ref, file.id) };
      } catch (e) {
        reference = { from: file, pointer, ref: node.$ref, problem: (e as Error).message };
      }
      references.push(reference);
      byNode.set(node, reference);
    });
    for (const k of keywords) vocabulary.add(k);
    facts.set(file, { references, keywords });
  }

  const documentsInOrder = [...registry.byPath.values()].sort(byPath);
  const dependencyMemo = new Map<SchemaFile, SchemaFile[]>();
  const dependencies = (file: SchemaFile): SchemaFile[] => {
    let deps = dependencyMemo.get(file);
    if (deps === undefined) {
      const set = new Set<SchemaFile>();
      for (const r of facts.get(file)?.references ?? []) if (r.target !== undefined) set.add(r.target.file);
      dependencyMemo.set(file, (deps = [...set].sort(byPath)));
    }
    return deps;
  };

  const reach = (roots: readonly SchemaFile[]): SchemaFile[] => {
    const seen = new Set<SchemaFile>();
    const stack = [...roots];
    while (stack.length > 0) {
      const file = stack.pop()!;
      if (seen.has(file)) continue;
      seen.add(file);
      for (const d of dependencies(file)) if (!seen.has(d)) stack.push(d);
    }
    return [...seen].sort(byPath);
  };

  const toolMemo = new Map<string, ToolReach | undefined>();
  const tool = (name: string): ToolReach | undefined => {
    if (toolMemo.has(name)) return toolMemo.get(name);
    const def = tools.get(name);
    const files = (paths: readonly string[]): SchemaFile[] | undefined => {
      const out = paths.map((p) => registry.byPath.get(p));
      return out.every((f) => f !== undefined) ? (out as SchemaFile[]) : undefined;
    };
    const requestRoots = def === undefined ? undefined : files([def.requestSchema]);
    const responseRoots = def === undefined ? undefined : files([def.responseSchema, ...def.asyncResponseSchemas]);
    const result =
      requestRoots === undefined || responseRoots === undefined
        ? undefined
        : lazyReach(() => reach(requestRoots), () => reach(responseRoots), reach([...requestRoots, ...responseRoots]));
    toolMemo.set(name, result);
    return result;
  };

  let cycles: SchemaFile[][] | undefined;
  const graph: SchemaGraph = {
    documents: registry.byId,
    references: (file) => facts.get(file)?.references ?? [],
    referenceAt: (node) => byNode.get(node),
    target(node) {
      const r = byNode.get(node);
      if (r === undefined) throw new Error('not a $ref at a schema position of this release');
      if (r.target === undefined) throw new Error(r.problem);
      return r.target;
    },
    dependencies,
    reach,
    tool,
    get cycles() {
      cycles ??= stronglyConnected(documentsInOrder, dependencies, byPath).filter((c) => c.length > 1 || dependencies(c[0]!).includes(c[0]!));
      return cycles;
    },
    keywords: (file) => facts.get(file)?.keywords ?? new Set(),
    vocabulary,
    propertyNames,
  };
  return graph;
}

/** A tool's reach: `all` (what the compilers read) now, the request's and the responses' own when first asked. */
function lazyReach(request: () => readonly SchemaFile[], response: () => readonly SchemaFile[], all: readonly SchemaFile[]): ToolReach {
  let req: readonly SchemaFile[] | undefined;
  let res: readonly SchemaFile[] | undefined;
  return {
    get request() {
      return (req ??= request());
    },
    get response() {
      return (res ??= response());
    },
    all,
  };
}

function byPath(a: SchemaFile, b: SchemaFile): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}
