import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { committedSet } from './helpers/generated.js';

/**
 * A buyer may send `adcp_version` and `adcp_major_version` on every request (versioning.mdx, "Version negotiation";
 * core/version-envelope.json), whatever the release it pins. AdCP 3.0.6's closed request schemas (the governance,
 * property-list and collection-list tools) know `adcp_major_version` but not `adcp_version`: production strips the
 * pin like any unknown field, and development mode must not turn it into an "unknown field" rejection — a 3.2 buyer
 * pinning "3.0" did exactly what the spec asks. Every tool of every committed profile, in both modes.
 */

const { loadProfile, profiles } = await committedSet();
type Body = Record<string, any>;

test('negotiation fields are never drift: every tool of every profile, development and production', async () => {
  let closedRoots = 0;
  for (const name of profiles) {
    for (const mode of ['development', 'production'] as const) {
      // Handlers answering {}: production logs each such answer as failing its schema, which is not this test's matter.
      const agent = await loadProfile(name, { mode, logger: false });
      for (const tool of agent.tools()) {
        const pinned = await agent.call(tool as never, { adcp_version: '3.0', adcp_major_version: 3 } as never, (() => ({})) as never);
        const body = pinned.structuredContent as Body;
        const issues: Body[] = body.adcp_error?.issues ?? body.issues ?? [];
        const negotiation = issues.filter((i) => /^\/adcp_(major_)?version$/.test(i.pointer));
        assert.equal(negotiation, [], `${name} ${mode} ${tool}: ${JSON.stringify(negotiation)}`);
        assert.is.not(body.adcp_error?.code, 'VERSION_UNSUPPORTED', `${name} ${tool}`);

        // The control: an unknown field at the same closed top level is still development mode's rejection.
        if (mode !== 'development') continue;
        const drift = (await agent.call(tool as never, { adcp_version: '3.0', not_an_adcp_field: 1 } as never, (() => ({})) as never)).structuredContent as Body;
        const unknown: Body[] = (drift.adcp_error?.issues ?? drift.issues ?? []).filter((i: Body) => i.pointer === '/not_an_adcp_field');
        if (unknown.length === 0) continue; // an open top level (get_products in 3.0.6) keeps unknown fields
        closedRoots++;
        assert.is(unknown[0]!.keyword, 'additionalProperties');
        assert.not.ok((drift.adcp_error?.issues ?? drift.issues).some((i: Body) => i.pointer === '/adcp_version'), `${name} ${tool}`);
      }
    }
  }
  // 3.0.6 closes the top level of at least the governance and property-list tools the example profiles serve.
  assert.ok(closedRoots >= 5, `closed top levels seen: ${closedRoots}`);
});

test.run();
