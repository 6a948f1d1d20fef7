/**
 * Trying a transfer again when it was cut off or damaged on the way. No
 * SDK import: the clone, which checks a download's checksum while its save
 * is in flight, retries with the same loop.
 */
import { BookshelfError, cancelled, isBookshelfError } from '../errors/errors';

/**
 * How many times a download is tried when its body is cut off or damaged
 * (the SDK retries only until the answer's head arrives).
 */
export const DOWNLOAD_ATTEMPTS = 3;

/**
 * How many times an upload is tried when the server refuses its body as
 * damaged (400 BadDigest; nothing was stored).
 */
export const UPLOAD_ATTEMPTS = 3;

/**
 * Run a transfer, and again from the start while it fails as damaged on
 * the way (by default: cut off, or refused by its checksum; see
 * `isDamagedTransfer`), up to `attempts` times in all, with a growing pause
 * between tries. The last error says how many tries there were.
 */
export async function retryDamaged<T>(
  attempts: number,
  signal: AbortSignal | undefined,
  once: () => Promise<T>,
  isDamaged: (error: unknown) => boolean = isDamagedTransfer
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await once();
    } catch (error) {
      if (!isDamaged(error) || signal?.aborted) {
        throw error;
      }
      if (attempt >= attempts) {
        throw triedTimes(error as BookshelfError, attempt);
      }
      await pause(250 * 2 ** (attempt - 1), signal);
    }
  }
}

/**
 * Whether an error is a transfer that was cut off or damaged on the way,
 * which trying again may cure.
 */
export function isDamagedTransfer(error: unknown): boolean {
  return isBookshelfError(error, 'Interrupted', 'Corrupted');
}

/**
 * Whether an error is a download whose bytes did not match the object's
 * checksum.
 */
export function isChecksumMismatch(error: unknown): boolean {
  return (
    isBookshelfError(error, 'Corrupted') && error.detail.reason === 'checksum'
  );
}

/**
 * The error of the last attempt, saying how many there were.
 */
function triedTimes(error: BookshelfError, attempts: number): BookshelfError {
  return error.withContext({ attempts });
}

/**
 * Wait, unless the signal aborts first (then throw `Cancelled`).
 */
function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(cancelled());
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) {
      onAbort();
    } else {
      signal?.addEventListener('abort', onAbort, { once: true });
    }
  });
}
