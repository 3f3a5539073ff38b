import { admit, admitArgs } from './admit.js';
import { authorize } from './authorize.js';
import { success, type Answer, type Call, type Stage } from './call.js';
import { convertDown } from './convert-down.js';
import { credentials } from './credentials.js';
import { convertUp } from './convert-up.js';
import { envelope } from './envelope.js';
import { governance } from './governance.js';
import { handle } from './handle.js';
import { idempotency } from './idempotency.js';
import { mergeItems } from './merge-items.js';
import { parse } from './parse.js';
import { pushConfig } from './push-config.js';
import { read } from './read.js';
import { select } from './select.js';
import { verify } from './verify.js';
import { watchCall, type CallWatch } from '../ops/call-watch.js';

/**
 * A call, stage by stage (docs/runtime.md): each stage reads what earlier ones found on the Call and either answers,
 * ending the call, or goes on. A protocol service is a stage here, never a branch inside another.
 */
export const STAGES: readonly Stage[] = [admit, read, admitArgs, credentials, select, parse, pushConfig, idempotency, convertUp, governance, authorize, handle, convertDown, mergeItems, envelope, verify];

/**
 * Runs the stages, then the answer hooks they registered (last first), and returns the call's answer; watched
 * (ops/call-watch.ts: its log line, its spans, one per stage that runs, its metrics) when anything watches. One async
 * function a call, watched or not: a watch adds no promise of its own, and its stage spans are only for a call whose
 * span records.
 */
export function runCall(call: Call, stages: readonly Stage[] = STAGES): Promise<Answer> {
  return run(call, stages, watchCall(call.env.log, call));
}

async function run(call: Call, stages: readonly Stage[], watch: CallWatch | undefined): Promise<Answer> {
  const spans = watch?.spans === true ? watch : undefined;
  let out: Answer;
  try {
    let answer: Answer | void = undefined;
    for (const stage of stages) {
      // A stage with nothing to do for this call is not run (nor traced): its own guard says so (call.ts, Stage).
      if (stage.idle?.(call) === true) continue;
      const step = spans === undefined ? stage(call) : spans.stage(stage, call);
      answer = step instanceof Promise ? await step : step;
      if (answer !== undefined) break;
    }
    const made = answer ?? success(call.body);
    out = call.onAnswer.length === 0 ? made : await (spans === undefined ? hooks(call, made) : spans.hooks(() => hooks(call, made)));
  } catch (e) {
    watch?.fail(e);
    throw e;
  }
  watch?.end(out);
  return out;
}

async function hooks(call: Call, answer: Answer): Promise<Answer> {
  let out = answer;
  for (let i = call.onAnswer.length - 1; i >= 0; i--) out = await call.onAnswer[i]!(out, call);
  return out;
}
