import type { Issue } from '../artifacts/contract.js';
import type { Mode } from '../api/agent-types.js';

/**
 * The issues as a rejection sends them, under error-handling.mdx's production-emit rules ("Validator-internals
 * fields on issues"). `schema_id` and `discriminator` name a public schema element and a value the caller sent, so
 * anyone can replay the validation: they are sent in production when the release's schemas are AdCP's published
 * ones for the version that answered (`published`); a private or unpublished copy of the schemas (the page's
 * private-extension and version-skew carve-outs) keeps them to development. `schemaPath` is validator traversal —
 * 3.1+ consumers are told to prefer `schema_id`, and the page lets a seller keep these fields to development for
 * terser production errors — so production leaves it out. Development sends everything.
 */
export function wireIssues(issues: readonly Issue[], mode: Mode, published: boolean): Issue[] {
  if (mode === 'development') return issues.slice();
  return issues.map((i) => {
    if (i.schemaPath === undefined && (published || (i.schema_id === undefined && i.discriminator === undefined))) return i;
    const { schemaPath: _path, schema_id, discriminator, ...rest } = i;
    return published ? { ...rest, ...(schema_id !== undefined ? { schema_id } : {}), ...(discriminator !== undefined ? { discriminator } : {}) } : rest;
  });
}
