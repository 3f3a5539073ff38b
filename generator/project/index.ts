/**
 * Stage 3, project: each selected tool's request and response schemas as advertised (MCP-shaped, projected
 * for the profile's capabilities, overlays applied, bundled), the tools/list entries, the A2A envelope and the
 * get_adcp_capabilities response the profile serves.
 */
export { advertise, AdvertisedSources, type Advertisement, type ToolsListEntry } from './advertise.js';
export { bundleSchema } from './bundle.js';
export { undeclaredCapabilities, type UndeclaredCapability } from './capability-keys.js';
export { FILLABLE_CAPABILITIES, fillableCapabilities, servedCapabilities } from './capabilities.js';
export { domainStatusValues, refusedEnvelopeFields, statusIsDomainState } from './envelope.js';
export { declaresIdempotencyKey, idempotentTools } from './idempotency.js';
export { lintAppliesWhen } from './lint-applies-when.js';
export { objectRooted } from './object-root.js';
export { annotateAdvertised, type ResolvedOverlay, resolveOverlays } from './overlay.js';
export { APPLIES_WHEN_LISTS, appliesWhenSatisfied, projectSchemaForCapabilities, releasePathOfId } from './project.js';
export { pushOperationIdTools } from './push-config.js';
export { PRESENTATION_ANNOTATIONS, rootConstraintProperties, structural } from './structural.js';
