/**
 * Whether an S3 service honours conditional writes (`If-None-Match: *` and
 * `If-Match` on PutObject), found out rather than assumed: some servers
 * (s3rver, older S3-compatible stores) accept the headers and ignore them,
 * which would make the overwrite policy `never` and the compare-and-swap of
 * `confirm` protect nothing. No UI here.
 */

import { UUID } from '@lumino/coreutils';
import {
  nullTranslator,
  type TranslationBundle
} from '@jupyterlab/translation';

import { TRANSLATION_DOMAIN } from '../package';
import { BookshelfError, isBookshelfError } from '../errors/errors';
import type { IObjectStore, IPutObjectResult } from '../s3/types';
import type { OverwritePolicy } from '../tokens';
import type { PutCondition } from './overwrite';

/**
 * What the probe found out about one endpoint and bucket.
 */
export interface IConditionalWrites {
  /** A put with an `If-Match` that cannot match was refused. */
  ifMatch: boolean;
  /** A put with `If-None-Match: *` on an existing object was refused. */
  ifNoneMatch: boolean;
  /**
   * The probe's key, when the server stored it and it could not be deleted
   * again (the delete failed): someone should delete it.
   */
  leftover?: string;
}

/**
 * The start of the probe's key name, below the publish prefix.
 */
export const PROBE_KEY_STEM = '.bookshelf-conditional-write-check-';

const PROBE_BODY =
  'Bookshelf checks whether conditional writes are honoured.\n';

/**
 * Whether an error is the refusal a conforming server gives to a condition
 * that does not hold: 412 PreconditionFailed, or the 404 NoSuchKey that S3
 * (and moto) answer to an `If-Match` on a key that does not exist.
 */
function refusedCondition(error: unknown): boolean {
  return isBookshelfError(error, 'PreconditionFailed', 'NoSuchKey');
}

/**
 * Find out whether the service behind `store` honours conditional writes in
 * `bucket`, leaving nothing behind.
 *
 * Why it is shaped so: a check must not create anything on a conforming
 * server, and must not touch anyone's object. So the first request is a PUT
 * of a fresh random key below the publish prefix with `If-Match` of a
 * random ETag: no object there can have it, so a server that honours
 * If-Match refuses it (S3 and moto 5.2: 404 NoSuchKey; others 412) and
 * nothing is written. A server that ignores it (s3rver) stores the object;
 * then, with the object existing, a PUT with `If-None-Match: *` tells
 * whether If-None-Match is honoured (412) or not, and every version the
 * probe wrote is deleted again.
 *
 * What it assumes: a server that honours If-Match also honours
 * If-None-Match (true of S3, moto, MinIO and Ceph, which added If-None-Match
 * first). Testing If-None-Match on its own would need an existing object,
 * that is a write that stays on a conforming server.
 *
 * Any other failure (access denied, wrong credentials, CORS, network) is
 * thrown as it is: it says nothing about conditional writes.
 */
export async function probeConditionalWrites(
  store: IObjectStore,
  bucket: string,
  prefix: string,
  random: () => string = UUID.uuid4
): Promise<IConditionalWrites> {
  const key = `${prefix}${PROBE_KEY_STEM}${random()}`;
  return probeWith(store, bucket, key, random, condition =>
    store.putObject(bucket, key, PROBE_BODY, {
      contentType: 'text/plain',
      ...condition
    })
  );
}

/**
 * Find out whether the service honours the same conditions on the
 * completion of a multipart upload (S3 does since 2024; moto 5.2 honours
 * only `If-None-Match: *` there), leaving nothing behind: as
 * `probeConditionalWrites`, with an upload of one small part completed
 * under an `If-Match` that cannot match. A refused completion leaves the
 * upload open; it is aborted.
 */
export async function probeConditionalCompletes(
  store: IObjectStore,
  bucket: string,
  prefix: string,
  random: () => string = UUID.uuid4
): Promise<IConditionalWrites> {
  const key = `${prefix}${PROBE_KEY_STEM}${random()}`;
  const completeWith = async (condition: PutCondition) => {
    const uploadId = await store.createMultipartUpload(bucket, key, {
      contentType: 'text/plain'
    });
    try {
      const part = await store.uploadPart(
        bucket,
        key,
        uploadId,
        1,
        new TextEncoder().encode(PROBE_BODY)
      );
      return await store.completeMultipartUpload(
        bucket,
        key,
        uploadId,
        [part],
        condition
      );
    } catch (error) {
      await store
        .abortMultipartUpload(bucket, key, uploadId)
        .catch(() => undefined);
      throw error;
    }
  };
  return probeWith(store, bucket, key, random, completeWith);
}

/**
 * The probe's steps, with `write` storing the probe's object under a
 * condition: first an `If-Match` that cannot match; if that was stored,
 * an `If-None-Match: *` onto it; then every version written is deleted.
 */
async function probeWith(
  store: IObjectStore,
  bucket: string,
  key: string,
  random: () => string,
  write: (condition: PutCondition) => Promise<IPutObjectResult>
): Promise<IConditionalWrites> {
  let first;
  try {
    first = await write({ ifMatch: `"${random()}"` });
  } catch (error) {
    if (refusedCondition(error)) {
      return { ifMatch: true, ifNoneMatch: true };
    }
    throw error;
  }
  // The server stored an object it should have refused.
  const written = [first.versionId];
  let ifNoneMatch = false;
  try {
    const second = await write({ ifNoneMatch: '*' });
    written.push(second.versionId);
  } catch (error) {
    if (!refusedCondition(error)) {
      await removeProbe(store, bucket, key, written);
      throw error;
    }
    ifNoneMatch = true;
  }
  const removed = await removeProbe(store, bucket, key, written);
  return removed
    ? { ifMatch: false, ifNoneMatch }
    : { ifMatch: false, ifNoneMatch, leftover: `s3://${bucket}/${key}` };
}

/**
 * Delete the versions the probe wrote (each by its id, so that a versioned
 * bucket keeps no version and no delete marker); false when that failed.
 */
async function removeProbe(
  store: IObjectStore,
  bucket: string,
  key: string,
  versionIds: (string | undefined)[]
): Promise<boolean> {
  const ids = versionIds.every(id => id)
    ? (versionIds as string[])
    : [undefined];
  try {
    for (const versionId of new Set(ids)) {
      await store.deleteObject(bucket, key, versionId);
    }
    return true;
  } catch {
    return false;
  }
}

function memoryId(endpoint: string, bucket: string): string {
  return `${endpoint}\n${bucket}`;
}

/**
 * The probe's answers for this page's session, per endpoint and bucket.
 * A probe that failed is not remembered: the next publish asks again.
 */
export class ConditionalWritesMemory {
  /**
   * The answer for `endpoint` and `bucket`, probing with `probe` the first
   * time (concurrent callers share one probe).
   */
  get(
    endpoint: string,
    bucket: string,
    probe: () => Promise<IConditionalWrites>
  ): Promise<IConditionalWrites> {
    const id = memoryId(endpoint, bucket);
    let answer = this._answers.get(id);
    if (!answer) {
      answer = probe();
      this._answers.set(id, answer);
      answer.catch(() => {
        if (this._answers.get(id) === answer) {
          this._answers.delete(id);
        }
      });
    }
    return answer;
  }

  /**
   * The answer, or the probe under way, for `endpoint` and `bucket`; null
   * when none was asked for yet (or the last one failed).
   */
  known(endpoint: string, bucket: string): Promise<IConditionalWrites> | null {
    return this._answers.get(memoryId(endpoint, bucket)) ?? null;
  }

  private _answers = new Map<string, Promise<IConditionalWrites>>();
}

/**
 * Which conditional header a put must have honoured to keep the policy's
 * promise: `never` promises create-only (`If-None-Match: *`); `confirm`
 * promises to replace only the version the person saw (`If-Match`).
 * `always` promises nothing, so its conditions (an ETag the publish dialog
 * passes on) stay a best effort. The create of a new object under
 * `confirm` carries `If-None-Match: *` too, but `confirm` only promises to
 * ask before replacing an object the HEAD found: where the header is
 * ignored, that put is an upload after a HEAD that found nothing.
 */
export function requiredCondition(
  policy: OverwritePolicy,
  condition: PutCondition
): 'ifMatch' | 'ifNoneMatch' | null {
  if (policy === 'confirm' && condition.ifMatch) {
    return 'ifMatch';
  }
  if (policy === 'never' && condition.ifNoneMatch) {
    return 'ifNoneMatch';
  }
  return null;
}

/**
 * The refusal of a put whose condition the server does not honour.
 */
export function conditionsIgnored(
  needed: 'ifMatch' | 'ifNoneMatch',
  bucket: string,
  key: string,
  trans: TranslationBundle = nullTranslator.load(TRANSLATION_DOMAIN)
): BookshelfError {
  const where = `s3://${bucket}/${key}`;
  const message =
    needed === 'ifNoneMatch'
      ? trans.__(
          "Nothing was published to %1: the overwrite policy 'never' needs the S3 service to refuse an upload onto an existing object (If-None-Match), and this service ignores that condition, so it could overwrite a published notebook. Set overwritePolicy to 'always' (knowing that a publish then replaces what is there), or use an S3 service that supports conditional writes.",
          where
        )
      : trans.__(
          "Nothing was published to %1: replacing only the version you saw needs the S3 service to honour If-Match, and this service ignores that condition, so it could overwrite a version someone else published meanwhile. Set overwritePolicy to 'always' (knowing that a publish then replaces whatever is there), or use an S3 service that supports conditional writes.",
          where
        );
  return new BookshelfError({
    code: 'NotConfigured',
    detail: {
      reason: 'conditional-writes',
      message,
      condition: needed === 'ifMatch' ? 'If-Match' : 'If-None-Match',
      bucket,
      key
    }
  });
}
