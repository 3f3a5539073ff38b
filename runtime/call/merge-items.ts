import type { Call } from './call.js';

/** The failed items' rows, at their request positions among the handler's (now in the answering release's shape). */
export function mergeItems(call: Call): void {
  if (!mergeItems.idle(call)) call.body = call.plan!.merge(call.body);
}

/** No batch plan, or one the runtime answered itself: the body is the handler's. */
mergeItems.idle = (call: Call): boolean => call.plan === undefined || call.plan.body !== undefined;
