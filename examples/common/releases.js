// @ts-check
/**
 * Which AdCP release a call is answered in. The generated runtime names it by its release key (`ctx.release`:
 * "3.0", "3.2", "3.2-beta.5" …); the seller never hard-codes a key, it compares release precision, so the same code
 * serves a set generated from any releases.
 */

/**
 * @param {string} key a release key
 * @returns {[number, number]} its major and minor
 */
export function precision(key) {
  const m = /^(\d+)\.(\d+)/.exec(key);
  if (m === null) throw new Error(`not an AdCP release key: ${key}`);
  return [Number(m[1]), Number(m[2])];
}

/** Whether release `key` is `major.minor` or later. */
export function atLeast(/** @type {string} */ key, /** @type {number} */ major, /** @type {number} */ minor) {
  const [a, b] = precision(key);
  return a > major || (a === major && b >= minor);
}

/**
 * @typedef {{ releases: readonly string[], tools(release?: string): readonly string[] }} ServedAgent
 */

/**
 * One handler per release the agent serves `tool` in (`{ [release key]: handler }`): for tools whose answers differ
 * between releases. Each handler is made for its release, so it never branches on `ctx.release` itself.
 * @template H
 * @param {ServedAgent} agent
 * @param {string} tool
 * @param {(release: string) => H} make
 * @returns {Record<string, H>}
 */
export function perRelease(agent, tool, make) {
  return Object.fromEntries(agent.releases.filter((r) => agent.tools(r).includes(tool)).map((r) => [r, make(r)]));
}
