import { ownHandler } from './handlers.js';
import { agentFault, invalidRequest, versionUnsupported } from '../wire/errors.js';
import { selectRelease } from '../wire/release-select.js';
import type { Answer, Call } from './call.js';

/**
 * The release that answers, from the caller's `adcp_version` / `adcp_major_version` (versioning.mdx, rule by rule in
 * release-select.ts), the tool's artifacts in it, and the handler for it: one function, written in the highest
 * release serving the tool (a call pinned to another is converted), or the per-release set's own.
 */
export function select(call: Call): Answer | void {
  const { served, tool } = call;
  const choice = selectRelease(served.releases, call.args, served.defaultRelease);
  if (!choice.ok) {
    return call.reject(choice.code === 'VERSION_UNSUPPORTED' ? versionUnsupported(choice.message, choice.details) : invalidRequest(tool, choice.issues));
  }
  call.release = served.byKey(choice.release.key)!;
  const slot = served.slot(call.release, tool);
  if (slot === undefined) {
    const supported = served.releasesServing(tool);
    return call.reject({
      code: 'UNSUPPORTED_FEATURE',
      message: `${tool} is not served in AdCP ${call.release.key}; served in ${supported.join(', ')}`,
      recovery: 'correctable',
      details: { tool, supported_versions: supported },
    });
  }
  call.slot = slot;
  const { handler } = call;
  const fn = typeof handler === 'function' ? handler : ownHandler(handler, call.release.key);
  if (fn === undefined) return call.reject(agentFault(tool, `the agent has no handler for AdCP ${call.release.key}`));
  call.fn = fn;
  call.shape = typeof handler === 'function' ? served.handlerRelease(tool) : call.release;
}
