/**
 * What the rule-driven code emitters (normalize/, convert/) share: indented code lines, the safe-key check, and the
 * copy-on-write expressions over a payload path (never mutating the input, sharing what is untouched).
 */
export { acceptsCheck, access, blockedExpr, pointerOf, presentExpr, removeExpr, setExpr } from './payload-access.js';
export { assertSafeKey, type RuleOrigin, Writer } from './writer.js';
