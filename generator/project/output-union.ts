import { hashJson } from '../shared/index.js';
import type { JsonSchemaObject } from '../load/index.js';

const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';
const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/**
 * Every AdCP rejection the runtime sends (`{ adcp_error: { code, message, … }, context?, status, adcp_version }`).
 * Deliberately only as narrow as the runtime guarantees: a client validating structured errors against the tool's
 * outputSchema must never refuse a well-formed AdCP error.
 */
export const ERROR_BODY: JsonSchemaObject = Object.freeze({
  type: 'object',
  required: ['adcp_error'],
  properties: {
    adcp_error: {
      type: 'object',
      required: ['code', 'message'],
      properties: { code: { type: 'string', minLength: 1 }, message: { type: 'string' } },
    },
  },
}) as JsonSchemaObject;

/**
 * One outputSchema admitting each member (a release's success body, an async status body, the error body): `anyOf`
 * over `$ref`s to the members, each embedded under `$defs` as its own schema resource (an `$id` of its own, so its
 * internal `#/$defs/…` references keep resolving inside it). Identical members (releases that answer alike) appear
 * once. The `$id`s carry the union's content hash: a client that caches compiled schemas by `$id` (the MCP SDK's
 * Ajv does) never meets two different documents under one id.
 */
export function outputUnion(tool: string, members: readonly { label: string; schema: JsonSchemaObject }[]): JsonSchemaObject {
  const hashes = members.map((m) => hashJson(m.schema));
  const unique = members.filter((_, i) => hashes.indexOf(hashes[i]!) === i);
  const hash = hashJson(unique.map((m) => m.schema)).slice(0, 16);
  const base = `urn:adcp-codegen:output:${tool}:${hash}`;
  const defs: Record<string, unknown> = {};
  unique.forEach((m, i) => {
    const { $schema: _dialect, $id: _id, ...rest } = m.schema;
    defs[`member${i}`] = { $id: `${base}:${i}`, ...rest };
  });
  // One dialect for the whole document. 2020-12 only when every member is written in it: draft-07 members (3.0
  // bundles, async bodies) use array-form `items` and `dependencies`, which 2020-12 rejects or ignores, while a
  // 2020-12 member read as draft-07 loses only keywords draft-07 does not know (prefixItems, dependentSchemas),
  // which can only admit more — and this schema must never refuse a body the agent sends.
  const dialects = new Set(unique.map((m) => m.schema.$schema).filter((d) => d !== undefined));
  const $schema = dialects.size === 1 && dialects.has(DRAFT_2020_12) ? DRAFT_2020_12 : DRAFT_07;
  return {
    $schema,
    $id: base,
    type: 'object',
    description: `Any body ${tool} returns: ${unique.map((m) => m.label).join('; ')}.`,
    anyOf: unique.map((_, i) => ({ $ref: `#/$defs/member${i}` })),
    $defs: defs,
  } as JsonSchemaObject;
}
