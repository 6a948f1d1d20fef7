/**
 * Every kind of Bookshelf error: its code and the detail it carries. The
 * codes are shared with the server extension (`src/rules/errors.json`, a
 * test compares the lists); what each kind says to a person is in
 * `./messages.ts`, whose table the compiler checks against this list.
 *
 * A detail holds values safe to show (never a secret). A `message` in a
 * detail is the text of a rule that was broken (validation), written and
 * translated where the rule is.
 */
import type { CredentialsMode } from '../tokens';

/**
 * The codes, as a list for code that runs (and other extensions).
 */
export const BOOKSHELF_ERROR_CODES = [
  'InvalidRequest',
  'BucketNotAllowed',
  'NoSuchBucket',
  'NoSuchKey',
  'NoSuchVersion',
  'AccessDenied',
  'InvalidCredentials',
  'ExpiredCredentials',
  'CorsRefused',
  'Unreachable',
  'SlowDown',
  'ServerError',
  'NotANotebook',
  'TooLarge',
  'Conflict',
  'PreconditionFailed',
  'PublishNotConfigured',
  'NotConfigured',
  'Cancelled',
  'SaveFailed',
  'ReadFailed',
  'Corrupted',
  'Interrupted',
  'Unknown'
] as const;

/**
 * Where in S3 an error happened, and what the S3 service said about it.
 */
export interface IS3Context {
  bucket?: string;
  key?: string;
  versionId?: string;
  /** The S3 endpoint, as shown (never with credentials). */
  endpoint?: string;
  /** The credentials mode of the request. */
  mode?: CredentialsMode;
  /** The S3 service's id of the request, for its administrators. */
  requestId?: string;
  /** The HTTP status of the S3 service's answer. */
  status?: number;
}

/**
 * How many times a transfer was tried, when it was tried again.
 */
export interface ITries {
  attempts?: number;
}

/**
 * The detail of each kind of error, by code.
 */
export interface IBookshelfErrorDetails {
  /** A value of the request breaks a rule (`message` names it). */
  InvalidRequest: {
    message: string;
    field?: string;
    path?: string;
    folder?: string;
    bucket?: string;
  };
  /** A link names a bucket outside the `allowedBuckets` setting. */
  BucketNotAllowed: { bucket: string };
  NoSuchBucket: IS3Context;
  NoSuchKey: IS3Context;
  NoSuchVersion: IS3Context;
  AccessDenied: IS3Context;
  InvalidCredentials:
    | (IS3Context & { reason: 'refused' | 'clock-skew' })
    | {
        reason:
          | 'endpoint-unreachable'
          | 'endpoint-status'
          | 'endpoint-not-json'
          | 'endpoint-fields'
          | 'endpoint-expiration';
        /** The credentials URL, as shown. */
        url: string;
        status?: number;
        mode?: CredentialsMode;
      };
  ExpiredCredentials: IS3Context;
  CorsRefused: IS3Context;
  Unreachable: IS3Context & {
    /**
     * `network`: the browser's bare failure, not yet told apart;
     * `unreachable`: nothing answers; `timeout`: no answer in time;
     * `local-network-blocked`: the browser keeps this page from the
     * service's address (its local network access is blocked).
     */
    reason: 'network' | 'unreachable' | 'timeout' | 'local-network-blocked';
  };
  SlowDown: IS3Context;
  ServerError: IS3Context & { reason?: 'no-body' | 'no-upload-id' };
  NotANotebook: {
    message: string;
    /** What is wrong with the content. */
    problem?: string;
    /** The file in the Jupyter file tree (publish). */
    path?: string;
  };
  TooLarge: IS3Context & {
    size?: number;
    /** The limit in bytes, or in MB (the setting). */
    limit?: number;
    limitMB?: number;
  };
  Conflict:
    | {
        /** Publishing refused to replace an object, or it changed. */
        reason: 'policy-never' | 'needs-confirmation' | 'changed';
        message: string;
        bucket: string;
        key: string;
        etag?: string;
        lastModified?: string;
      }
    | {
        reason: 'no-free-name';
        message: string;
        name: string;
        folder: string;
        attempts: number;
      };
  /** The S3 service refused a conditional write. */
  PreconditionFailed: IS3Context;
  PublishNotConfigured: {
    /** What is wrong with the publish bucket, when it is set. */
    message?: string;
  };
  NotConfigured:
    | {
        reason: 'conditional-writes';
        message: string;
        condition: 'If-Match' | 'If-None-Match';
        bucket: string;
        key: string;
      }
    | { reason: 'settings'; message: string }
    | { reason: 'session-empty' | 'settings-keys-missing' | 'endpoint-missing' }
    | { reason: 'endpoint-cross-origin'; url: string };
  Cancelled: { reason?: 'credentials-cancelled' };
  SaveFailed: { message: string; folder: string; status?: number };
  ReadFailed: {
    path: string;
    jupyterStatus?: number;
    /**
     * The file was saved again while it was read for a publish: nothing was
     * published, or (`saved-unchecked`, where the S3 service ignores
     * Content-MD5) S3 holds the bytes of that save, which were not checked.
     */
    reason?: 'saved-meanwhile' | 'saved-unchecked';
  };
  Corrupted: IS3Context &
    ITries &
    (
      | { reason: 'checksum'; expected: string; actual: string }
      | { reason: 'length'; loaded: number; total: number }
      | { reason: 'upload' }
    );
  Interrupted: IS3Context &
    ITries & {
      loaded?: number;
      total?: number;
      /** The seconds the service sent nothing for, when that ended it. */
      stalled?: number;
    };
  Unknown:
    | {
        source: 'jupyter';
        status: number;
        /** The Jupyter server's own words, when short. */
        said?: string;
      }
    | (IS3Context & { source?: 's3'; name?: string });
}

/**
 * An error code.
 */
export type BookshelfErrorCode = (typeof BOOKSHELF_ERROR_CODES)[number];

/**
 * The detail of the errors of one code.
 */
export type DetailOf<C extends BookshelfErrorCode> = IBookshelfErrorDetails[C];

/**
 * A kind of error: its code and its detail, one member per code.
 */
export type BookshelfErrorKind<
  C extends BookshelfErrorCode = BookshelfErrorCode
> = { [K in C]: { code: K; detail: DetailOf<K> } }[C];

// The list and the details name the same codes (a compile-time check).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const listNamesEveryKind: Same<
  BookshelfErrorCode,
  keyof IBookshelfErrorDetails
> = true;
void listNamesEveryKind;
