/**
 * Bytes held until they are joined, such as a line or a body that arrives in pieces.
 *
 * Why not a plain array of the pieces: each Buffer costs about 200 bytes of heap beside its bytes,
 * and the peer decides how small the pieces are (a chunked HTTP body of one-byte chunks, a stdio
 * server that writes a byte at a time). Held one by one, a limit counted in bytes would let a
 * hostile peer make us hold some 200 times that (a 21 MB body filled a 4 GB heap). So the first
 * few pieces, and large ones, are kept as they came (no copy: the usual body or line is one to a
 * few large chunks); a run of small ones is copied into blocks of our own.
 */

/** Pieces kept as they came whatever their size: the usual body or line has no more. */
const KEPT_AS_THEY_CAME = 16;

/** A piece at least this large is kept as it came (its own cost is then a fifth of it at most). */
const SMALL_PIECE_BYTES = 1024;

/** The size of a block that small pieces are copied into. */
const BLOCK_BYTES = 16 * 1024;

/**
 * Why one join buffer for the whole process (takeTransient): a new buffer of megabytes per large
 * message comes as fresh pages from the system, and touching them cost more than the copy itself
 * (10 stdio results of 8 MB: about 8,000 more page faults and 12 ms more in Buffer.concat than a
 * client that frees each join at once, which V8's collector does not promise; #21). A caller
 * reads the bytes before it runs any code of others (see takeTransient), so one buffer serves
 * every connection in turn.
 */
const SHARED_JOIN_MAX_BYTES = 16 * 1024 * 1024;
/**
 * Smaller joins take a buffer of their own, as before: fresh memory costs little at their size,
 * and they neither keep the shared buffer alive nor make it.
 */
const SHARED_JOIN_MIN_BYTES = 64 * 1024;
/** The shared buffer grows in steps of this (a message slightly larger than the last one does not reallocate). */
const SHARED_JOIN_STEP_BYTES = 1024 * 1024;
/** The shared buffer goes 10 to 20 s after its last use: a run of large messages keeps it, a quiet process does not. */
const SHARED_JOIN_IDLE_MS = 10_000;

let sharedJoin: Buffer | undefined;
let sharedJoinUsed = false;
let sharedJoinTimer: ReturnType<typeof setTimeout> | undefined;

/** Every SHARED_JOIN_IDLE_MS while the buffer exists: kept if it was used since the last look. */
function releaseIdleSharedJoin(): void {
  sharedJoinTimer = undefined;
  if (sharedJoinUsed) {
    sharedJoinUsed = false;
    armSharedJoinRelease();
    return;
  }
  sharedJoin = undefined;
}

function armSharedJoinRelease(): void {
  sharedJoinTimer = setTimeout(releaseIdleSharedJoin, SHARED_JOIN_IDLE_MS);
  sharedJoinTimer.unref?.();
}

/** The process's join buffer, at least `bytes` long. */
function sharedJoinBuffer(bytes: number): Buffer {
  if (sharedJoin === undefined || sharedJoin.length < bytes) {
    sharedJoin = Buffer.allocUnsafeSlow(Math.ceil(bytes / SHARED_JOIN_STEP_BYTES) * SHARED_JOIN_STEP_BYTES);
  }
  sharedJoinUsed = true;
  if (sharedJoinTimer === undefined) armSharedJoinRelease();
  return sharedJoin;
}

export class ByteChunks {
  private pieces: Buffer[] = [];
  private block: Buffer | undefined;
  private blockUsed = 0;
  /** Bytes held. */
  length = 0;

  push(piece: Buffer): void {
    const size = piece.length;
    this.length += size;
    // The usual piece: kept as it came (the rest is in a method of its own, so that this one,
    // called per chunk of every body and line, stays small for V8 to inline).
    if (this.block === undefined && (size >= SMALL_PIECE_BYTES || this.pieces.length < KEPT_AS_THEY_CAME)) {
      if (size > 0) this.pieces.push(piece);
      return;
    }
    this.pushSmall(piece, size);
  }

  private pushSmall(piece: Buffer, size: number): void {
    if (size === 0) return;
    const block = this.block;
    if (block !== undefined) {
      if (size <= block.length - this.blockUsed) {
        piece.copy(block, this.blockUsed);
        this.blockUsed += size;
        return;
      }
      this.sealBlock();
    }
    if (size >= SMALL_PIECE_BYTES) {
      this.pieces.push(piece);
      return;
    }
    this.block = Buffer.allocUnsafe(BLOCK_BYTES);
    piece.copy(this.block, 0);
    this.blockUsed = size;
  }

  /** The bytes held, as pieces in order (for a look at the first or last bytes). */
  parts(): readonly Buffer[] {
    this.sealBlock();
    return this.pieces;
  }

  /**
   * The bytes held as one Buffer (the one piece itself when there is one). They stay held until
   * clear(): a body's reader lets them go with the reader, as before this class (dropping 8 MB of
   * socket chunks at once the moment they were joined made the next answers' reads slower: 10
   * answers of 8 MB over HTTP, 256 → 305 ms in alternating runs).
   */
  join(): Buffer {
    this.sealBlock();
    const pieces = this.pieces;
    return pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces, this.length);
  }

  /** join(), then clear(). */
  take(): Buffer {
    const joined = this.join();
    this.clear();
    return joined;
  }

  /**
   * take(), into a buffer the whole process reuses (see SHARED_JOIN_MAX_BYTES): the result is
   * valid only until the next takeTransient() anywhere, so the caller reads what it needs of it
   * before it calls any code of others (a listener may join a line of its own) and keeps neither
   * it nor a view of it. One piece, under 64 KiB or over 16 MiB in all: take() itself.
   */
  takeTransient(): Buffer {
    this.sealBlock();
    const pieces = this.pieces;
    const length = this.length;
    if (pieces.length <= 1 || length < SHARED_JOIN_MIN_BYTES || length > SHARED_JOIN_MAX_BYTES) return this.take();
    const joined = sharedJoinBuffer(length);
    let offset = 0;
    for (const piece of pieces) offset += piece.copy(joined, offset);
    this.clear();
    return joined.subarray(0, length);
  }

  clear(): void {
    this.pieces = [];
    this.block = undefined;
    this.blockUsed = 0;
    this.length = 0;
  }

  private sealBlock(): void {
    if (this.block === undefined) return;
    this.pieces.push(this.block.subarray(0, this.blockUsed));
    this.block = undefined;
  }
}
