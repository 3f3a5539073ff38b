/**
 * Tarjan's strongly connected components, iterative (no recursion limit on long reference chains). Components come
 * out dependencies first; `deps` order and `nodes` order fix the output order, and each component is sorted by
 * `order`. Content-addressed module naming needs both: a cycle of definitions shares one name.
 */
export function stronglyConnected<T>(nodes: readonly T[], deps: (node: T) => readonly T[], order: (a: T, b: T) => number): T[][] {
  const index = new Map<T, number>();
  const low = new Map<T, number>();
  const onStack = new Set<T>();
  const stack: T[] = [];
  const out: T[][] = [];
  let next = 0;
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: T; deps: readonly T[]; i: number }[] = [];
    const push = (node: T): void => {
      index.set(node, next);
      low.set(node, next);
      next++;
      stack.push(node);
      onStack.add(node);
      work.push({ node, deps: deps(node), i: 0 });
    };
    push(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      if (frame.i < frame.deps.length) {
        const d = frame.deps[frame.i++]!;
        if (!index.has(d)) push(d);
        else if (onStack.has(d)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(d)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent !== undefined) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: T[] = [];
        let w: T;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          component.push(w);
        } while (w !== frame.node);
        out.push(component.sort(order));
      }
    }
  }
  return out;
}
