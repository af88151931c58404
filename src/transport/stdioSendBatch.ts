// Writing to a stdio server's input in batches: what send() calls in one tick leave in one write.

/**
 * The messages sent in one tick, written together. Every send() of the batch returns the
 * batch's promise: it resolves when the write completes, or rejects when it fails, for all of
 * them alike (they share one write anyway). One promise per batch rather than per message keeps
 * a busy connection from allocating a promise, its resolvers and a queue entry per message.
 */
export interface SendBatch {
  /** The messages' lines, JSON and '\n' each; U+2028/U+2029 are escaped when written (stdio.ts). */
  data: string;
  readonly promise: Promise<void>;
  readonly resolve: () => void;
  readonly reject: (err: Error) => void;
}

export function newSendBatch(): SendBatch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { data: '', promise, resolve, reject };
}
