// @ts-check
/**
 * AdCP's signed-requests runner contract (compliance/<version>/test-kits/signed-requests-runner.yaml) as the agent's
 * `signing.requests` options, for a sandbox graded by the `signed_requests` storyboard (black-box mode). The contract
 * asks the agent to pre-configure its verifier:
 *
 * - the runner's keys (test-ed25519-2026, test-es256-2026), and the other keys of the vectors' keys.json
 *   (test-gov-2026, a governance-signing key, so vector 009 reaches the purpose check; test-revoked-2026, so 017
 *   reaches revocation), as one registered test counterparty — public halves only;
 * - test-revoked-2026 revoked (`pre_revoked_keyid`);
 * - a per-keyid replay cap of 100 for that counterparty only (`grading_target_per_keyid_cap_requests`; production
 *   keys keep the runtime's 1,000,000);
 * - a replay TTL of at least `min_replay_ttl_seconds` (the runtime keeps every nonce 360 s or more) in a store every
 *   instance shares;
 * - the legacy 3.1 wire profile the runner signs with (unpadded Base64URL, content-digest per the vector).
 *
 * What the storyboard asks of the capabilities — `required_for: ["create_media_buy"]`,
 * `protocol_methods_required_for: ["tasks/cancel"]` — is the profile's
 * (examples/profiles/guaranteed-publisher-sandbox-signed.json), which buyers read; its `covers_content_digest` is
 * `"required"`, the only posture of an endpoint serving AdCP 3.2, so the 3.1 vectors signed without content-digest
 * are refused (docs/conformance.md).
 *
 * The YAML is read here, in the example, with the `yaml` package: the generated runtime reads no YAML.
 *
 *   ADCP_SIGNING_TEST_KIT=../shared/adcp/compliance/3.2.0-beta.5/test-kits/signed-requests-runner.yaml \
 *   ADCP_GENERATED=.tmp/reference-seller ADCP_PROFILE=guaranteed-publisher-sandbox-signed npm run example
 */
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parse } from 'yaml';

/** The runtime's floor for a nonce's life in the replay store: the 300 s signature window plus 60 s of skew. */
const REPLAY_TTL_FLOOR_S = 360;

/**
 * @param {string} kitPath the runner contract (test-kits/signed-requests-runner.yaml)
 * @param {string} [keysPath] the vectors' keys.json; default: the contract's `jwks_source`, in the same compliance bundle
 * @returns {import('../generated/index.js').RequestSigningOptions}
 */
export function signedRequestsRunnerSigning(kitPath, keysPath) {
  /** @type {any} */
  const kit = parse(readFileSync(kitPath, 'utf8'));
  if (kit?.id !== 'signed_requests_runner') throw new Error(`${kitPath} is not the signed_requests_runner test kit`);
  const runnerKeys = /** @type {{ keyid: string, jwks_source: string }[]} */ (kit.runner_signing_keys ?? []);
  const contract = kit.stateful_vector_contract ?? {};
  const revoked = contract.revocation?.pre_revoked_keyid;
  const cap = contract.rate_abuse?.grading_target_per_keyid_cap_requests;
  const minTtl = contract.replay_window?.min_replay_ttl_seconds ?? 0;
  if (runnerKeys.length === 0 || typeof revoked !== 'string' || !Number.isInteger(cap) || cap <= 0) {
    throw new Error(`${kitPath}: runner_signing_keys, revocation.pre_revoked_keyid and rate_abuse.grading_target_per_keyid_cap_requests are required`);
  }
  if (minTtl > REPLAY_TTL_FLOOR_S) throw new Error(`${kitPath}: min_replay_ttl_seconds ${minTtl} is above the runtime's ${REPLAY_TTL_FLOOR_S} s`);

  // `/compliance/{version}/test-vectors/…` names a file of the bundle the kit sits in (<bundle>/test-kits/<kit>.yaml).
  const bundle = resolve(dirname(kitPath), '..');
  const keysFile = keysPath ?? join(bundle, runnerKeys[0].jwks_source.replace(/^\/compliance\/[^/]+\//, ''));
  /** @type {{ keys: Record<string, unknown>[] }} */
  const published = JSON.parse(readFileSync(keysFile, 'utf8'));
  // Public halves only: the private scalars keys.json ships for signers never reach a verifier's configuration.
  const keys = published.keys.map(({ _private_d_for_test_only: _d, $comment: _c, d: _p, ...jwk }) => /** @type {any} */ (jwk));
  const kids = new Set(keys.map((k) => k.kid));
  for (const kid of [...runnerKeys.map((k) => k.keyid), revoked]) {
    if (!kids.has(kid)) throw new Error(`${keysFile} has no key ${JSON.stringify(kid)}, which ${kitPath} names`);
  }
  return {
    profile: 'legacy-3.1',
    trust: [
      {
        principal: 'adcp-signed-requests-runner',
        jwks: { keys },
        revokedKeyids: [revoked],
        capPerKeyid: cap,
      },
    ],
  };
}

/**
 * The sandbox's `signing` options from the environment: `ADCP_SIGNING_TEST_KIT` (the runner contract's path) and
 * optionally `ADCP_SIGNING_TEST_KEYS` (keys.json); undefined when not set.
 * @returns {import('../generated/index.js').SigningOptions | undefined}
 */
export function signingFromEnv(env = process.env) {
  const kit = env.ADCP_SIGNING_TEST_KIT;
  if (kit === undefined || kit === '') return undefined;
  return { requests: signedRequestsRunnerSigning(resolve(kit), env.ADCP_SIGNING_TEST_KEYS ? resolve(env.ADCP_SIGNING_TEST_KEYS) : undefined) };
}
