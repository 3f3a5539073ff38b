import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type * as Generated from '../../generated/index.js';
import { repoRoot } from './releases.js';

/** The committed generated set of this repository (AdCP 3.0.6, the example profiles). */
export async function committedSet(): Promise<typeof Generated> {
  return (await import(pathToFileURL(join(repoRoot, 'generated/index.js')).href)) as typeof Generated;
}

/** A generated set written elsewhere (a temp dir) — typed like the committed one, whose surface it shares. */
export async function setAt(out: string): Promise<typeof Generated> {
  return (await import(pathToFileURL(join(out, 'index.js')).href)) as typeof Generated;
}

/** The example seller's handlers (examples/seller-agent.js): the profile's typed handler set, every one a function. */
export type SellerHandlers = {
  [K in keyof Generated.HandlersFor<'guaranteed-publisher'>]: Extract<Generated.HandlersFor<'guaranteed-publisher'>[K], (...args: never[]) => unknown>;
};

/** Accounts the example seller already holds in the tests: the shared payloads (helpers/payloads.ts) name them by id. */
export const EXAMPLE_ACCOUNTS = [
  { account_id: 'acc_1', brand: { domain: 'acme.example' }, operator: 'acme.example' },
  { account_id: 'acc_legacy', brand: { domain: 'acme.example' }, operator: 'legacy.example' },
];

/** The example seller's handler set (examples/seller/) for a loaded agent, holding EXAMPLE_ACCOUNTS. */
export async function exampleHandlers(agent: unknown): Promise<SellerHandlers> {
  const { createSellerHandlers } = (await import(pathToFileURL(join(repoRoot, 'examples/seller-agent.js')).href)) as {
    createSellerHandlers(agent: unknown, options?: { accounts?: typeof EXAMPLE_ACCOUNTS }): SellerHandlers;
  };
  return createSellerHandlers(agent, { accounts: EXAMPLE_ACCOUNTS });
}
