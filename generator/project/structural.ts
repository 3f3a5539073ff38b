import type { JsonSchemaObject, Release, SchemaFile } from '../load/index.js';
import { copySchemaWithout, isPlainObject } from '../shared/index.js';

/**
 * AdCP 3.2's `annotation_mode: "structural"` (the release's `mcp/<v>/profiles/production`): the presentation-only
 * annotations a validator never reads. Removing them never changes which instances validate.
 */
export const PRESENTATION_ANNOTATIONS: ReadonlySet<string> = new Set(['$comment', 'description', 'enumDescriptions', 'examples', 'title', 'x-tool-summary']);

/** Root combinators whose property descriptions the 3.2 input flattening keeps (they explain dropped constraints). */
const ROOT_CONSTRAINTS = ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'then', 'else'] as const;

/**
 * The structural form of an advertised document, as the spec's projection script makes it: presentation
 * annotations removed from every schema node (walking schema keywords only, so `const`/`default`/`enum` data that
 * happens to hold a `description` key is untouched); for an input schema the root description is put back, with
 * the descriptions of the root properties named by the canonical schema's root constraints (`keep`), which carry
 * the guidance the flattening took away. Pure: the input is not mutated.
 */
export function structural(doc: JsonSchemaObject, input?: { keep: ReadonlySet<string> }): JsonSchemaObject {
  const stripped = copySchemaWithout(doc, (key) => PRESENTATION_ANNOTATIONS.has(key)) as JsonSchemaObject;
  // Output schemas get nothing back: only the input flattening loses guidance worth restoring.
  if (input === undefined) return stripped;
  const { keep } = input;
  const properties = isPlainObject(doc.properties) ? doc.properties : undefined;
  if (properties !== undefined && isPlainObject(stripped.properties)) {
    const restored = { ...stripped.properties };
    for (const name of keep) {
      const original = properties[name];
      const now = restored[name];
      if (isPlainObject(original) && typeof original.description === 'string' && isPlainObject(now)) {
        restored[name] = { ...now, description: original.description };
      }
    }
    stripped.properties = restored;
  }
  return typeof doc.description === 'string' ? { ...stripped, description: doc.description } : stripped;
}

/**
 * The property names a request schema's root constraints mention (`required` and `properties` inside root
 * `allOf`/`anyOf`/`oneOf`/`not`/`if`/`then`/`else`, through nested combinators and `$ref`s): the properties whose
 * descriptions the 3.2 production projection restores after the input flattening. `$ref`s are followed where the
 * release's schema graph resolved them at load.
 */
export function rootConstraintProperties(release: Release, root: SchemaFile): Set<string> {
  const names = new Set<string>();
  const seen = new Set<unknown>();
  const visit = (node: unknown): void => {
    if (!isPlainObject(node) || seen.has(node)) return;
    seen.add(node);
    if (typeof node.$ref === 'string') visit(release.graph.target(node).schema);
    if (Array.isArray(node.required)) for (const n of node.required) if (typeof n === 'string') names.add(n);
    if (isPlainObject(node.properties)) for (const n of Object.keys(node.properties)) names.add(n);
    for (const k of ROOT_CONSTRAINTS) {
      const v = node[k];
      for (const child of Array.isArray(v) ? v : [v]) visit(child);
    }
  };
  for (const k of ROOT_CONSTRAINTS) {
    const v = root.schema[k];
    for (const child of Array.isArray(v) ? v : [v]) visit(child);
  }
  return names;
}
