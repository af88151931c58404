/** The first error of a type in an error's `cause` chain (a transport's error wrapped by the connection, say). */
export function findCause<T extends Error>(err: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 8; e = e.cause, depth++) {
    if (e instanceof type) return e;
  }
  return undefined;
}
