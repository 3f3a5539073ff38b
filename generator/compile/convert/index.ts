/**
 * Conversions between two releases a profile serves (docs/conversions.md): a handler written once in the newer
 * release's shape answers a buyer pinned to the older one. The diff between the releases finds what changed
 * (candidates), the rule data says how each is converted or why it needs nothing, the plan places each rule where
 * the tools' schemas reach what it cites, and the compiler writes one typed module per tool and pair.
 */
export { compileConversions } from './compile.js';
export { type Candidate, type CandidateKind, diffReleases, type Occurrence, type ReleaseDiff, type Side } from './diff.js';
export { requestGaps } from './gaps.js';
export { type CandidateCoverage, candidateCoverage, type ConversionPlan, filesFor, planConversions, precisionOf, type ReleasePair, type SkippedConversion, type Step, type ToolConversion, type UncoveredCandidate, uncoveredCandidates } from './plan.js';
