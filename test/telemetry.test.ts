import { context, metrics, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { AggregationTemporality, InMemoryMetricExporter, MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { STAGES } from '../runtime/call/pipeline.js';
import { committedSet, exampleHandlers } from './helpers/generated.js';
import { a2aSend, rpc, toolsCall } from './helpers/http.js';
import { createMediaBuyRequest } from './helpers/payloads.js';
import { tempDir } from './helpers/temp.js';

/**
 * OpenTelemetry (issue 40 point 4) through the OTel SDK's in-memory exporters, the SDK registered as an agent's
 * instrumentation would register it: a span per call continuing the caller's W3C trace context over MCP and A2A (with
 * the SDK's propagator, and without one), a span per stage that runs under it, named after the stage (a stage with
 * nothing to do for the call — no authorize hook, no conversion — is skipped and has none), a handler's own span
 * under `adcp.stage handle`, nothing for a call the sampler leaves out; calls by tool and outcome, their duration,
 * store errors and the outbox's backlog as metrics. Unregistered at the end, so the files after this one run without
 * a provider, as agents do by default.
 */
const spans = new InMemorySpanExporter();
const exported = new InMemoryMetricExporter(AggregationTemporality.CUMULATIVE);
const reader = new PeriodicExportingMetricReader({ exporter: exported, exportIntervalMillis: 3_600_000 });
const { loadProfile, apiKeyAuth } = await committedSet();
const KEY = 'sk_telemetry_0001';
const auth = { authorization: `Bearer ${KEY}` };
let served: { url: string; port: number; close(): Promise<void> };
let a2aUrl: string;

// Registered when this file's tests run (uvu imports every file before it runs any), unregistered after them.
test.before(async () => {
  trace.setGlobalTracerProvider(new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(spans)] }));
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  const agent = await loadProfile('guaranteed-publisher', { store: { stateDir: tempDir() }, logger: false });
  served = await agent.serve((await exampleHandlers(agent)) as never, { port: 0, authenticate: apiKeyAuth({ [KEY]: { principal: 'buyer-otel' } }), handleSignals: false });
  a2aUrl = `http://127.0.0.1:${served.port}/a2a`;
});

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';
const traceparent = (parent = PARENT) => `00-${TRACE_ID}-${parent}-01`;

function callSpans(tool: string): ReadableSpan[] {
  return spans.getFinishedSpans().filter((s) => s.name === `adcp ${tool}`);
}

/**
 * The stages with nothing to do for a create_media_buy of the committed 3.0 set: no request signing (its arguments are
 * not judged), no push config, no governance enforcement, no authorize hook.
 */
const IDLE = ['admitArgs', 'pushConfig', 'convertUp', 'governance', 'authorize', 'convertDown', 'mergeItems'];

test('MCP: the call continues the caller\'s traceparent (no propagator registered: read as W3C says), one span per stage that runs under it', async () => {
  spans.reset();
  const r = await rpc(served.url, toolsCall('create_media_buy', createMediaBuyRequest({ account: { account_id: 'acc_1' } })), { ...auth, traceparent: traceparent() });
  assert.is(r.status, 200, r.text);
  const [call] = callSpans('create_media_buy');
  assert.ok(call !== undefined, spans.getFinishedSpans().map((s) => s.name).join(', '));
  assert.is(call.spanContext().traceId, TRACE_ID);
  assert.is(call.parentSpanContext?.spanId, PARENT);
  assert.is(call.kind, 1, 'SERVER: the agent is where the call arrives');
  assert.equal(
    { tool: call.attributes['adcp.tool'], release: call.attributes['adcp.release'], outcome: call.attributes['adcp.outcome'], principal: call.attributes['adcp.principal'], replayed: call.attributes['adcp.replayed'] },
    { tool: 'create_media_buy', release: '3.0', outcome: 'pending_creatives', principal: 'buyer-otel', replayed: false },
  );
  const stages = spans.getFinishedSpans().filter((s) => s.parentSpanContext?.spanId === call.spanContext().spanId);
  // Every stage of runCall's list that had something to do, in order, then the answer hooks (the idempotency claim
  // completed): named generically.
  assert.equal(
    stages.map((s) => s.name),
    [...STAGES.filter((s) => !IDLE.includes(s.name)).map((s) => `adcp.stage ${s.name}`), 'adcp.stage answer'],
  );
  assert.ok(IDLE.every((name) => STAGES.find((s) => s.name === name)?.idle !== undefined), 'each skipped stage says when it has nothing to do');
  assert.ok(stages.every((s) => s.spanContext().traceId === TRACE_ID));
});

test('A2A: the call continues the caller\'s traceparent through the registered W3C propagator; a rejection ends at its stage', async () => {
  spans.reset();
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  try {
    const r = await rpc(a2aUrl, a2aSend('get_products', { buying_mode: 'brief', brief: 'display' }), { ...auth, traceparent: traceparent('00f067aa0ba902b7') });
    assert.is(r.status, 200, r.text);
    const [call] = callSpans('get_products');
    assert.ok(call !== undefined);
    assert.is(call.spanContext().traceId, TRACE_ID);
    assert.is(call.parentSpanContext?.spanId, '00f067aa0ba902b7');

    spans.reset();
    await rpc(a2aUrl, a2aSend('create_media_buy', { ...createMediaBuyRequest(), idempotency_key: 'short' }), { ...auth, traceparent: traceparent() });
    const [refused] = callSpans('create_media_buy');
    assert.is(refused!.attributes['adcp.error_code'], 'INVALID_REQUEST');
    assert.is(refused!.status.code, 0, "a caller's mistake is not the agent's error");
    const last = spans.getFinishedSpans().filter((s) => s.parentSpanContext?.spanId === refused!.spanContext().spanId).pop();
    assert.is(last!.name, 'adcp.stage parse');
    assert.is(last!.attributes['adcp.stage.answered'], true);
  } finally {
    propagation.disable();
  }
});

test('a call the sampler leaves out (its caller\'s trace unsampled) exports no span at all', async () => {
  spans.reset();
  const r = await rpc(served.url, toolsCall('get_products', { buying_mode: 'brief', brief: 'display' }), { ...auth, traceparent: `00-${TRACE_ID}-${PARENT}-00` });
  assert.is(r.status, 200, r.text);
  assert.equal(spans.getFinishedSpans(), []);
});

test('with a context manager: a stage that applies gets its span (authorize), the handler\'s own span nests under adcp.stage handle', async () => {
  const contexts = new AsyncLocalStorageContextManager().enable();
  context.setGlobalContextManager(contexts);
  try {
    const agent = await loadProfile('guaranteed-publisher', { store: { stateDir: tempDir() }, logger: false, authorize: () => undefined });
    spans.reset();
    const answer = await agent.call('get_products', { buying_mode: 'brief', brief: 'display' }, () => trace.getTracer('seller').startActiveSpan('catalogue lookup', (own) => (own.end(), { products: [] })), { principal: 'p' });
    assert.is(answer.isError, undefined, JSON.stringify(answer));
    const all = spans.getFinishedSpans();
    const [call] = callSpans('get_products');
    const stages = all.filter((s) => s.parentSpanContext?.spanId === call!.spanContext().spanId).map((s) => s.name);
    assert.ok(stages.includes('adcp.stage authorize'), stages.join(', '));
    assert.not.ok(stages.includes('adcp.stage idempotency'), 'get_products takes no idempotency_key: nothing to do, no span');
    const handle = all.find((s) => s.name === 'adcp.stage handle')!;
    const own = all.find((s) => s.name === 'catalogue lookup')!;
    assert.is(own.parentSpanContext?.spanId, handle.spanContext().spanId);
    await agent.close();
  } finally {
    context.disable();
  }
});

test('metrics: calls by tool and outcome, their duration, store errors, the outbox backlog', async () => {
  // A store out of reach: the call is SERVICE_UNAVAILABLE, its span an error, the store's failure counted.
  const away = await loadProfile('guaranteed-publisher', { store: { url: 'postgres://agent:pw-not-logged@127.0.0.1:9/adcp' }, logger: false });
  spans.reset();
  const down = await away.call('create_media_buy', createMediaBuyRequest(), () => ({}), { principal: 'p' });
  assert.match(JSON.stringify(down.structuredContent), /SERVICE_UNAVAILABLE/);
  assert.is(callSpans('create_media_buy')[0]!.status.code, 2, 'an outage is the agent\'s error');

  // An outbox that holds an event it does not deliver (this instance runs no worker).
  const hooks = await loadProfile('guaranteed-publisher', { mode: 'development', store: { stateDir: tempDir() }, webhooks: { deliver: false }, logger: false });
  await hooks.ready();
  await hooks.webhooks.enqueue({ url: 'https://buyer.example/hooks', dedupeKey: 'telemetry-1', payload: { task_id: 't1', status: 'completed' } });

  await reader.forceFlush();
  const all = exported.getMetrics().flatMap((r) => r.scopeMetrics.flatMap((s) => s.metrics));
  const points = (name: string) => all.filter((m) => m.descriptor.name === name).flatMap((m) => m.dataPoints as { attributes: Record<string, unknown>; value: unknown }[]);
  const made = points('adcp.calls').find((p) => p.attributes['adcp.tool'] === 'create_media_buy' && p.attributes['adcp.outcome'] === 'pending_creatives');
  assert.ok((made?.value as number) >= 1, JSON.stringify(points('adcp.calls')));
  assert.ok(points('adcp.calls').some((p) => p.attributes['adcp.error_code'] === 'SERVICE_UNAVAILABLE'));
  const latency = points('adcp.call.duration').find((p) => p.attributes['adcp.tool'] === 'create_media_buy');
  assert.ok((latency?.value as { count: number }).count >= 1);
  const storeErrors = points('adcp.store.errors').find((p) => p.attributes['adcp.store.dialect'] === 'postgres');
  assert.ok((storeErrors?.value as number) >= 1);
  assert.ok(points('adcp.webhook.outbox.depth').some((p) => p.value === 1), JSON.stringify(points('adcp.webhook.outbox.depth')));
  assert.ok(points('adcp.webhook.outbox.oldest_age').some((p) => (p.value as number) >= 0 && (p.value as number) < 60));
  await hooks.close();
  await away.close();
});

test.after(async () => {
  await served.close();
  trace.disable();
  metrics.disable();
  spans.reset();
});

test.run();
