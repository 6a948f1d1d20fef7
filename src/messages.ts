/**
 * What an error means to a person, and what to do: the translated text of
 * each BookshelfError code. Values come from the error's detail (never a
 * secret); the fix for a CORS refusal carries the rule to add.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import { BookshelfError } from './errors';

/**
 * A translated explanation of an error.
 */
export interface IErrorDescription {
  /** A short title, e.g. for a dialog. */
  title: string;
  /** What happened. */
  message: string;
  /** What to do; empty when there is nothing to do. */
  fix: string;
}

/**
 * The CORS rule a bucket needs for this origin, as the S3 console takes it.
 */
export function corsRule(origin: string): string {
  return JSON.stringify(
    [
      {
        AllowedOrigins: [origin],
        AllowedMethods: ['GET', 'PUT', 'HEAD'],
        AllowedHeaders: ['*'],
        ExposeHeaders: ['ETag', 'x-amz-version-id'],
        MaxAgeSeconds: 3000
      }
    ],
    null,
    2
  );
}

function s3Path(detail: BookshelfError['detail']): string {
  if (detail.bucket && detail.key) {
    return `s3://${detail.bucket}/${detail.key}`;
  }
  return detail.bucket ? `s3://${detail.bucket}` : '';
}

/**
 * Describe an error for a person.
 */
export function describeError(
  error: unknown,
  trans: TranslationBundle,
  origin: string = typeof window !== 'undefined' ? window.location.origin : ''
): IErrorDescription {
  if (!(error instanceof BookshelfError)) {
    const text = error instanceof Error ? error.message : String(error);
    return {
      title: trans.__('Something went wrong'),
      message: text,
      fix: ''
    };
  }
  const detail = error.detail;
  const path = s3Path(detail);
  switch (error.code) {
    case 'InvalidRequest':
      return {
        title: trans.__('Invalid request'),
        message: error.message,
        fix: trans.__('Correct the values and try again.')
      };
    case 'BucketNotAllowed':
      return {
        title: trans.__('Bucket not allowed'),
        message: trans.__(
          'Links may not clone from the bucket "%1".',
          detail.bucket ?? ''
        ),
        fix: trans.__(
          'An administrator allows buckets with the "Buckets links may clone from" (allowedBuckets) setting of Bookshelf.'
        )
      };
    case 'NoSuchBucket':
      return {
        title: trans.__('Unknown bucket'),
        message: trans.__(
          'The bucket "%1" does not exist.',
          detail.bucket ?? ''
        ),
        fix: trans.__(
          'Check the bucket name in the link, and the S3 endpoint in the Bookshelf settings.'
        )
      };
    case 'NoSuchKey':
      return {
        title: trans.__('Object not found'),
        message: trans.__('There is no object %1.', path),
        fix: trans.__(
          'Check the key: it is case-sensitive and includes every folder.'
        )
      };
    case 'NoSuchVersion':
      return {
        title: trans.__('Version not found'),
        message: trans.__(
          '%1 has no version "%2".',
          path,
          String(detail.versionId ?? '')
        ),
        fix: trans.__(
          'Leave the version empty to clone the latest version, or ask for a link to an existing one.'
        )
      };
    case 'AccessDenied':
      return {
        title: trans.__('Access denied'),
        message: trans.__('Access to %1 was denied.', path || 'S3'),
        fix: trans.__(
          'Ask the owner of the bucket for access, or check the credentials mode in the Bookshelf settings.'
        )
      };
    case 'InvalidCredentials':
      return {
        title: trans.__('Credentials refused'),
        message: error.message,
        fix: trans.__(
          'Check the S3 credentials; in session mode, run "Forget S3 Credentials" and enter them again.'
        )
      };
    case 'ExpiredCredentials':
      return {
        title: trans.__('Credentials expired'),
        message: trans.__('The S3 credentials have expired.'),
        fix: trans.__(
          'Enter new credentials ("Forget S3 Credentials", then try again), or ask an administrator to renew them.'
        )
      };
    case 'CorsRefused':
      return {
        title: trans.__('Blocked by CORS'),
        message: detail.bucket
          ? trans.__(
              'The S3 service at %1 answers, but the bucket "%2" does not allow requests from this page (%3): either the bucket does not exist, or its CORS rules do not allow this origin.',
              String(detail.endpoint ?? ''),
              String(detail.bucket),
              origin
            )
          : trans.__(
              'The S3 service at %1 answers, but does not allow requests from this page (%2).',
              String(detail.endpoint ?? ''),
              origin
            ),
        fix: trans.__(
          'Ask an administrator to add this CORS rule to the bucket:\n%1',
          corsRule(origin)
        )
      };
    case 'Unreachable':
      return {
        title: trans.__('S3 service unreachable'),
        message: trans.__(
          'The S3 service %1 could not be reached.',
          String(detail.endpoint ?? '')
        ),
        fix: trans.__(
          'Check your network and the S3 endpoint URL in the Bookshelf settings; if the service is up, its CORS rules may not allow this page (%1).',
          origin
        )
      };
    case 'SlowDown':
    case 'ServerError':
      return {
        title: trans.__('S3 service busy or failing'),
        message: error.message,
        fix: trans.__('Try again in a minute.')
      };
    case 'NotANotebook':
      return {
        title: trans.__('Not a notebook'),
        message: error.message,
        fix: trans.__(
          'Nothing was written. A notebook must be valid nbformat 4 JSON; to look at the object as text, clone it under a name that does not end in .ipynb.'
        )
      };
    case 'TooLarge':
      return {
        title: trans.__('Too large'),
        message: error.message,
        fix: trans.__(
          'An administrator can raise "Largest object to clone (MB)" in the Bookshelf settings.'
        )
      };
    case 'Conflict':
    case 'PreconditionFailed':
      if (detail.reason === 'policy-never') {
        return {
          title: trans.__('Already published'),
          message: error.message,
          fix: trans.__(
            'Nothing was overwritten: the overwrite policy is "never". Publish under another path.'
          )
        };
      }
      if (detail.reason === 'needs-confirmation') {
        return {
          title: trans.__('Already published'),
          message: error.message,
          fix: trans.__(
            'Nothing was overwritten. Publish from the dialog to confirm the replacement.'
          )
        };
      }
      return {
        title: trans.__('Changed meanwhile'),
        message: error.message,
        fix: trans.__(
          'Nothing was overwritten. Look at the newer version, then try again.'
        )
      };
    case 'PublishNotConfigured':
      return {
        title: trans.__('Publishing is not set up'),
        message: error.message,
        fix: trans.__(
          'Set "Publish bucket" in the Bookshelf settings, or ask an administrator to.'
        )
      };
    case 'NotConfigured':
      return {
        title: trans.__('Bookshelf is not set up'),
        message: error.message,
        fix: trans.__('Open the Bookshelf settings and complete them.')
      };
    case 'Cancelled':
      return {
        title: trans.__('Cancelled'),
        message: trans.__('The transfer was cancelled; nothing was written.'),
        fix: ''
      };
    case 'SaveFailed':
      return {
        title: trans.__('Could not save'),
        message: error.message,
        fix: trans.__(
          'Check that the folder exists and that you may write to it.'
        )
      };
    case 'Corrupted':
      return {
        title: trans.__('Damaged transfer'),
        message: error.message,
        fix: trans.__('Nothing was written. Try again.')
      };
    default:
      return {
        title: trans.__('Something went wrong'),
        message: error.message,
        fix: ''
      };
  }
}
