import { randomUUID } from 'node:crypto';
import { admissionOf, type Admission } from '../../call/admission.js';
import { serviceUnavailable } from '../../wire/idempotency-errors.js';
import { isObject } from '../../wire/json-copy.js';
import { bodyOf, taskEvent, taskOf, type Dialect } from '../a2a-events.js';

/**
 * The A2A SDK's request handler, as its JSON-RPC transport dispatches to it: each method the SDK chose, on its own
 * reading of the message, is admitted here before it runs (call/admission.ts) — anything but a message is protected
 * (tasks/get, tasks/cancel, push configs, the extended card …) and answers to the signing policy's methods; a message
 * (message/send, message/stream) carries an AdCP call, which the executor's pipeline admits on the skill it runs, so
 * here it only names the method carrying it. A request the SDK dispatches to none (a method it does not serve, params
 * it refuses) is the endpoint's to refuse as protected (`dispatched`). The handler's own `this` stays the SDK's: only
 * the entry points are wrapped.
 *
 * A store that failed while a message was answered (the request's `fault`, a2a-request-store.ts) turns the answer
 * into a failed Task carrying SERVICE_UNAVAILABLE (transient, `retry_after`), in the major's own shapes, with the
 * call's context: the call may have run, and a retry with its idempotency_key replays it.
 */

interface Method {
  /** Its JSON-RPC names, A2A 0.3's and 1.0's: what the signing policy's protocol_methods lists may name. */
  readonly names: readonly string[];
  /** It carries an AdCP call (a message). */
  readonly call?: 'send' | 'stream';
}

const METHODS: Readonly<Record<string, Method>> = {
  sendMessage: { names: ['message/send', 'SendMessage'], call: 'send' },
  sendMessageStream: { names: ['message/stream', 'SendStreamingMessage'], call: 'stream' },
  getTask: { names: ['tasks/get', 'GetTask'] },
  listTasks: { names: ['tasks/list', 'ListTasks'] },
  cancelTask: { names: ['tasks/cancel', 'CancelTask'] },
  resubscribe: { names: ['tasks/resubscribe', 'SubscribeToTask'] },
  setTaskPushNotificationConfig: { names: ['tasks/pushNotificationConfig/set'] },
  createTaskPushNotificationConfig: { names: ['CreateTaskPushNotificationConfig'] },
  getTaskPushNotificationConfig: { names: ['tasks/pushNotificationConfig/get', 'GetTaskPushNotificationConfig'] },
  listTaskPushNotificationConfigs: { names: ['tasks/pushNotificationConfig/list', 'ListTaskPushNotificationConfigs'] },
  deleteTaskPushNotificationConfig: { names: ['tasks/pushNotificationConfig/delete', 'DeleteTaskPushNotificationConfig'] },
  getAuthenticatedExtendedAgentCard: { names: ['agent/getAuthenticatedExtendedCard', 'GetExtendedAgentCard'] },
};

/** Read by the SDK's transport itself (the streaming capability): the public card, nothing of a caller's. */
const INTERNAL = new Set(['getAgentCard', 'constructor']);

type Fn = (...args: unknown[]) => unknown;

export function guardedRequestHandler<T extends object>(handler: T, dialect: Dialect, release: string): T {
  const wrapped = new Map<PropertyKey, Fn>();
  return new Proxy(handler, {
    get(target, prop) {
      const value = Reflect.get(target, prop) as unknown;
      if (typeof value !== 'function' || typeof prop !== 'string' || INTERNAL.has(prop) || prop.startsWith('_')) return value;
      let fn = wrapped.get(prop);
      if (fn === undefined) wrapped.set(prop, (fn = guard(target, value as Fn, METHODS[prop] ?? { names: [prop] }, dialect, release)));
      return fn;
    },
  });
}

function guard(target: object, fn: Fn, method: Method, dialect: Dialect, release: string): Fn {
  // The SDK's call context is every entry point's last argument.
  const admissionIn = (args: unknown[]): Admission | undefined => {
    const admission = admissionOf(args[args.length - 1]);
    if (admission !== undefined) admission.dispatched = true;
    return admission;
  };
  if (method.call === 'send') {
    return async (...args) => {
      const admission = admissionIn(args);
      if (admission !== undefined) admission.carrier = method.names;
      try {
        const result = await fn.apply(target, args);
        return admission?.fault !== undefined ? unavailable(dialect, release, result, args[0]).answer : result;
      } catch (e) {
        if (admission?.fault === undefined) throw e;
        return unavailable(dialect, release, undefined, args[0]).answer;
      }
    };
  }
  if (method.call === 'stream') {
    return (...args) => {
      const admission = admissionIn(args);
      if (admission !== undefined) admission.carrier = method.names;
      return guardedStream(fn.apply(target, args) as AsyncIterable<unknown>, admission, (event) => unavailable(dialect, release, event, args[0]).event);
    };
  }
  return (...args) => {
    const admission = admissionIn(args);
    // Refused: nothing runs; the entry answers the request 401 whatever the SDK makes of this throw.
    if (admission?.method(method.names, false) !== undefined) throw new Error('refused');
    return fn.apply(target, args);
  };
}

async function* guardedStream(events: AsyncIterable<unknown>, admission: Admission | undefined, failed: (event: unknown) => unknown): AsyncGenerator<unknown> {
  try {
    for await (const event of events) {
      if (admission?.fault !== undefined) {
        yield failed(event);
        return;
      }
      yield event;
    }
  } catch (e) {
    if (admission?.fault === undefined) throw e;
    yield failed(undefined);
  }
}

/**
 * The failed Task in place of the answer a store could not keep: the same Task (its id and context) when there is one,
 * its artifact the AdCP SERVICE_UNAVAILABLE body with the call's context.
 */
function unavailable(dialect: Dialect, release: string, answered: unknown, params: unknown): { answer: unknown; event: unknown } {
  const task = taskOf(answered);
  const message = isObject(params) && isObject(params.message) ? params.message : {};
  const ids = {
    taskId: typeof task?.id === 'string' ? task.id : typeof message.taskId === 'string' && message.taskId !== '' ? message.taskId : randomUUID(),
    contextId: typeof task?.contextId === 'string' ? task.contextId : typeof message.contextId === 'string' && message.contextId !== '' ? message.contextId : randomUUID(),
  };
  const answeredBody = task === undefined ? undefined : bodyOf(task);
  const body = {
    adcp_error: serviceUnavailable('A2A: the agent could not keep this task now; retry the message (with the same idempotency_key)', 5),
    ...(answeredBody?.context !== undefined ? { context: answeredBody.context } : {}),
    status: 'failed',
    adcp_version: typeof answeredBody?.adcp_version === 'string' ? answeredBody.adcp_version : release,
  };
  const skill = isObject(task) && Array.isArray(task.artifacts) && isObject(task.artifacts[0]) && typeof task.artifacts[0].name === 'string' ? task.artifacts[0].name : 'unknown';
  const event = taskEvent(dialect, ids, { skill, body, failed: true, state: 'failed' }, []);
  return { event, answer: dialect === 'v1' ? (event as { data: unknown }).data : event };
}
