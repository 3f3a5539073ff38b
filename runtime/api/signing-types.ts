import type { PrivateJwk } from './webhook-types.js';

/**
 * Signed requests (RFC 9421, security.mdx "Signed Requests (Transport Layer)"): the verifier's options and what it
 * answers the HTTP entry. Types only, structural: nothing here names @adcp/sdk, whose verifier runs behind them.
 */

/** A public JSON Web Key as AdCP publishes it at a signer's `jwks_uri` (`adcp_use: "request-signing"`). */
export interface SigningJwk {
  kid: string;
  kty: string;
  crv?: string;
  alg?: string;
  use?: string;
  key_ops?: string[];
  adcp_use?: string;
  x?: string;
  y?: string;
  [member: string]: unknown;
}

export interface SigningJwks {
  keys: readonly SigningJwk[];
}

/**
 * The wire profile this endpoint verifies:
 * - `'3.2'`: AdCP 3.2's — RFC 8941 `sf-binary` (standard Base64) only, `content-digest` covered on every signed request
 *   with a body, an empty DNS label in the authority refused. The profile must advertise
 *   `covers_content_digest: "required"`.
 * - `'legacy-3.1'`: the 3.0/3.1 wire posture, for a separately configured endpoint: the legacy unpadded Base64URL
 *   accepted, and `covers_content_digest` as the profile advertises it — `required`, or, on a profile whose releases
 *   all predate 3.2, `forbidden` or `either` (a profile serving 3.2 must advertise `required`: its 3.2 capabilities
 *   schema says so). AdCP's graded `signed_requests` storyboard signs with the legacy alphabet.
 * Default: `'3.2'`, unless the profile's highest release predates 3.2 (its `request_signing` block is a 3.0/3.1 one):
 * then `'legacy-3.1'`.
 */
export type RequestSigningProfile = '3.2' | 'legacy-3.1';

/** A brand.json `agents[]` entry whose `jwks_uri` publishes a signer's keys (@adcp/sdk's BrandJsonJwksResolver). */
export interface BrandJsonKeys {
  /** The operator's brand.json (`https://…/.well-known/brand.json`). */
  url: string;
  /** The signing agent's `agents[].type`. */
  agentType: 'brand' | 'rights' | 'measurement' | 'governance' | 'creative' | 'sales' | 'buying' | 'signals';
  /** Its `agents[].id`, when brand.json declares more than one agent of that type. */
  agentId?: string;
  /** Its brand within a house portfolio (`brands[].id`). */
  brandId?: string;
}

/**
 * One counterparty whose signatures the agent accepts: where its public keys come from (exactly one of `jwks`,
 * `jwksUrl`, `brandJson`), who a verified signature from them is, and its revocations and replay cap.
 */
export interface SignerTrust {
  /** Its keys, as a JWKS object or the path of a JSON file holding one (read at start). */
  jwks?: SigningJwks | string;
  /** Its `jwks_uri`: fetched on first need, cached, refetched on an unknown `kid` at most every 30 s; https only. */
  jwksUrl?: string;
  /** Its operator's brand.json, whose agent entry names its `jwks_uri` (cached and refetched alike). */
  brandJson?: BrandJsonKeys;
  /** The signing agent's URL (its brand.json `agents[].url`), reported as the signer's `agent_url`. */
  agentUrl?: string;
  /**
   * Who a verified signature from these keys is (it scopes idempotency keys and reaches handlers as
   * `ctx.principal`). Default: `agentUrl`, else the one brand.json names, else `keyid:<kid>`.
   */
  principal?: string;
  /** Key ids of these keys revoked (checklist step 9: `request_signature_key_revoked`). */
  revokedKeyids?: readonly string[];
  /**
   * Its signed revocation list (AdCP's `{ issuer, updated, next_update, revoked_kids }`), polled as `next_update` says;
   * past `next_update` plus 5 minutes unrefreshed, its signatures fail closed (`request_signature_revocation_stale`).
   */
  revocationUrl?: string;
  /** The `issuer` that list must name. */
  revocationIssuer?: string;
  /**
   * Unexpired nonces one key may hold in the replay store before its next signature is `request_signature_rate_abuse`
   * (checklist step 9a). Default: `RequestSigningOptions.capPerKeyid`. AdCP's test kit grades with 100 for its test
   * counterparty only; production keys keep the default.
   */
  capPerKeyid?: number;
}

export interface RequestSigningOptions {
  profile?: RequestSigningProfile;
  /** The counterparties whose signatures verify. A `kid` two of them publish belongs to the first. */
  trust?: readonly SignerTrust[];
  /** Key ids revoked whoever publishes them. */
  revokedKeyids?: readonly string[];
  /** Default per-keyid replay cap: 1,000,000 unexpired nonces (security.mdx's recommended ceiling). */
  capPerKeyid?: number;
  /** Lets JWKS, brand.json and revocation fetches reach http:// and private addresses: local development only. */
  allowPrivateNetwork?: boolean;
  /** The verifier's clock, in Unix seconds (tests pin it; default the system clock). */
  clock?: () => number;
}

/** The agent's signatures: the key it signs with (webhooks), and whose signed requests it accepts. */
export interface SigningOptions {
  /**
   * The key webhooks are signed with: a private JWK, or `{ file }` naming a file holding one as JSON. Default: the
   * `ADCP_SIGNING_KEY` environment variable (the JWK as JSON), else `ADCP_SIGNING_KEY_FILE` (a path). Never from the
   * generated set or the repository. With none, a sandbox agent (a `sandbox` profile, or mode `development`) makes
   * an Ed25519 development key in its store on its first start, which every instance sharing the store then uses; a
   * production agent whose profile advertises `webhook_signing.supported` refuses to start.
   */
  key?: PrivateJwk | { readonly file: string };
  /**
   * Verifying signed requests, when the profile advertises `request_signing.supported: true` (the profile's block
   * decides which operations require or shadow signatures and the digest policy; these options say whose keys to
   * trust and how). Configured for a profile that does not advertise it, the start fails.
   */
  requests?: RequestSigningOptions;
}

/** One HTTP request as received, for the verifier: its headers and raw bytes, never a reading of its body. */
export interface SignedRequestInput {
  method: string;
  /**
   * The absolute URL the signer signed: the public scheme, the as-received `Host` (or `:authority`), and the request
   * target (`req.url`, path and query, unchanged). A `Host` header that names another authority than this URL is
   * `request_target_uri_malformed`.
   */
  url: string;
  headers: { readonly [name: string]: string | string[] | undefined };
  /** The raw body exactly as received (UTF-8 text of the bytes); '' for none. Never a re-serialization. */
  body: string;
  /**
   * Whether another authenticator of the agent (`authenticate`: bearer, API key, mTLS) accepted this request's
   * credentials. Decides the composition (security.mdx, "Composition with fallback authenticators").
   */
  authenticated?: boolean;
}

/** The signer a valid signature establishes (checklist passed). */
export interface VerifiedRequestSigner {
  keyid: string;
  agent_url?: string;
  /** Its principal (`SignerTrust.principal`). */
  principal: string;
  /** Unix seconds. */
  verified_at: number;
}

/** A 401 the signing policy answers: `WWW-Authenticate: <wwwAuthenticate>` (exactly `Signature error="<code>"`). */
export interface SignatureRefusal {
  status: 401;
  code: string;
  wwwAuthenticate: string;
  /** For the server's log only, never the response. */
  detail: string;
}

/**
 * The verifier's answer on a request's headers and bytes (`verify`). What the request invokes is not read here: the
 * code that runs each call asks `judge` on its own reading of it.
 * - `signature`: a valid signature; `signer` is an authenticated principal of its own, credentials or not.
 * - `fallback`: unsigned, another authenticator accepted the request. With `warning`: a well-formed signature failed
 *   (its code) while another credential was accepted — the request goes on only for calls the policy shadows
 *   (`warn_for`, `protocol_methods_warn_for`); `judge` refuses the others with that code. No signer either way.
 * - `none`: unsigned, no other credential: the entry's own rules decide (public tools), and `judge` the policy's.
 * - `ok: false`: answer 401 (`SignatureRefusal`) before any pipeline work, whatever the request invokes.
 */
export type SignatureVerdict =
  | { ok: true; authenticatedBy: 'signature'; signer: VerifiedRequestSigner }
  | { ok: true; authenticatedBy: 'fallback'; warning?: string }
  | { ok: true; authenticatedBy: 'none' }
  | ({ ok: false } & SignatureRefusal);

/** One call of a request as the code that runs it read it, for `judge`. */
export interface SignedCall {
  /** The protocol method carrying it, under each name it may go by (`tools/call`; A2A `message/send` and `SendMessage`). */
  methods: readonly string[];
  /** The AdCP operation it runs (MCP tools/call's tool, an A2A message's skill), if any. */
  operation?: string;
  /** Its arguments as the call read them, once read: a registration of webhook credentials in them must be signed. */
  args?: unknown;
}

export interface RequestSignatureVerifier {
  /** The wire profile verified. */
  readonly profile: RequestSigningProfile;
  /**
   * The verifier checklist for one request's signature, composed with the other authenticators. Rejects (throws)
   * only when the store cannot be reached (a StoreUnavailable: answer 503), never for a signature.
   */
  verify(request: SignedRequestInput): Promise<SignatureVerdict>;
  /**
   * The signing policy on one call of a request `verify` let through, decided on the reading that runs the call: an
   * unsigned call of a `required_for` operation or `protocol_methods_required_for` method without other credentials,
   * or an unsigned registration of webhook credentials whatever the credentials, is `request_signature_required`; under
   * a failed signature (`fallback` with `warning`), a call the policy does not shadow is refused with that code.
   */
  judge(verdict: Extract<SignatureVerdict, { ok: true }>, call: SignedCall): SignatureRefusal | undefined;
}
