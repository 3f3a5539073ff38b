import type { RequestSignatureVerifier, SignatureRefusal, SignatureVerdict } from '../api/signing-types.js';
import type { AdcpErrorBody } from '../wire/errors.js';
import type { RuntimeLog } from '../ops/log.js';

/**
 * What the HTTP entry established of one request before any SDK read its body — who is calling (from the headers)
 * and what its RFC 9421 signature proved — and what the code running the request decided on its own reading of it.
 * The entry makes one per JSON-RPC POST; the transports hand it down with the request (MCP: the server registered for
 * that request; A2A: the SDK's User), and each decision is made where the message is read: a protocol method where
 * the SDK dispatches it, an AdCP call in the call's own stages (call/admit.ts), on the tool that runs. The first
 * refusal is kept; the transport answers the request with it (HTTP 401 and its `WWW-Authenticate`) instead of
 * whatever the SDK made of the refused part, and nothing a refusal covers has run.
 *
 * - anonymous (no credentials) while an authenticator is configured: public tools and methods only (AdCP's tiered
 *   model: discovery is public); everything else is a `credentials` refusal;
 * - the signing policy (`request_signing`): the verifier's `judge` on each call, with the verdict the entry got.
 */

export type Refusal =
  /** Credentials needed (or, with `invalid`, presented and refused): 401 with the entry's challenges (Bearer, Basic). */
  | { readonly kind: 'credentials'; readonly invalid?: string }
  /** A signature needed or failed: 401 `WWW-Authenticate: Signature error="<code>"`. */
  | ({ readonly kind: 'signature' } & SignatureRefusal);

/** The entry's settings the decisions read: the same for every request. */
export interface AdmissionRules {
  /** An authenticator is configured: without credentials only public tools and methods answer. */
  readonly authenticates: boolean;
  /** Tools an anonymous caller may call (HttpOptions.publicTools). */
  readonly publicTools: ReadonlySet<string>;
  /** The profile's signing policy, when it advertises request signing. */
  readonly signatures?: Pick<RequestSignatureVerifier, 'judge'>;
  /** Where a shadowed signature's failure is said (the agent's log; the process's warnings when absent). */
  readonly log?: Pick<RuntimeLog, 'warn'>;
}

/**
 * Who the headers say is calling. `open`: no authenticator is configured, so everyone is let in. `refused`: credentials
 * were presented and refused where request signing is verified — the request is refused all the same, but only once
 * the signing policy has spoken, whose refusal comes first (an unsigned registration of webhook credentials is
 * `request_signature_required` whatever the other credentials: security.mdx; conformance vector 027).
 */
export type Caller = 'principal' | 'anonymous' | 'open' | 'refused';

const CREDENTIALS: Refusal = { kind: 'credentials' };

export class Admission {
  /** The first refusal of the request: the transport answers it. */
  refusal: Refusal | undefined;
  /** A store that failed while the request was served (A2A's task store): the transport answers SERVICE_UNAVAILABLE. */
  fault: Error | undefined;
  /** The A2A protocol method carrying the request's AdCP call (its names on both wires), once the SDK dispatched it. */
  carrier: readonly string[] = [];
  /** The A2A Task the executor answers in this request, once it runs (the task store tells it from one a buyer named). */
  answering: string | undefined;
  /** Whether the A2A SDK dispatched the request to a method of its request handler (it does not for one it cannot run). */
  dispatched = false;
  #warned = false;

  constructor(
    readonly rules: AdmissionRules,
    readonly caller: Caller,
    /** The signature's verdict (ok) at the entry; absent when the profile advertises no request signing. */
    readonly verdict: Extract<SignatureVerdict, { ok: true }> | undefined,
    /** `POST /mcp`: what a warning names. */
    readonly label: string,
    /** A `refused` caller's: what the 401 `invalid_token` says (the authenticator's public message). */
    readonly invalid: string = 'Credentials rejected.',
  ) {}

  /** No principal while credentials are asked for (none presented, or refused): whose Tasks are not kept. */
  get anonymous(): boolean {
    return this.rules.authenticates && (this.caller === 'anonymous' || this.caller === 'refused');
  }

  /** A protocol method the transport runs itself (MCP initialize, tools/list; A2A tasks/get …), public or not. */
  method(methods: readonly string[], isPublic: boolean): Refusal | undefined {
    return this.#refuse(this.#signature(methods) ?? this.#credentials(isPublic));
  }

  /**
   * An AdCP call of `tool` carried by `methods`, by its name (before its arguments are read). Where request signing is
   * verified, the credentials rule waits for `args`: the signing policy reads the arguments, and its refusal comes
   * first (an unsigned registration of webhook credentials is `request_signature_required` whoever calls: vector 027).
   */
  tool(methods: readonly string[], tool: string): Refusal | undefined {
    return this.#refuse(this.#signature(methods, tool) ?? (this.signing ? undefined : this.#credentials(this.rules.publicTools.has(tool))));
  }

  /**
   * The same call with its arguments as the call read them (`undefined` for a call that reads none: a tool the
   * profile does not serve).
   */
  args(methods: readonly string[], tool: string, args: unknown): Refusal | undefined {
    return this.#refuse(this.#signature(methods, tool, args) ?? (this.signing ? this.#credentials(this.rules.publicTools.has(tool)) : undefined));
  }

  /** Whether the signing policy judges this request's calls (by their arguments too: `args`). */
  get signing(): boolean {
    return this.rules.signatures !== undefined && this.verdict !== undefined;
  }

  /** Credentials refused on any call, public ones included; none presented, on a call that needs them. */
  #credentials(isPublic: boolean): Refusal | undefined {
    if (this.caller === 'refused') return { kind: 'credentials', invalid: this.invalid };
    return this.anonymous && !isPublic ? CREDENTIALS : undefined;
  }

  /**
   * The request's refusal once the SDK has answered, which the transport sends in place of that answer: the first one
   * recorded, else a refused caller's own (a message that ran no call — a malformed one — is refused all the same).
   */
  settle(): Refusal | undefined {
    if (this.caller === 'refused') this.#refuse(this.#credentials(true));
    return this.refusal;
  }

  /** The gate one call's stages consult (call/admit.ts), for the method carrying it. */
  gate(methods: readonly string[]): CallGate {
    return new CallGate(this, methods);
  }

  #signature(methods: readonly string[], operation?: string, args?: unknown): Refusal | undefined {
    const { signatures } = this.rules;
    if (signatures === undefined || this.verdict === undefined) return undefined;
    const refused = signatures.judge(this.verdict, { methods, ...(operation !== undefined ? { operation } : {}), ...(args !== undefined ? { args } : {}) });
    if (refused !== undefined) return { kind: 'signature', ...refused };
    if (this.verdict.authenticatedBy === 'fallback' && this.verdict.warning !== undefined && !this.#warned) {
      this.#warned = true;
      const message = `adcp-codegen: ${this.label}: a shadowed request signature failed (${this.verdict.warning})`;
      if (this.rules.log !== undefined) this.rules.log.warn('signature_shadowed', message);
      else process.emitWarning(message);
    }
    return undefined;
  }

  #refuse(refusal: Refusal | undefined): Refusal | undefined {
    if (refusal !== undefined) this.refusal ??= refusal;
    return refusal;
  }
}

/** An Admission bound to the method carrying one AdCP call: what a call's context carries (`ctx.admission`). */
export class CallGate {
  constructor(
    readonly admission: Admission,
    readonly methods: readonly string[],
  ) {}

  tool(tool: string): Refusal | undefined {
    return this.admission.tool(this.methods, tool);
  }

  args(tool: string, args: unknown): Refusal | undefined {
    return this.admission.args(this.methods, tool, args);
  }
}

/**
 * A refused call's own answer, AUTH_REQUIRED: what the pipeline answers it with, never what the buyer sees over HTTP
 * (the transport answers the request 401 in its place), and what a host's own transport would otherwise send.
 */
export function refusalError(tool: string, refusal: Refusal): AdcpErrorBody {
  const message =
    refusal.kind === 'credentials'
      ? `${tool} needs credentials: send them in the Authorization header`
      : `${tool}: ${refusal.code === 'request_signature_required' ? 'this request must be signed (RFC 9421)' : `the request signature was refused (${refusal.code})`}`;
  return { code: 'AUTH_REQUIRED', message, recovery: 'correctable' };
}

/**
 * The Admission an SDK's User carries (transports/http: the User the entry made for the request), so that the A2A
 * executor and task store, which the SDK hands only its call context, find the request they serve.
 */
const byUser = new WeakMap<object, Admission>();

export function carry<U extends object>(user: U, admission: Admission): U {
  byUser.set(user, admission);
  return user;
}

/** The Admission of the request an SDK call context (`{ user }`) serves, if the entry made one. */
export function admissionOf(context: unknown): Admission | undefined {
  const user = context !== null && typeof context === 'object' ? (context as { user?: unknown }).user : undefined;
  return user !== null && typeof user === 'object' ? byUser.get(user) : undefined;
}
