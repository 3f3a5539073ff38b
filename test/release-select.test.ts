import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { contextEcho, invalidRequest, jsonPathLite, CONTEXT_ECHO_LIMIT } from '../runtime/errors.js';
import { selectRelease, type ServedRelease } from '../runtime/release-select.js';

const r = (key: string): ServedRelease => ({ key, major: Number(key.split('.')[0]), minor: Number(key.split('.')[1]) });
const served = [r('3.2'), r('3.0')];
const key = (args: unknown): string => {
  const c = selectRelease(served, args);
  if (!c.ok) throw new Error(`expected a release, got ${c.code}`);
  return c.release.key;
};
const code = (args: unknown): string => {
  const c = selectRelease(served, args);
  if (c.ok) throw new Error(`expected an error, got ${c.release.key}`);
  return c.code;
};

test('no pin: the highest served release', () => {
  assert.is(key({}), '3.2');
  assert.is(key(undefined), '3.2');
  assert.is(key({ adcp_version: undefined }), '3.2');
});

test('a pin inside a served major downshifts to the highest served release not above it', () => {
  assert.is(key({ adcp_version: '3.2' }), '3.2');
  assert.is(key({ adcp_version: '3.5' }), '3.2');
  assert.is(key({ adcp_version: '3.1' }), '3.0');
  assert.is(key({ adcp_version: '3.1-beta' }), '3.0');
  assert.is(key({ adcp_version: '3.2-rc.1' }), '3.2');
  assert.is(key({ adcp_version: '3.0' }), '3.0');
  assert.is(key({ adcp_major_version: 3 }), '3.2');
  assert.is(key({ adcp_version: '3.1', adcp_major_version: 3 }), '3.0');
});

test('outside every served major, below every served release, or disagreeing fields: VERSION_UNSUPPORTED', () => {
  assert.is(code({ adcp_version: '2.5' }), 'VERSION_UNSUPPORTED');
  assert.is(code({ adcp_version: '4.0' }), 'VERSION_UNSUPPORTED');
  assert.is(code({ adcp_major_version: 2 }), 'VERSION_UNSUPPORTED');
  assert.is(code({ adcp_version: '3.2', adcp_major_version: 4 }), 'VERSION_UNSUPPORTED');
  assert.is(selectRelease([r('3.2')], { adcp_version: '3.1' }).ok, false);
  const c = selectRelease(served, { adcp_version: '4.1' });
  assert.ok(!c.ok && c.code === 'VERSION_UNSUPPORTED' && /served releases: 3\.2, 3\.0/.test(c.message));
});

test('malformed pins are INVALID_REQUEST at their pointer', () => {
  assert.is(code({ adcp_version: 'three' }), 'INVALID_REQUEST');
  assert.is(code({ adcp_version: 3.2 }), 'INVALID_REQUEST');
  assert.is(code({ adcp_major_version: '3' }), 'INVALID_REQUEST');
  const c = selectRelease(served, { adcp_version: '3.2.0' });
  assert.ok(!c.ok && c.code === 'INVALID_REQUEST' && c.issues[0]!.pointer === '/adcp_version');
});

test('field is JSONPath-lite of issues[0].pointer; the issue list is mirrored in details', () => {
  assert.is(jsonPathLite('/packages/0/targeting'), 'packages[0].targeting');
  assert.is(jsonPathLite('/a~1b/c~0d'), '["a/b"]["c~d"]');
  assert.is(jsonPathLite(''), '');
  const body = invalidRequest('create_media_buy', [{ pointer: '/packages/0/pacing', keyword: 'enum', message: 'must be one of even, asap', allowedValues: ['even', 'asap'] }]);
  assert.is(body.code, 'INVALID_REQUEST');
  assert.is(body.recovery, 'correctable');
  assert.is(body.field, 'packages[0].pacing');
  assert.equal(body.details, { tool: 'create_media_buy', issues: body.issues });
});

test('context is echoed only when small enough not to amplify', () => {
  assert.equal(contextEcho({ context: { correlation_id: 'c1' } }), { present: true, value: { correlation_id: 'c1' } });
  assert.equal(contextEcho({}), { present: false });
  assert.equal(contextEcho('x'), { present: false });
  assert.equal(contextEcho({ context: { blob: 'x'.repeat(CONTEXT_ECHO_LIMIT) } }), { present: false });
});

test('unreadable fields never throw: a throwing getter or a hostile proxy is INVALID_REQUEST, and no echo', () => {
  const served = [r('3.2'), r('3.0')];
  const boom = (field: string): Record<string, unknown> =>
    Object.defineProperty({}, field, { enumerable: true, get: () => { throw new Error('getter'); } }) as Record<string, unknown>;
  for (const field of ['adcp_version', 'adcp_major_version']) {
    const c = selectRelease(served, boom(field));
    assert.equal(c, { ok: false, code: 'INVALID_REQUEST', issues: [{ pointer: `/${field}`, keyword: 'type', message: 'cannot be read' }] });
  }
  const trap = new Proxy({}, { has: () => { throw new Error('trap'); }, getOwnPropertyDescriptor: () => { throw new Error('trap'); }, get: () => { throw new Error('trap'); } });
  assert.is(selectRelease(served, trap).ok, false);
  assert.equal(contextEcho(boom('context')), { present: false });
  assert.equal(contextEcho(trap), { present: false });
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  assert.equal(contextEcho({ context: cyclic }), { present: false });
  assert.equal(contextEcho({ context: { n: 1n } }), { present: false });
});

test.run();
