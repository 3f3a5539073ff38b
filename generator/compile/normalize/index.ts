/**
 * Normalizers: per release and tool, which normalization rules apply (plan) and the code that applies
 * them (docs/normalizations.md).
 */
export { compileNormalizers } from './compile.js';
export { deprecatedRequestFields, type NormalizationPlan, planNormalizations } from './plan.js';
