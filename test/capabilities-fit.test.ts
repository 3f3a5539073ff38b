import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { capabilitiesIn, checkCapabilities, loadRelease } from '../generator/load/index.js';
import { servedCapabilities } from '../generator/project/index.js';
import { CodegenError } from '../generator/shared/index.js';
import { profileFrom } from './helpers/profiles.js';
import { sdkReleaseDir } from './helpers/releases.js';

/**
 * A profile states its capabilities in the newest served release's vocabulary; an older release is shown what it can
 * express (generator/load/capabilities-fit.ts): array items its enums do not know are left out of its body, and
 * anything else is still the profile's error. AdCP 3.0.6's compliance_testing.scenarios enum lists six scenarios;
 * 3.2's controller has more (the compact lifecycle probes), which a seller serving both releases declares.
 */
const r30 = loadRelease(sdkReleaseDir());
const capabilities = (scenarios: unknown[], extra: Record<string, unknown> = {}) => ({
  adcp: { major_versions: [3], idempotency: { supported: true, replay_ttl_seconds: 86400 } },
  supported_protocols: ['media_buy'],
  compliance_testing: { scenarios },
  ...extra,
});

test('an older release leaves out the enumerated values it does not know; its body is what is published for it', () => {
  const p = profileFrom({ name: 'fit', tools: ['get_adcp_capabilities'], capabilities: capabilities(['force_media_buy_status', 'compact_direct_buy_lifecycle_probe', 'simulate_delivery', 'compact_product_lifecycle_probe']) });
  checkCapabilities(p, r30, new Map(), undefined, true);
  assert.equal((capabilitiesIn(p, r30).compliance_testing as { scenarios: string[] }).scenarios, ['force_media_buy_status', 'simulate_delivery']);
  assert.equal(((p.capabilities.compliance_testing as { scenarios: string[] }).scenarios).length, 4, 'the profile itself is unchanged');
  const [body] = servedCapabilities(p, [r30]);
  assert.equal((body!.compliance_testing as { scenarios: string[] }).scenarios, ['force_media_buy_status', 'simulate_delivery']);
});

test('the newest release takes the profile as written, and any other defect stays an error naming the file and pointer', () => {
  const unknown = profileFrom({ name: 'strict', tools: ['get_adcp_capabilities'], capabilities: capabilities(['compact_direct_buy_lifecycle_probe']) });
  const strict = (() => {
    try {
      checkCapabilities(unknown, r30);
    } catch (e) {
      return e;
    }
    return undefined;
  })();
  assert.ok(strict instanceof CodegenError);
  assert.is(strict.pointer, '/capabilities/compliance_testing/scenarios/0');
  const wrongType = profileFrom({ name: 'wrong', tools: ['get_adcp_capabilities'], capabilities: capabilities(['simulate_delivery'], { supported_protocols: 5 }) });
  const older = (() => {
    try {
      checkCapabilities(wrongType, r30, new Map(), undefined, true);
    } catch (e) {
      return e;
    }
    return undefined;
  })();
  assert.ok(older instanceof CodegenError);
  assert.is(older.pointer, '/capabilities/supported_protocols');
});

test.run();
