/** What `beforeDeadline` answers when its time ran out before the work settled. */
export const LATE: unique symbol = Symbol('late');

/**
 * `work`'s value, or LATE once `ms` pass first; its rejection passed on (a thenable whose `then` throws rejects). One
 * promise, and the timer cleared as soon as the work settles. `unref`: the timer alone does not keep the process
 * alive (a readiness probe's; not a drain's or a handler's, which the process is there to wait for).
 */
export function beforeDeadline<T>(work: PromiseLike<T>, ms: number, options: { readonly unref?: boolean } = {}): Promise<T | typeof LATE> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => resolve(LATE), ms);
    if (options.unref === true) timer.unref();
    work.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (e: unknown) => {
        clearTimeout(timer);
        reject(e);
      },
    );
  });
}
