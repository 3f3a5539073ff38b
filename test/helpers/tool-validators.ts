import { loadArtifact } from '../../runtime/artifacts/loader.js';
import { ARTIFACT_PATHS, type RawValidateFn, type ResponseValidatorModule, type ToolValidators, type ValidatorsModule } from '../../runtime/artifacts/contract.js';

/** A tool's validators in the set at `out` (`releases/<key>/validate.cjs`), loaded as the runtime loads them. */
export function toolValidators(out: string, key: string, tool: string): ToolValidators {
  const all = loadArtifact(out, ARTIFACT_PATHS.validators(key)) as ValidatorsModule;
  if (!Object.hasOwn(all, tool)) throw new Error(`${ARTIFACT_PATHS.validators(key)} has no ${tool}`);
  return all[tool]!;
}

/** The raw request validator of a tool. */
export function requestValidator(out: string, key: string, tool: string): RawValidateFn {
  return toolValidators(out, key, tool).request;
}

/** A tool's response validators, in the shape `wrapResponseValidator` takes. */
export function responseValidators(out: string, key: string, tool: string): ResponseValidatorModule {
  const v = toolValidators(out, key, tool);
  return { validate: v.response, validateAsync: v.responseAsync };
}
