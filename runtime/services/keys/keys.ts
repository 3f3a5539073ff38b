import { readFileSync } from 'node:fs';
import type { SigningOptions } from '../../api/signing-types.js';
import type { Store } from '../../stores/open.js';
import { ADCP_USE, configuredKey, developmentKey, storedKey, type AdcpUse, type KeyPair, type PublicJwk } from './key-material.js';

/**
 * The agent's signing key for one purpose: the deployment's own (the option, else the purpose's environment variable
 * holding the private JWK as JSON, else its `…_FILE` variable naming a file holding it), never anything from the
 * generated set; without one, a sandbox agent's development key, made once in the store (`adcp_signing_keys`, one row
 * per purpose) so every instance sharing the store signs with the same key and publishes it; a production agent has
 * none. Purposes: the request-signing key webhooks are signed with (`AgentOptions.signing.key`, `ADCP_SIGNING_KEY`,
 * row `development`), and a governance agent's `governance_context` key (`AgentOptions.governance.key`,
 * `ADCP_GOVERNANCE_KEY`, row `governance`).
 */
export interface SigningKeys {
  /** Whether the deployment configured a key (option or environment). */
  readonly configured: boolean;
  /** The key pair, read (and in a sandbox made) once; rejects, in one line, when there is none. */
  pair(): Promise<KeyPair>;
  /** The agent's JWKS (its public keys), or undefined when it has no key. */
  jwks(): Promise<{ keys: PublicJwk[] } | undefined>;
}

export interface KeySettings {
  readonly profile: string;
  /** A sandbox agent (sandbox profile, or mode development) may make a development key. */
  readonly sandbox: boolean;
  readonly option?: SigningOptions['key'];
  readonly env?: NodeJS.ProcessEnv;
  /** What the key signs (default: requests and webhooks). */
  readonly purpose?: KeyPurpose;
}

/** Where a purpose's key is configured and kept. */
export interface KeyPurpose {
  readonly adcpUse: AdcpUse;
  /** The option naming it, for messages. */
  readonly option: string;
  /** The environment variables holding the JWK, and naming a file holding it. */
  readonly env: readonly [string, string];
  /** Its development key's row in `adcp_signing_keys`. */
  readonly row: string;
  /** What messages call it. */
  readonly what: string;
}

export const REQUEST_SIGNING: KeyPurpose = { adcpUse: ADCP_USE, option: 'AgentOptions.signing.key', env: ['ADCP_SIGNING_KEY', 'ADCP_SIGNING_KEY_FILE'], row: 'development', what: 'signing key' };
export const GOVERNANCE_SIGNING: KeyPurpose = { adcpUse: 'governance-signing', option: 'AgentOptions.governance.key', env: ['ADCP_GOVERNANCE_KEY', 'ADCP_GOVERNANCE_KEY_FILE'], row: 'governance', what: 'governance-signing key' };

/** The environment variables a key is configured by: the JWK, and the file holding it. */
type KeyEnv = { readonly key?: string; readonly file?: string };

const READ = 'SELECT kid, private_jwk FROM adcp_signing_keys WHERE name = $1';
const CREATE = 'INSERT INTO adcp_signing_keys (name, kid, private_jwk, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING';

/** Whether a key is configured for this purpose (the option or either environment variable). */
export function keyConfigured(option: SigningOptions['key'] | undefined, env: NodeJS.ProcessEnv = process.env, purpose: KeyPurpose = REQUEST_SIGNING): boolean {
  return option !== undefined || nonEmpty(env[purpose.env[0]]) || nonEmpty(env[purpose.env[1]]);
}

export function signingKeys(store: Store, settings: KeySettings): SigningKeys {
  const purpose = settings.purpose ?? REQUEST_SIGNING;
  // Read once, when the agent is made: what configured it is what it keeps.
  const all = settings.env ?? process.env;
  const env: KeyEnv = { key: all[purpose.env[0]], file: all[purpose.env[1]] };
  const configured = keyConfigured(settings.option, all, purpose);
  let pending: Promise<KeyPair> | undefined;
  const resolve = async (): Promise<KeyPair> => {
    if (configured) return readConfigured(settings.option, env, purpose);
    if (!settings.sandbox) {
      throw new Error(
        `adcp-codegen: ${settings.profile} has no ${purpose.what}: set ${purpose.env[1]} (a file holding a private Ed25519 or P-256 JWK with a kid) or ${purpose.option}; only a sandbox agent makes its own`,
      );
    }
    return developmentPair(store, purpose);
  };
  const pair = (): Promise<KeyPair> => {
    pending ??= resolve();
    // A store that was down is tried again by the next caller; a bad configuration fails the same way again.
    pending.catch(() => (pending = undefined));
    return pending;
  };
  return {
    configured,
    pair,
    async jwks() {
      if (!configured && !settings.sandbox) return undefined;
      return { keys: [(await pair()).publicJwk] };
    },
  };
}

function readConfigured(option: SigningOptions['key'] | undefined, env: KeyEnv, purpose: KeyPurpose): KeyPair {
  const [keyVar, fileVar] = purpose.env;
  if (option !== undefined) {
    const file = (option as { file?: unknown }).file;
    if (typeof file === 'string' && !('kty' in option)) return configuredKey(readJson(file, `${purpose.option}.file`), `the file ${file}`, purpose.adcpUse);
    return configuredKey(option, purpose.option, purpose.adcpUse);
  }
  if (nonEmpty(env.key)) return configuredKey(parse(env.key, keyVar), keyVar, purpose.adcpUse);
  return configuredKey(readJson(env.file!, fileVar), `${fileVar} (${env.file})`, purpose.adcpUse);
}

function readJson(file: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    throw new Error(`adcp-codegen: ${what} (${file}) cannot be read: ${(e as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return parse(text, `${what} (${file})`);
}

/** JSON.parse without its message: a parse error quotes the text around it, which is key material. */
function parse(text: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`adcp-codegen: ${what} does not hold a JWK: it is not JSON`);
  }
}

/** The store's development key, made by the first instance to need it (the insert that wins is every instance's key). */
async function developmentPair(store: Store, purpose: KeyPurpose): Promise<KeyPair> {
  const sql = await store.open();
  let row = (await sql.query(READ, [purpose.row])).rows[0];
  if (row === undefined) {
    const made = developmentKey(purpose.adcpUse);
    await sql.query(CREATE, [purpose.row, made.kid, JSON.stringify(made.privateJwk), Date.now()]);
    row = (await sql.query(READ, [purpose.row])).rows[0];
    if (row === undefined) throw new Error(`adcp-codegen: ${sql.where}: the development ${purpose.what} was not stored`);
  }
  return storedKey(String(row.private_jwk), `${sql.where} (adcp_signing_keys)`, purpose.adcpUse);
}

function nonEmpty(v: string | undefined): v is string {
  return v !== undefined && v !== '';
}
