import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { tokenRecord } from '../runtime/services/governance/replay.js';
import { lazyStore } from '../runtime/stores/open.js';
import { tokenRecordContract } from './helpers/governance.js';
import { tempDir } from './helpers/temp.js';

/**
 * Step 15's replay set and the record of accepted tokens (services/governance/replay.ts) on the embedded store, two
 * instances on one state directory: a jti accepted by one is refused by the other for any other request, accepted
 * again for the same request until its call succeeds; concurrent presentations, one wins. PostgreSQL runs the same
 * contract in test/real/governance-vectors.test.ts.
 */
const NOW = 1_800_000_000;

test('two instances on one state directory share the replay set', async () => {
  const dir = tempDir();
  const [one, two] = [lazyStore({ stateDir: dir }, 'gov'), lazyStore({ stateDir: dir }, 'gov')];
  try {
    await tokenRecordContract(tokenRecord(one, 86_400_000), tokenRecord(two, 86_400_000), NOW);
  } finally {
    await Promise.all([one.close(), two.close()]);
  }
});

test('rows are kept for the retention period, then swept; a restarted instance still refuses what was accepted', async () => {
  const dir = tempDir();
  const store = lazyStore({ stateDir: dir }, 'gov');
  const record = tokenRecord(store, 1_000);
  const entry = { iss: 'i', aud: 'a', jti: 'j', expiresAt: NOW + 10, sub: 's', phase: 'intent', caller: 'c', task: 't', payloadHash: 'h', token: 't.t.t' };
  assert.is(await record.consume(entry, NOW), 'ok');
  await record.spend(entry, undefined);
  await store.close();
  const again = lazyStore({ stateDir: dir }, 'gov');
  assert.is(await tokenRecord(again, 1_000).consume(entry, NOW + 5), 'replayed', 'durable: refused after a restart');
  // Past retain_until (here the token's expiry: the retention is shorter) the first consume of a minute sweeps it.
  const later = tokenRecord(again, 1_000);
  await later.consume({ ...entry, jti: 'other' }, NOW + 11);
  await new Promise((r) => setTimeout(r, 50));
  const rows = (await (await again.open()).query('SELECT jti FROM adcp_governance_tokens ORDER BY jti')).rows.map((r) => r.jti);
  assert.equal(rows, ['other']);
  await again.close();
});

test.run();
