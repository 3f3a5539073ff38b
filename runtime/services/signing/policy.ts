import type { RequestSigningProfile } from '../../api/signing-types.js';
import type { SignedCall } from '../../api/signing-types.js';

/**
 * The verifier's policy, from the profile's `request_signing` block (the truth buyers read) and the endpoint's wire
 * profile: which operations and protocol methods require a signature or only shadow one, and the digest rule. Precedence
 * as the spec orders it: required_for > warn_for > supported_for (which verifies when signed, like every operation).
 */

export interface RequestSigningBlock {
  readonly supported?: unknown;
  readonly covers_content_digest?: unknown;
  readonly required_for?: unknown;
  readonly warn_for?: unknown;
  readonly supported_for?: unknown;
  readonly protocol_methods_required_for?: unknown;
  readonly protocol_methods_warn_for?: unknown;
  readonly protocol_methods_supported_for?: unknown;
}

export type DigestPolicy = 'required' | 'forbidden' | 'either';

export interface SigningPolicy {
  readonly profile: RequestSigningProfile;
  /** The digest rule for a signed request with a body (3.2: always `required`; no body never needs one). */
  readonly digest: DigestPolicy;
  readonly requiredFor: ReadonlySet<string>;
  readonly warnFor: ReadonlySet<string>;
  readonly methodsRequiredFor: ReadonlySet<string>;
  readonly methodsWarnFor: ReadonlySet<string>;
}

/**
 * The policy the profile states for this endpoint. A 3.2 endpoint, and any profile serving 3.2, must advertise
 * `covers_content_digest: "required"` (security.mdx, "Content-digest and proxy compatibility"; the 3.2 capabilities
 * schema): advertising a legacy posture there fails the start, naming the way out. `releaseBelow32`: the profile's
 * highest release predates 3.2, whose block is a 3.0/3.1 one. Under `legacy-3.1`, the legacy Base64URL alphabet is
 * accepted and the advertised digest rule applies.
 */
export function signingPolicy(block: RequestSigningBlock, options: { profile?: RequestSigningProfile; releaseBelow32: boolean; where: string }): SigningPolicy {
  const profile = options.profile ?? (options.releaseBelow32 ? 'legacy-3.1' : '3.2');
  if (profile !== '3.2' && profile !== 'legacy-3.1') throw new Error(`adcp-codegen: signing.requests.profile must be "3.2" or "legacy-3.1", not ${JSON.stringify(profile)}`);
  const advertised = block.covers_content_digest;
  if (advertised !== undefined && advertised !== 'required' && advertised !== 'forbidden' && advertised !== 'either') {
    throw new Error(`adcp-codegen: ${options.where}.covers_content_digest is ${JSON.stringify(advertised)}, not "required", "forbidden" or "either"`);
  }
  // The 3.2 capabilities schema itself says so (if request_signing.supported and a 3.2 version is served, then
  // covers_content_digest is "required"): a profile serving 3.2 states "required" whatever wire profile verifies it.
  if (advertised !== 'required' && (profile === '3.2' || !options.releaseBelow32)) {
    throw new Error(
      `adcp-codegen: ${options.where} advertises covers_content_digest ${JSON.stringify(advertised ?? '(absent: "either")')}, but ${options.releaseBelow32 ? 'this endpoint verifies AdCP 3.2\'s profile' : 'the profile serves AdCP 3.2, whose capabilities'} require${options.releaseBelow32 ? 's' : ''} "required": advertise "required" (and regenerate)${options.releaseBelow32 ? ', or configure signing.requests.profile "legacy-3.1"' : '; a legacy "either" or "forbidden" posture belongs to an endpoint serving only 3.0/3.1'}`,
    );
  }
  const list = (field: keyof RequestSigningBlock): ReadonlySet<string> => {
    const value = block[field];
    if (value === undefined) return new Set();
    if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new Error(`adcp-codegen: ${options.where}.${field} must be an array of names`);
    return new Set(value as string[]);
  };
  return {
    profile,
    digest: profile === '3.2' ? 'required' : ((advertised as DigestPolicy | undefined) ?? 'either'),
    requiredFor: list('required_for'),
    warnFor: list('warn_for'),
    methodsRequiredFor: list('protocol_methods_required_for'),
    methodsWarnFor: list('protocol_methods_warn_for'),
  };
}

/** Whether the call requires a signature: its operation in `required_for`, or a method carrying it in `protocol_methods_required_for`. */
export function requiresSignature(policy: SigningPolicy, call: Pick<SignedCall, 'methods' | 'operation'>): boolean {
  return (call.operation !== undefined && policy.requiredFor.has(call.operation)) || call.methods.some((m) => policy.methodsRequiredFor.has(m));
}

/**
 * Whether a failed signature may fall back to the other authenticator for this call (shadow mode): nothing requires a
 * signature of it, and it is shadowed — its operation in `warn_for` or a method carrying it in `protocol_methods_warn_for`.
 */
export function shadowed(policy: SigningPolicy, call: Pick<SignedCall, 'methods' | 'operation'>): boolean {
  if (requiresSignature(policy, call)) return false;
  return (call.operation !== undefined && policy.warnFor.has(call.operation)) || call.methods.some((m) => policy.methodsWarnFor.has(m));
}

/** Whether the policy shadows anything at all: a failed signature can only be refused outright when it does not. */
export function shadowsAny(policy: SigningPolicy): boolean {
  return policy.warnFor.size > 0 || policy.methodsWarnFor.size > 0;
}
