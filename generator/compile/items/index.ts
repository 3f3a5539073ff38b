/** Per-item outcomes of batch tools: which request items a response answers row by row (pairing.ts). */
export { itemOutcomes, type ItemOutcomes, type ItemPairing, type Location } from './pairing.js';
