import type { RequestSignatureVerifier, SignatureRefusal, SignatureVerdict, SignedRequestInput } from '../../api/signing-types.js';
import type { Store } from '../../stores/open.js';
import { carriesWebhookCredentials, headerValue } from './envelope.js';
import type { TrustedKeys } from './keys.js';
import { requiresSignature, shadowed, shadowsAny, type SigningPolicy } from './policy.js';
import { replayStore } from './replay-store.js';
import { SignatureFailure, signatureCode, signingSdk, structuredHeaders, type SdkCapability } from './sdk.js';

/**
 * Signed requests for the HTTP entry (security.mdx, "Signed Requests (Transport Layer)"): the verifier checklist run by
 * @adcp/sdk's `verifyRequestSignature` over the agent's keys and replay store, with the few checks 6.11 does not make
 * (AdCP 3.2's strict sf-binary, digest and authority rules), composed with the agent's other authenticators as
 * "Composition with fallback authenticators" says. `verify` reads the headers and the raw bytes, never what the body
 * invokes; `judge` applies the policy to each call on the reading of the code that runs it (call/admission.ts):
 *
 * 1. No `Signature` nor `Signature-Input`: `fallback` or `none`, as the other authenticator said; `judge` refuses an
 *    unsigned call of a `required_for` operation or `protocol_methods_required_for` method unless another authenticator
 *    accepted the request, and an unsigned registration of webhook credentials whatever it accepted.
 * 2. One without the other, or either malformed: `request_signature_header_malformed`, always (no fallback).
 * 3. Both: the checklist. Passed, the signer is a principal of its own (`signature`). Failed, the request is refused
 *    with the failure's code — unless another authenticator accepted it and the policy shadows something (`warn_for`):
 *    then `fallback` with the code as a `warning`, and `judge` refuses, with that code, every call not shadowed.
 */

export interface VerifierSettings {
  readonly policy: SigningPolicy;
  readonly keys: TrustedKeys;
  readonly store: Store;
  /** Unix seconds. */
  readonly clock?: () => number;
}

/** Failures that say the pair cannot be read as signed or unsigned: they never fall back (checklist preamble). */
const MALFORMED = new Set(['request_signature_header_malformed', 'request_signature_params_incomplete']);

export function requestVerifier(settings: VerifierSettings): RequestSignatureVerifier {
  const { policy, keys } = settings;
  const clock = settings.clock ?? ((): number => Math.floor(Date.now() / 1000));
  const replay = replayStore(settings.store, keys.capOf);
  const refusal = (code: string, detail: string): SignatureRefusal => ({ status: 401, code, wwwAuthenticate: `Signature error="${code}"`, detail });
  const reject = (code: string, detail: string): SignatureVerdict => ({ ok: false, ...refusal(code, detail) });

  return {
    profile: policy.profile,
    async verify(request) {
      const signatureInput = headerValue(request.headers, 'signature-input');
      const signature = headerValue(request.headers, 'signature');
      if (signatureInput === undefined && signature === undefined) return request.authenticated === true ? { ok: true, authenticatedBy: 'fallback' } : { ok: true, authenticatedBy: 'none' };
      try {
        if (signatureInput === undefined || signature === undefined) {
          throw new SignatureFailure('request_signature_header_malformed', 'Signature and Signature-Input must come as a pair');
        }
        preChecks(request, signature, policy);
        const sdk = signingSdk();
        const hasBody = request.body.length > 0;
        const capability: SdkCapability = { supported: true, covers_content_digest: hasBody ? policy.digest : 'either', required_for: [] };
        const verified = await sdk.verifyRequestSignature(
          { method: request.method, url: request.url, headers: request.headers, body: request.body },
          { capability, jwks: keys.jwks, replayStore: replay, revocationStore: keys.revocation, now: clock },
        );
        if (verified.status !== 'verified') throw new SignatureFailure('request_signature_header_malformed', 'the signature headers were not read');
        const signer = keys.signerOf(verified.keyid);
        return {
          ok: true,
          authenticatedBy: 'signature',
          signer: { keyid: verified.keyid, ...(signer.agentUrl !== undefined ? { agent_url: signer.agentUrl } : {}), principal: signer.principal, verified_at: verified.verified_at },
        };
      } catch (e) {
        const code = signatureCode(e);
        if (code === undefined) throw e;
        // Refused now unless a shadowed call could still fall back: which calls are is the code running them to say.
        if (!MALFORMED.has(code) && request.authenticated === true && shadowsAny(policy)) return { ok: true, authenticatedBy: 'fallback', warning: code };
        return reject(code, (e as Error).message);
      }
    },
    judge(verdict, call) {
      if (verdict.authenticatedBy === 'signature') return undefined;
      const failed = verdict.authenticatedBy === 'fallback' ? verdict.warning : undefined;
      if (failed !== undefined) {
        if (carriesWebhookCredentials(call.args)) return refusal(failed, 'a request registering webhook credentials carried a signature that failed');
        return shadowed(policy, call) ? undefined : refusal(failed, `the signature failed and ${call.operation ?? call.methods[0] ?? 'the call'} is not shadowed (warn_for)`);
      }
      if (carriesWebhookCredentials(call.args)) return refusal('request_signature_required', 'a request registering webhook credentials (…authentication) must be signed');
      if (verdict.authenticatedBy === 'none' && requiresSignature(policy, call)) {
        return refusal('request_signature_required', `${call.operation ?? call.methods[0] ?? 'the call'} requires a signed request or another accepted credential`);
      }
      return undefined;
    },
  };
}

/**
 * What 6.11 does not check: the as-received authority against the signed URL (checklist step 10's cross-vhost rule),
 * and under the 3.2 profile RFC 8941 sf-binary — the SDK's parser quietly accepts the legacy Base64URL alphabet, the
 * `structured-headers` library it depends on does not — and an empty DNS label (`a..b`, `a..`), which is no spelling
 * of a name.
 */
function preChecks(request: SignedRequestInput, signature: string, policy: SigningPolicy): void {
  const sdk = signingSdk();
  const signed = authorityOf(sdk.canonicalAuthority, request.url);
  for (const name of ['host', ':authority']) {
    const received = headerValue(request.headers, name);
    if (received === undefined || signed === undefined) continue; // a URL with no authority is the SDK's to refuse
    if (authorityOf(sdk.canonicalAuthority, `${schemeOf(request.url)}//${received}/`) !== signed) {
      throw new SignatureFailure('request_target_uri_malformed', `the request's ${name} names another authority than the URL it was verified for`);
    }
  }
  if (policy.profile !== '3.2') return;
  try {
    structuredHeaders().parseDictionary(signature);
  } catch (e) {
    throw new SignatureFailure('request_signature_header_malformed', `Signature is not an RFC 8941 dictionary (3.2 sf-binary is standard Base64): ${(e as Error).message}`);
  }
  let host: string;
  try {
    host = new URL(request.url).hostname;
  } catch {
    return; // the SDK's canonicalization refuses what no URL parser reads
  }
  if (!host.startsWith('[') && (host.startsWith('.') || host.includes('..'))) {
    throw new SignatureFailure('request_target_uri_malformed', `the authority ${JSON.stringify(host)} holds an empty DNS label`);
  }
}

function schemeOf(url: string): string {
  const i = url.indexOf(':');
  return i > 0 ? url.slice(0, i + 1) : 'https:';
}

/** The canonical authority, or undefined when the URL has none that canonicalizes. */
function authorityOf(canonical: (url: string) => string, url: string): string | undefined {
  try {
    return canonical(url);
  } catch {
    return undefined;
  }
}
