import type { RequestSignatureVerifier, RequestSigningOptions } from '../../api/signing-types.js';
import type { ProfileRelease } from '../../artifacts/profile.js';
import type { Store } from '../../stores/open.js';
import { trustedKeys } from './keys.js';
import { signingPolicy, type RequestSigningBlock } from './policy.js';
import { checkSigningSdk } from './sdk.js';
import { requestVerifier } from './verifier.js';

/**
 * The agent's verifier of signed requests, as its profile declares it: `request_signing` of the highest release it
 * serves (`supported: true` turns it on; its lists and digest rule are the policy), with the trust the agent's options
 * configure. None when the profile does not advertise signing — signatures are then ignored, as the spec says of
 * `supported: false` — and options for it fail the start, since buyers would read the profile's silence.
 */
export function profileRequestVerifier(profile: { name: string; releases: readonly ProfileRelease[] }, options: RequestSigningOptions | undefined, store: Store): RequestSignatureVerifier | undefined {
  const release = profile.releases[0]!;
  const block = release.capabilities.request_signing as RequestSigningBlock | undefined;
  const where = `profile ${profile.name}'s request_signing (AdCP ${release.key})`;
  if (block?.supported !== true) {
    if (options !== undefined) {
      throw new Error(`adcp-codegen: the agent is configured with signing.requests, but ${where} does not advertise supported: true: buyers read the profile, so add request_signing to its capabilities (and regenerate) or drop the option`);
    }
    return undefined;
  }
  const policy = signingPolicy(block, { profile: options?.profile, releaseBelow32: release.major < 3 || (release.major === 3 && release.minor < 2), where });
  checkSigningSdk();
  const own = options ?? {};
  if ((own.trust ?? []).length === 0) {
    store.log.warn('no_trusted_signer', `adcp-codegen: ${profile.name} advertises request signing but trusts no signer (signing.requests.trust): every signature is request_signature_key_unknown`);
  }
  const clock = own.clock ?? ((): number => Math.floor(Date.now() / 1000));
  return requestVerifier({ policy, keys: trustedKeys(own, clock), store, clock });
}
