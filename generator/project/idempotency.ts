import type { Release, ToolDef } from '../load/index.js';
import { isPlainObject } from '../shared/index.js';

/**
 * Whether a tool's request declares `idempotency_key` in this release: at its root, an `allOf` member or a
 * `oneOf`/`anyOf` arm, through `$ref`s. Those tools take AdCP's replay contract (security.mdx, Idempotency): a key
 * the buyer sends is honoured whether the release requires it (mutating tools) or leaves it optional (reads).
 * Derived from the schemas, never from a list of tool names.
 */
export function declaresIdempotencyKey(release: Release, tool: ToolDef): boolean {
  const root = release.schemas.byPath.get(tool.requestSchema);
  if (root === undefined) return false;
  const seen = new Set<unknown>();
  const declares = (node: unknown, base: string): boolean => {
    if (!isPlainObject(node) || seen.has(node)) return false;
    seen.add(node);
    if (isPlainObject(node.properties) && Object.prototype.hasOwnProperty.call(node.properties, 'idempotency_key')) return true;
    if (typeof node.$ref === 'string') {
      const target = release.schemas.resolve(node.$ref, base);
      if (declares(target.schema, target.file.id)) return true;
    }
    return (['allOf', 'oneOf', 'anyOf'] as const).some((k) => Array.isArray(node[k]) && (node[k] as unknown[]).some((m) => declares(m, base)));
  };
  return declares(root.schema, root.id);
}

/** The replay contract's tools of a release, each with the insert budget its new keys count against (rule 8). */
export function idempotentTools(release: Release, tools: readonly string[]): Record<string, 'read' | 'write'> {
  const out: Record<string, 'read' | 'write'> = {};
  for (const name of tools) {
    const tool = release.tools.get(name)!;
    if (declaresIdempotencyKey(release, tool)) out[name] = tool.mutating ? 'write' : 'read';
  }
  return out;
}
