// @ts-check
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { answering } from '../common/errors.js';
import { readDocument } from './portfolio.js';
import { createRegistry } from './registry.js';

/**
 * The reference brand agent: the identity layer of AdCP for the brands whose documents it holds (a house's brand.json,
 * its children's canonical documents), behind every tool of the `brand-agent` profiles. It serves each brand's
 * identity section by section and discovery across its roster, with each brand's house relationship resolved by the
 * mutual-assertion model.
 *
 *   portfolio.js    reading brand documents; the house relationship and its trust
 *   registry.js     get_brand_identity, search_brands
 *
 * Rights licensing (the brand-rights specialism: get_rights, acquire_rights, update_rights) is not implemented: an
 * acquired grant carries a rights constraint whose attestation references are signed rights-grant credentials, which
 * this agent does not issue.
 *
 * @typedef {{ now?: () => Date, documents?: Record<string, any>[], documentFiles?: string[] }} BrandOptions
 *   `documents`: brand documents (parsed); `documentFiles`: files holding them, JSON or YAML (a test kit's `brand`
 *   section is read as its brand) — default the paths in ADCP_BRAND_DOCUMENTS, comma-separated
 */

const RUNTIME_TOOLS = new Set(['get_adcp_capabilities', 'get_task_status', 'list_tasks', 'sync_agent_notification_configs']);

/** The documents a file holds: a brand.json document, or a test kit whose `brand` section is one. */
function documentsIn(/** @type {string} */ path) {
  const text = readFileSync(path, 'utf8');
  const doc = /** @type {Record<string, any>} */ (path.endsWith('.json') ? JSON.parse(text) : parse(text));
  return [doc.brand !== undefined && doc.brand.house !== undefined ? doc.brand : doc];
}

/**
 * The handler set for a loaded profile: exactly the tools it serves.
 * @param {import('../seller/index.js').LoadedAgent} agent
 * @param {BrandOptions} [options]
 */
export function createBrandAgent(agent, options = {}) {
  const now = options.now ?? (() => new Date());
  const files = options.documentFiles ?? (process.env.ADCP_BRAND_DOCUMENTS ?? '').split(',').filter((f) => f !== '');
  const documents = [...(options.documents ?? []), ...files.flatMap(documentsIn)].map(readDocument);
  // A document's section AdCP's identity response cannot carry (an industry outside its vocabulary, a malformed
  // colour) is left out of what the agent serves, with a warning: the release's response schema is the judge.
  const release = agent.releases.find((r) => agent.tools(r).includes('get_brand_identity')) ?? agent.releases[0];
  const fits = (/** @type {string} */ tool, /** @type {Record<string, unknown>} */ body) => agent.validateResponse(tool, { ...body, status: 'completed', adcp_version: release }, { release });
  const registry = createRegistry({ documents, now, fits });
  /** @type {Record<string, (args: any, ctx: any) => unknown>} */
  const implementations = { ...registry.handlers };
  /** @type {Record<string, unknown>} */
  const handlers = {};
  for (const tool of [...new Set(agent.releases.flatMap((r) => agent.tools(r)))].filter((t) => !RUNTIME_TOOLS.has(t))) {
    const impl = implementations[tool];
    if (impl === undefined) throw new Error(`the reference brand agent does not implement ${tool}, which the profile serves`);
    handlers[tool] = answering(impl);
  }
  return { handlers, registry };
}
