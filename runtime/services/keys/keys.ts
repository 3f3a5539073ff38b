import { readFileSync } from 'node:fs';
import type { SigningOptions } from '../../api/signing-types.js';
import type { Store } from '../../stores/open.js';
import { configuredKey, developmentKey, storedKey, type KeyPair, type PublicJwk } from './key-material.js';

/**
 * The agent's signing key: the deployment's own (AgentOptions.signing.key, else `ADCP_SIGNING_KEY` holding the
 * private JWK as JSON, else `ADCP_SIGNING_KEY_FILE` naming a file holding it), never anything from the generated set;
 * without one, a sandbox agent's development key, made once in the store (`adcp_signing_keys`, row `development`)
 * so every instance sharing the store signs with the same key and publishes it; a production agent has none.
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
}

/** The environment variables a key is configured by. */
type KeyEnv = { readonly ADCP_SIGNING_KEY?: string; readonly ADCP_SIGNING_KEY_FILE?: string };

const DEVELOPMENT = 'development';
const READ = 'SELECT kid, private_jwk FROM adcp_signing_keys WHERE name = $1';
const CREATE = 'INSERT INTO adcp_signing_keys (name, kid, private_jwk, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (name) DO NOTHING';

/** Whether a key is configured for this agent (the option or either environment variable). */
export function keyConfigured(option: SigningOptions['key'] | undefined, env: KeyEnv = process.env): boolean {
  return option !== undefined || nonEmpty(env.ADCP_SIGNING_KEY) || nonEmpty(env.ADCP_SIGNING_KEY_FILE);
}

export function signingKeys(store: Store, settings: KeySettings): SigningKeys {
  // Read once, when the agent is made: what configured it is what it keeps.
  const { ADCP_SIGNING_KEY, ADCP_SIGNING_KEY_FILE } = settings.env ?? process.env;
  const env = { ADCP_SIGNING_KEY, ADCP_SIGNING_KEY_FILE };
  const configured = keyConfigured(settings.option, env);
  let pending: Promise<KeyPair> | undefined;
  const resolve = async (): Promise<KeyPair> => {
    if (configured) return readConfigured(settings.option, env);
    if (!settings.sandbox) {
      throw new Error(
        `adcp-codegen: ${settings.profile} has no signing key: set ADCP_SIGNING_KEY_FILE (a file holding a private Ed25519 or P-256 JWK with a kid) or AgentOptions.signing.key; only a sandbox agent makes its own`,
      );
    }
    return developmentPair(store);
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

function readConfigured(option: SigningOptions['key'] | undefined, env: KeyEnv): KeyPair {
  if (option !== undefined) {
    const file = (option as { file?: unknown }).file;
    if (typeof file === 'string' && !('kty' in option)) return configuredKey(readJson(file, 'AgentOptions.signing.key.file'), `the file ${file}`);
    return configuredKey(option, 'AgentOptions.signing.key');
  }
  if (nonEmpty(env.ADCP_SIGNING_KEY)) return configuredKey(parse(env.ADCP_SIGNING_KEY, 'ADCP_SIGNING_KEY'), 'ADCP_SIGNING_KEY');
  return configuredKey(readJson(env.ADCP_SIGNING_KEY_FILE!, 'ADCP_SIGNING_KEY_FILE'), `ADCP_SIGNING_KEY_FILE (${env.ADCP_SIGNING_KEY_FILE})`);
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
async function developmentPair(store: Store): Promise<KeyPair> {
  const sql = await store.open();
  let row = (await sql.query(READ, [DEVELOPMENT])).rows[0];
  if (row === undefined) {
    const made = developmentKey();
    await sql.query(CREATE, [DEVELOPMENT, made.kid, JSON.stringify(made.privateJwk), Date.now()]);
    row = (await sql.query(READ, [DEVELOPMENT])).rows[0];
    if (row === undefined) throw new Error(`adcp-codegen: ${sql.where}: the development signing key was not stored`);
  }
  return storedKey(String(row.private_jwk), `${sql.where} (adcp_signing_keys)`);
}

function nonEmpty(v: string | undefined): v is string {
  return v !== undefined && v !== '';
}
