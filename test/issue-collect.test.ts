import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { setAt } from './helpers/generated.js';
import { twoReleaseSet } from './helpers/two-release-set.js';

/**
 * Rejections a person can act on (runtime/issue-collect.ts): one rejection lists every issue the first-failure
 * validators can be walked past, and an unmet `not` says what it forbids. Over the two-release fixture set, whose
 * 9.2 get_things request has an enum, a format, a nested required property and two kinds of `not`.
 */
const { loadProfile } = (await setAt(await twoReleaseSet())) as unknown as {
  loadProfile(name: string, options?: { mode?: 'production' | 'development' }): Promise<{
    call(tool: string, args: unknown, handler: () => unknown): Promise<{ isError?: boolean; content: { text: string }[] }>;
    validateRequest(tool: string, args: unknown): { ok: boolean; issues?: { pointer: string; keyword: string; message: string; forbiddenProperties?: string[] }[] };
  }>;
};
const agent = await loadProfile('things-seller', { mode: 'production' });
const reject = async (args: Record<string, unknown>) => {
  const r = await agent.call('get_things', args, () => ({ things: [], cache_scope: 'public' }));
  assert.ok(r.isError, r.content[0]!.text);
  return (JSON.parse(r.content[0]!.text) as { adcp_error: { message: string; issues: { pointer: string; keyword: string; message: string; forbiddenProperties?: string[] }[] } }).adcp_error;
};

test('every independent issue of one payload is in issues[], past a missing required property', async () => {
  const e = await reject({ mode: 'brief', brand: {}, pacing: 'warp', start: 'tomorrow', context: { trace: 1 } });
  // In the order the schema checks them.
  assert.equal(
    e.issues.map((i) => [i.pointer, i.keyword]),
    [
      ['/pacing', 'enum'],
      ['/start', 'format'],
      ['/brand/domain', 'required'],
    ],
  );
  assert.is(e.message, `get_things: /pacing must be one of "even", "asap"; /start must be a valid date-time; /brand/domain is required`);
  // A wrong value inside what was missing is reported once it is there.
  const short = await reject({ mode: 'brief', brand: { domain: 'x' }, pacing: 'warp' });
  assert.equal(short.issues.map((i) => [i.pointer, i.keyword]), [['/pacing', 'enum'], ['/brand/domain', 'minLength']]);
});

test('an unmet not names what it forbids: the properties of an object, the value of a scalar', async () => {
  let e = await reject({ mode: 'brief', legacy_filter: { x: 1 } });
  assert.is(e.issues[0]!.keyword, 'not');
  assert.is(e.issues[0]!.message, "must NOT have 'legacy_filter' here");
  assert.equal(e.issues[0]!.forbiddenProperties, ['legacy_filter']);
  e = await reject({ mode: 'brief', legacy_filter: 1, old_mode: 2, pacing: 'warp' });
  assert.is(e.issues[0]!.message, "must NOT have 'legacy_filter' or 'old_mode' here");
  e = await reject({ mode: 'brief', channel: 'print' });
  assert.equal([e.issues[0]!.pointer, e.issues[0]!.message], ['/channel', 'must NOT be "print" here']);
});

test('the collection is bounded and leaves the caller\'s payload alone', async () => {
  const args = { mode: 'brief', brand: {}, pacing: 'warp', start: 'tomorrow' };
  const before = JSON.stringify(args);
  const v = agent.validateRequest('get_things', args);
  assert.not.ok(v.ok);
  assert.is(JSON.stringify(args), before);
  // A payload wrong everywhere: a bounded list, quickly.
  const wide: Record<string, unknown> = { mode: 'brief', brand: { domain: 1 }, pacing: 1, start: 1, channel: 1, limit: 'x' };
  const t = performance.now();
  const e = await reject(wide);
  assert.ok(e.issues.length >= 5 && e.issues.length <= 12, JSON.stringify(e.issues));
  assert.ok(performance.now() - t < 1000);
});

test.run();
