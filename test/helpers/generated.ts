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
