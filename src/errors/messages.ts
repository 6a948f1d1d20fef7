/**
 * What an error means to a person, and what to do: the translated text of
 * each BookshelfError code. Values come from the error's detail (never a
 * secret); the fix for a CORS refusal carries the rule to add.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import { BookshelfError } from './errors';
import { REQUIRED_CORS_RULE } from '../s3/cors';

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
  /** A CORS rule to add, as JSON, when the fix is to add one. */
  rule?: string;
}

/**
 * The CORS rule a bucket needs for this origin, as the S3 console takes it
 * (Bucket → Permissions → Cross-origin resource sharing); see
 * `REQUIRED_CORS_RULE`.
 */
export function corsRule(origin: string): string {
  return JSON.stringify(
    [{ AllowedOrigins: [origin], ...REQUIRED_CORS_RULE }],
    null,
    2
  );
}

/**
 * What a `Corrupted` error found, translated.
 */
function describeDamage(
  error: BookshelfError,
  path: string,
  trans: TranslationBundle
): string {
  const detail = error.detail;
  const what = path || trans.__('the object');
  let message: string;
  switch (detail.reason) {
    case 'checksum':
      message = trans.__(
        'Damaged download: the bytes received do not match the checksum (ETag) of %1; nothing was written.',
        what
      );
      break;
    case 'length':
      message = trans.__(
        'Damaged download: %1 did not arrive with the length the S3 service announced; nothing was written.',
        what
      );
      break;
    case 'upload':
      message = trans.__(
        'Damaged upload: the S3 service refused the bytes it received for %1 (they do not match their Content-MD5) and stored nothing.',
        what
      );
      break;
    default:
      message = error.message;
  }
  return appendTries(message, detail, trans);
}

/**
 * A message, and how many times the transfer was tried when it was more
 * than once.
 */
function appendTries(
  message: string,
  detail: BookshelfError['detail'],
  trans: TranslationBundle
): string {
  const attempts = detail.attempts;
  return typeof attempts === 'number' && attempts > 1
    ? `${message} ${trans.__('(tried %1 times)', attempts)}`
    : message;
}

function s3Path(detail: BookshelfError['detail']): string {
  if (detail.bucket && detail.key) {
    return `s3://${detail.bucket}/${detail.key}`;
  }
  return detail.bucket ? `s3://${detail.bucket}` : '';
}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 10 ? mb.toFixed(0) : mb.toFixed(1);
}

/**
 * Describe an error for a person: a translated title, message and fix for
 * every code, built from the error's detail (never a secret). Texts that
 * come from validation (InvalidRequest, NotANotebook, Conflict, SaveFailed,
 * Corrupted) keep the error's own message, which names the rule broken; the
 * logic modules translate it with the bundle the model gives them.
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
  const endpoint = String(detail.endpoint ?? '') || trans.__('Amazon S3');
  const mode = String(detail.mode ?? '');
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
          'Check the bucket name, and the S3 endpoint in the Bookshelf settings.'
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
        message: trans.__(
          'Access to %1 was denied.',
          path || trans.__('the S3 service')
        ),
        fix:
          mode === 'anonymous'
            ? trans.__(
                'The request was unsigned (credentials mode "anonymous") and the object is not public: ask the owner to make it public, or choose the "session" credentials mode in the Bookshelf settings and enter keys that may read it.'
              )
            : mode === 'session'
              ? trans.__(
                  'Ask the owner of the bucket to give these credentials access (a bucket policy may deny it), or run "Forget S3 Credentials" and enter others.'
                )
              : trans.__(
                  'Ask the owner of the bucket or an administrator to give these credentials access; a bucket policy may deny it.'
                )
      };
    case 'InvalidCredentials':
      return describeCredentialsError(error, trans);
    case 'ExpiredCredentials':
      return {
        title: trans.__('Credentials expired'),
        message: trans.__('The S3 credentials have expired.'),
        fix:
          mode === 'endpoint'
            ? trans.__(
                "Bookshelf fetches new credentials before they expire: try again. If this happens again, the credentials URL hands out expired credentials or this computer's clock is wrong; tell an administrator."
              )
            : mode === 'settings'
              ? trans.__(
                  'An administrator renews the keys in the Bookshelf settings.'
                )
              : trans.__(
                  'Bookshelf forgot them: try again and enter new credentials when asked.'
                )
      };
    case 'CorsRefused': {
      const rule = corsRule(origin);
      return {
        title: trans.__('Blocked by CORS'),
        message: detail.bucket
          ? trans.__(
              'The S3 service at %1 answers, but the bucket "%2" does not allow requests from this page (%3): either the bucket does not exist, or its CORS rules do not allow this origin.',
              endpoint,
              String(detail.bucket),
              origin
            )
          : trans.__(
              'The S3 service at %1 answers, but does not allow requests from this page (%2).',
              endpoint,
              origin
            ),
        fix: detail.bucket
          ? trans.__(
              'Check the bucket name. If the bucket exists, ask an administrator to add this CORS rule to it (S3 console: the bucket, Permissions, Cross-origin resource sharing):'
            )
          : trans.__(
              'Ask an administrator to add this CORS rule to the bucket (S3 console: the bucket, Permissions, Cross-origin resource sharing):'
            ),
        rule
      };
    }
    case 'Unreachable':
      if (detail.reason === 'unreachable') {
        return {
          title: trans.__('S3 service unreachable'),
          message: trans.__('Nothing answers at %1.', endpoint),
          fix: trans.__(
            'Check the S3 endpoint URL in the Bookshelf settings, and that the service runs and is reachable from this computer (network, VPN, proxy).'
          )
        };
      }
      if (detail.reason === 'timeout') {
        return {
          title: trans.__('S3 service unreachable'),
          message: trans.__(
            'The S3 service at %1 did not answer in time.',
            endpoint
          ),
          fix: trans.__(
            'Try again in a minute; check your network if it persists.'
          )
        };
      }
      return {
        title: trans.__('S3 service unreachable'),
        message: trans.__(
          'The S3 service at %1 could not be reached.',
          endpoint
        ),
        fix: trans.__(
          'Check your network and the S3 endpoint URL in the Bookshelf settings; if the service is up, its CORS rules may not allow this page (%1).',
          origin
        )
      };
    case 'SlowDown':
      return {
        title: trans.__('S3 service busy'),
        message: trans.__(
          'The S3 service is busy and asked to slow down; it still was after several tries.'
        ),
        fix: trans.__('Wait a minute, then try again.')
      };
    case 'ServerError':
      return {
        title: trans.__('S3 service failing'),
        message: detail.status
          ? trans.__(
              'The S3 service failed (HTTP %1); it still did after several tries.',
              String(detail.status)
            )
          : error.message,
        fix: trans.__(
          'Try again in a minute; if it persists, tell the administrator of the S3 service.'
        )
      };
    case 'NotANotebook':
      return {
        title: trans.__('Not a notebook'),
        message: error.message,
        fix: detail.path
          ? trans.__(
              'Nothing was published. Only valid nbformat 4 notebooks (.ipynb) can be published: open it in JupyterLab, save it as a notebook, and publish again.'
            )
          : trans.__(
              'Nothing was written. A notebook must be valid nbformat 4 JSON; to look at the object as text, clone it under a name that does not end in .ipynb.'
            )
      };
    case 'TooLarge': {
      const size = Number(detail.size);
      const limitMB =
        detail.limitMB !== undefined
          ? String(detail.limitMB)
          : detail.limit !== undefined
            ? megabytes(Number(detail.limit))
            : '';
      return {
        title: trans.__('Too large'),
        message:
          limitMB && Number.isFinite(size)
            ? trans.__(
                'The object is %1 MB, more than the limit of %2 MB.',
                megabytes(size),
                limitMB
              )
            : limitMB
              ? trans.__('The object is more than the limit of %1 MB.', limitMB)
              : error.message,
        fix: trans.__(
          'Nothing was written. An administrator can raise "Largest object to clone (MB)" in the Bookshelf settings.'
        )
      };
    }
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
      if (detail.attempts !== undefined) {
        return {
          title: trans.__('No free name'),
          message: error.message,
          fix: trans.__('Choose another name or folder.')
        };
      }
      return {
        title: trans.__('Changed meanwhile'),
        // The S3 service's own refusal (no reason) carries no translated
        // text; publishing's (reason 'changed') does.
        message:
          detail.reason === undefined && path
            ? trans.__('%1 was changed by someone else meanwhile.', path)
            : error.message,
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
      return describeNotConfigured(error, trans);
    case 'Cancelled':
      return {
        title: trans.__('Cancelled'),
        message:
          detail.reason === 'credentials-cancelled'
            ? trans.__('No S3 credentials were given, so nothing was done.')
            : trans.__('The transfer was cancelled; nothing was written.'),
        fix: ''
      };
    case 'SaveFailed':
      return {
        title: trans.__('Could not save'),
        message: error.message,
        fix: trans.__(
          'Check that the Jupyter server is running and that you may write to the folder, then try again.'
        )
      };
    case 'ReadFailed':
      return {
        title: trans.__('Could not read the notebook'),
        message: detail.jupyterStatus
          ? trans.__(
              "The Jupyter server could not read '%1' (HTTP %2); nothing was published.",
              String(detail.path ?? ''),
              String(detail.jupyterStatus)
            )
          : trans.__(
              "The Jupyter server could not read '%1'; nothing was published.",
              String(detail.path ?? '')
            ),
        fix: trans.__(
          'Check that the Jupyter server is running and the file is still there, then publish again.'
        )
      };
    case 'Corrupted':
      return {
        title: trans.__('Damaged transfer'),
        message: describeDamage(error, path, trans),
        fix:
          detail.reason === 'checksum'
            ? trans.__(
                'Try again. If it keeps happening, something between this browser and the S3 service changes the data; or the bucket encrypts objects with KMS and its CORS rule does not expose the x-amz-server-side-encryption header (ask an administrator).'
              )
            : trans.__(
                'Try again; if it keeps happening, check the network between this browser and the S3 service.'
              )
      };
    case 'Interrupted':
      return {
        title: trans.__('Connection lost'),
        message: appendTries(
          typeof detail.loaded === 'number' && typeof detail.total === 'number'
            ? trans.__(
                'Connection to the S3 service lost after %1 of %2 bytes; the transfer did not complete (%3).',
                detail.loaded,
                detail.total,
                path || trans.__('the object')
              )
            : trans.__(
                'Connection to the S3 service lost; the transfer did not complete (%1).',
                path || trans.__('the object')
              ),
          detail,
          trans
        ),
        fix: trans.__(
          'Nothing partial was saved: no file was written, and a published object is either the earlier one or the new one, whole. Try again; if it keeps happening, check the network, any proxy between this browser and the S3 service, and that the CORS rule of the bucket allows the GET and PUT methods.'
        )
      };
    default:
      if (detail.source === 'jupyter') {
        return {
          title: trans.__('Something went wrong'),
          message: trans.__(
            'The Jupyter server answered HTTP %1.',
            String(detail.status)
          ),
          fix: trans.__(
            "Try again; if it persists, an administrator can look for the reason in the Jupyter server's log."
          )
        };
      }
      return {
        title: trans.__('Something went wrong'),
        message:
          detail.name || detail.status
            ? trans.__(
                'The S3 request for %1 failed (%2).',
                path || endpoint,
                String(detail.name ?? `HTTP ${detail.status}`)
              )
            : error.message,
        fix: trans.__('Try again; if it persists, tell an administrator.')
      };
  }
}

function describeCredentialsError(
  error: BookshelfError,
  trans: TranslationBundle
): IErrorDescription {
  const detail = error.detail;
  const url = String(detail.url ?? '');
  const title = trans.__('Credentials refused');
  switch (detail.reason) {
    case 'clock-skew':
      return {
        title,
        message: trans.__(
          "The S3 service refused the request because this computer's clock is wrong."
        ),
        fix: trans.__(
          "Set this computer's clock right (automatic date and time), then try again."
        )
      };
    case 'endpoint-unreachable':
      return {
        title: trans.__('No credentials'),
        message: trans.__('The credentials URL %1 could not be reached.', url),
        fix: trans.__(
          'Check that the Jupyter server runs, and the credentials URL in the Bookshelf settings.'
        )
      };
    case 'endpoint-status': {
      const status = Number(detail.status);
      return {
        title: trans.__('No credentials'),
        message: trans.__(
          'The credentials URL %1 answered HTTP %2.',
          url,
          String(detail.status ?? '')
        ),
        fix:
          status === 401 || status === 403
            ? trans.__(
                'Log in to Jupyter again; if it persists, ask an administrator whether you may have S3 credentials.'
              )
            : status === 404
              ? trans.__(
                  'Nothing answers at that path: check the credentials URL in the Bookshelf settings.'
                )
              : trans.__(
                  'The service behind the credentials URL failed: try again, or tell an administrator.'
                )
      };
    }
    case 'endpoint-not-json':
    case 'endpoint-fields':
    case 'endpoint-expiration':
      return {
        title: trans.__('No credentials'),
        message: trans.__(
          'The credentials URL %1 did not answer S3 credentials (JSON with AccessKeyId, SecretAccessKey, SessionToken and Expiration).',
          url
        ),
        fix: trans.__(
          'Check the credentials URL in the Bookshelf settings; an administrator can check what it answers.'
        )
      };
  }
  const mode = String(detail.mode ?? '');
  return {
    title,
    message: trans.__('The S3 service did not accept the credentials.'),
    fix:
      mode === 'session'
        ? trans.__(
            'Bookshelf forgot them: try again and enter the right access key id and secret.'
          )
        : mode === 'endpoint'
          ? trans.__(
              'The credentials URL hands out keys this S3 service does not know: tell an administrator.'
            )
          : trans.__(
              'An administrator corrects the keys in the Bookshelf settings, or chooses another credentials mode.'
            )
  };
}

function describeNotConfigured(
  error: BookshelfError,
  trans: TranslationBundle
): IErrorDescription {
  const detail = error.detail;
  const title = trans.__('Bookshelf is not set up');
  switch (detail.reason) {
    case 'conditional-writes':
      // The message (translated by the publish logic) names the condition
      // the server ignores.
      return {
        title: trans.__('Publishing cannot be protected'),
        message: error.message,
        fix: trans.__(
          "Set overwritePolicy to 'always' in the Bookshelf settings, knowing that a publish then replaces whatever is published at its path, or use an S3 service that supports conditional writes (If-None-Match, If-Match)."
        )
      };
    case 'session-empty':
      return {
        title: trans.__('No credentials'),
        message: trans.__('No S3 credentials are set for this tab.'),
        fix: trans.__('Try again, and enter them when asked.')
      };
    case 'settings-keys-missing':
      return {
        title,
        message: trans.__(
          'The credentials mode is "settings" but the access key id or the secret access key is empty.'
        ),
        fix: trans.__(
          'An administrator sets both keys in the Bookshelf settings, or chooses another credentials mode.'
        )
      };
    case 'endpoint-missing':
      return {
        title,
        message: trans.__(
          'The credentials mode is "endpoint" but no credentials URL is set.'
        ),
        fix: trans.__(
          'Set "Credentials URL" in the Bookshelf settings, or ask an administrator to.'
        )
      };
    case 'endpoint-cross-origin':
      return {
        title,
        message: trans.__(
          'The credentials URL %1 is not on this Jupyter server.',
          String(detail.url ?? '')
        ),
        fix: trans.__(
          'Bookshelf fetches credentials only from the Jupyter server it runs on: set a path on this server as "Credentials URL" in the Bookshelf settings.'
        )
      };
  }
  return {
    title,
    message: error.message,
    fix: trans.__('Open the Bookshelf settings and complete them.')
  };
}
