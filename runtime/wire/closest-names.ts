/**
 * The names among `candidates` closest to a misspelt `name` (`get_prodcuts` → `get_products`), for "did you mean"
 * hints in a profile's tool list and a handler set: at most `limit`, nearest first, none further than a third of the
 * name's length (at least 2) in optimal-string-alignment distance, where swapping two neighbours counts as one edit.
 */
export function closestNames(name: string, candidates: Iterable<string>, limit = 3): string[] {
  const within = Math.max(2, Math.floor(name.length / 3));
  const scored: { candidate: string; distance: number }[] = [];
  for (const candidate of new Set(candidates)) {
    if (candidate === name) continue;
    const distance = editDistance(name, candidate);
    if (distance <= within) scored.push({ candidate, distance });
  }
  scored.sort((a, b) => a.distance - b.distance || (a.candidate < b.candidate ? -1 : 1));
  return scored.slice(0, limit).map((s) => s.candidate);
}

/** `; did you mean a or b?`, or '' when nothing is close. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const close = closestNames(name, candidates);
  return close.length === 0 ? '' : `; did you mean ${close.join(' or ')}?`;
}

function editDistance(a: string, b: string): number {
  // Three rows of the dynamic-programming table: the transposition looks two rows back.
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2]! + 1);
      current.push(d);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}
