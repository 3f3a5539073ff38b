import type { ErrorObject } from 'ajv';
import { isPlainObject } from '../shared/index.js';
import type { JsonObject, Profile, Release } from './model.js';

/**
 * A profile's capabilities as one release serves them. A profile states its capabilities once, in the newest served
 * release's vocabulary, where they must be valid as written. An older release is shown what it can express: an
 * array item its schema's enum does not know (a `compliance_testing.scenarios` value added in 3.2, which 3.0.6's
 * enum lists only six of) is left out of that release's body, and nothing else is changed — any other defect stays an
 * error, naming the profile file and pointer, as before.
 *
 * The bodies are kept per profile and release for the emit stage (project/capabilities.ts `servedCapabilities`),
 * which publishes each release's own.
 */
const fitted = new WeakMap<Profile, Map<string, JsonObject>>();

/** The capabilities `profile` serves in `release` (its own where no fit was made). */
export function capabilitiesIn(profile: Profile, release: Release): JsonObject {
  return fitted.get(profile)?.get(release.key) ?? profile.capabilities;
}

/**
 * Fits the profile's capabilities to an older release: while `validate` fails on an enum at an array item, that item
 * is removed; answers the first other failure (the profile's defect), or undefined once the body is valid (recorded
 * for the release).
 */
export function fitCapabilities(
  profile: Profile,
  release: Release,
  body: JsonObject,
  validate: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null },
): ErrorObject | undefined {
  let current = structuredClone(body);
  for (;;) {
    if (validate(current)) break;
    const error = validate.errors![0]!;
    const removed = error.keyword === 'enum' ? withoutItem(current, error.instancePath) : undefined;
    if (removed === undefined) return error;
    current = removed;
  }
  const { status: _status, ...served } = current;
  let byRelease = fitted.get(profile);
  if (byRelease === undefined) fitted.set(profile, (byRelease = new Map()));
  byRelease.set(release.key, served);
  return undefined;
}

/** The body without the array item at `pointer` (e.g. `/compliance_testing/scenarios/5`), or undefined if none is there. */
function withoutItem(body: JsonObject, pointer: string): JsonObject | undefined {
  const path = pointer.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const index = Number(path.pop());
  if (!Number.isInteger(index)) return undefined;
  let parent: unknown = body;
  for (const key of path) parent = isPlainObject(parent) || Array.isArray(parent) ? (parent as Record<string, unknown>)[key] : undefined;
  if (!Array.isArray(parent) || index >= parent.length) return undefined;
  parent.splice(index, 1);
  return body;
}
