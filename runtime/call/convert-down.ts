import { conversionFailed } from '../artifacts/conversions.js';
import { faultFields, type Answer, type Call } from './call.js';

/**
 * The handler's answer, written in its own release, as the buyer's release has it: the pair's rules, then that
 * release's response deep-strip. An answer the older release has no form for is UNSUPPORTED_FEATURE naming why.
 */
export function convertDown(call: Call): Answer | void {
  if (convertDown.idle(call)) return;
  const { served, tool, shape, release } = call;
  try {
    const down = served.convertDown(shape, release, tool, call.body, call.asked);
    if ('refused' in down) {
      const message = `${tool}: this answer has no AdCP ${release.key} form (${down.refused}); AdCP ${shape.key} carries it`;
      return call.reject({ code: 'UNSUPPORTED_FEATURE', message, recovery: 'correctable', details: { tool, supported_versions: [shape.key] } });
    }
    call.body = down.body;
  } catch (e) {
    return call.reject(conversionFailed(tool, `the AdCP ${shape.key} answer to AdCP ${release.key}`, e, call.env.log, faultFields(call)));
  }
}

/** The handler is written in the answering release: nothing to convert. */
convertDown.idle = (call: Call): boolean => !call.converted;
