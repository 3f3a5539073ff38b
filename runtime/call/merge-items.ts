import type { Call } from './call.js';

/** The failed items' rows, at their request positions among the handler's (now in the answering release's shape). */
export function mergeItems(call: Call): void {
  if (call.plan !== undefined && call.plan.body === undefined) call.body = call.plan.merge(call.body);
}
