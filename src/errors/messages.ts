/**
 * What an error means to a person, and what to do: the one table of the
 * texts of every kind of error (`./kinds.ts`), translated here and nowhere
 * else. `BookshelfError` takes its English message from the same table;
 * values come from the error's detail (never a secret); the fix for a CORS
 * refusal carries the rule to add.
 */
import type { TranslationBundle } from '@jupyterlab/translation';

import type {
  BookshelfErrorCode,
  BookshelfErrorKind,
  DetailOf,
  IS3Context,
  ITries
} from './kinds';
import publishRules from '../rules/publish.json';
import { ruleMessage } from '../rules/translate';
import { requiredCorsRule } from '../rules/corsRule';

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
  /** The S3 service's id of the failed request, for its administrators. */
  requestId?: string;
}

/**
 * The one CORS rule a bucket needs for this origin, as the S3 console spells
 * it (Bucket → Permissions → Cross-origin resource sharing): a rule to add
 * to the bucket's list, not a whole configuration, which would replace the
 * rules other sites rely on; see `requiredCorsRule`.
 */
export function corsRule(origin: string): string {
  return JSON.stringify(requiredCorsRule(origin), null, 2);
}

/**
 * What to say when the browser keeps this page from the S3 service at
 * `endpoint` because it is on this computer or the local network and the
 * site may not reach them (Chromium's local network access, asked of the
 * person and refused); the info panel's service check says the same.
 */
export function localNetworkBlockedText(
  endpoint: string,
  trans: TranslationBundle
): { message: string; fix: string } {
  return {
    message: trans.__(
      'The browser did not let this page reach the S3 service at %1: the service is on this computer or your local network, and this site is not allowed to reach them.',
      endpoint
    ),
    fix: trans.__(
      'Allow this site to access your local network (in Chrome and Edge: the icon at the left of the address bar, Site settings, "Local network access"), reload the page and try again. Administrators avoid the question by serving the S3 service and JupyterLab from the same network.'
    )
  };
}

/**
 * Describes the errors of one code: their detail, translated with `trans`;
 * `origin` is this page's origin (for CORS).
 */
type Describe<C extends BookshelfErrorCode> = (
  detail: DetailOf<C>,
  trans: TranslationBundle,
  origin: string
) => IErrorDescription;

/**
 * Describe a kind of error: a translated title, message and fix.
 */
export function describeKind(
  kind: BookshelfErrorKind,
  trans: TranslationBundle,
  origin: string
): IErrorDescription {
  // The table's entry for the kind's code takes the kind's detail.
  const describe = ERROR_MESSAGES[kind.code] as Describe<typeof kind.code>;
  const description = describe(kind.detail as any, trans, origin);
  const requestId = (kind.detail as IS3Context).requestId;
  return requestId ? { ...description, requestId } : description;
}

/**
 * A message, and how many times the transfer was tried when it was more
 * than once.
 */
function appendTries(
  message: string,
  detail: ITries,
  trans: TranslationBundle
): string {
  const attempts = detail.attempts;
  return typeof attempts === 'number' && attempts > 1
    ? `${message} ${trans.__('(tried %1 times)', attempts)}`
    : message;
}

function s3Path(detail: { bucket?: string; key?: string }): string {
  if (detail.bucket && detail.key) {
    return `s3://${detail.bucket}/${detail.key}`;
  }
  return detail.bucket ? `s3://${detail.bucket}` : '';
}

function megabytes(bytes: number): string {
  const mb = bytes / (1024 * 1024);
  return mb >= 10 ? mb.toFixed(0) : mb.toFixed(1);
}

function endpointOf(detail: IS3Context, trans: TranslationBundle): string {
  return detail.endpoint || trans.__('Amazon S3');
}

/**
 * What each kind of error says. Texts that come from validation
 * (`detail.message`: InvalidRequest, NotANotebook, Conflict, SaveFailed,
 * some NotConfigured) are the rule's own words, translated where the rule
 * is. A code without an entry does not compile.
 */
export const ERROR_MESSAGES: {
  readonly [C in BookshelfErrorCode]: Describe<C>;
} = {
  InvalidRequest: (detail, trans) => ({
    title: trans.__('Invalid request'),
    message: detail.message,
    fix: trans.__('Correct the values and try again.')
  }),
  BucketNotAllowed: (detail, trans) => ({
    title: trans.__('Bucket not allowed'),
    message: trans.__(
      'Links may not clone from the bucket "%1".',
      detail.bucket
    ),
    fix: trans.__(
      'An administrator allows buckets with the "Buckets links may clone from" (allowedBuckets) setting of Bookshelf.'
    )
  }),
  NoSuchBucket: (detail, trans) => ({
    title: trans.__('Unknown bucket'),
    message: trans.__('The bucket "%1" does not exist.', detail.bucket ?? ''),
    fix: trans.__(
      'Check the bucket name, and the S3 endpoint in the Bookshelf settings.'
    )
  }),
  NoSuchKey: (detail, trans) => ({
    title: trans.__('Object not found'),
    message: trans.__('There is no object %1.', s3Path(detail)),
    fix: trans.__(
      'Check the key: it is case-sensitive and includes every folder.'
    )
  }),
  NoSuchVersion: (detail, trans) => ({
    title: trans.__('Version not found'),
    message: trans.__(
      '%1 has no version "%2".',
      s3Path(detail),
      detail.versionId ?? ''
    ),
    fix: trans.__(
      'Leave the version empty to clone the latest version, or ask for a link to an existing one.'
    )
  }),
  AccessDenied: (detail, trans) => ({
    title: trans.__('Access denied'),
    message: trans.__(
      'Access to %1 was denied.',
      s3Path(detail) || trans.__('the S3 service')
    ),
    fix:
      detail.mode === 'anonymous'
        ? trans.__(
            'The request was unsigned (credentials mode "anonymous") and the object is not public: ask the owner to make it public, or choose the "session" credentials mode in the Bookshelf settings and enter keys that may read it.'
          )
        : detail.mode === 'session'
          ? trans.__(
              'Ask the owner of the bucket to give these credentials access (a bucket policy may deny it), or run "Forget S3 Credentials" and enter others.'
            )
          : trans.__(
              'Ask the owner of the bucket or an administrator to give these credentials access; a bucket policy may deny it.'
            )
  }),
  InvalidCredentials: describeCredentialsError,
  ExpiredCredentials: (detail, trans) => ({
    title: trans.__('Credentials expired'),
    message: trans.__('The S3 credentials have expired.'),
    fix:
      detail.mode === 'endpoint'
        ? trans.__(
            "Bookshelf fetches new credentials before they expire: try again. If this happens again, the credentials URL hands out expired credentials or this computer's clock is wrong; tell an administrator."
          )
        : detail.mode === 'settings'
          ? trans.__(
              'An administrator renews the keys in the Bookshelf settings.'
            )
          : trans.__(
              'Bookshelf forgot them: try again and enter new credentials when asked.'
            )
  }),
  CorsRefused: (detail, trans, origin) => {
    const endpoint = endpointOf(detail, trans);
    return {
      title: trans.__('Blocked by CORS'),
      message: detail.bucket
        ? trans.__(
            'The S3 service at %1 answers, but the bucket "%2" does not allow requests from this page (%3): either the bucket does not exist, or its CORS rules do not allow this origin.',
            endpoint,
            detail.bucket,
            origin
          )
        : trans.__(
            'The S3 service at %1 answers, but does not allow requests from this page (%2).',
            endpoint,
            origin
          ),
      fix: detail.bucket
        ? trans.__(
            'Check the bucket name. If the bucket exists, ask an administrator to add this rule at the start of its CORS configuration, keeping the rules it has (S3 console: the bucket, Permissions, Cross-origin resource sharing; the configuration is a list of rules):'
          )
        : trans.__(
            "Ask an administrator to add this rule at the start of the bucket's CORS configuration, keeping the rules it has (S3 console: the bucket, Permissions, Cross-origin resource sharing; the configuration is a list of rules):"
          ),
      rule: corsRule(origin)
    };
  },
  Unreachable: (detail, trans, origin) => {
    const title = trans.__('S3 service unreachable');
    const endpoint = endpointOf(detail, trans);
    switch (detail.reason) {
      case 'unreachable':
        return {
          title,
          message: trans.__('Nothing answers at %1.', endpoint),
          fix: trans.__(
            'Check the S3 endpoint URL in the Bookshelf settings, and that the service runs and is reachable from this computer (network, VPN, proxy).'
          )
        };
      case 'local-network-blocked':
        return {
          title: trans.__('S3 service blocked by the browser'),
          ...localNetworkBlockedText(endpoint, trans)
        };
      case 'timeout':
        return {
          title,
          message: trans.__(
            'The S3 service at %1 did not answer in time.',
            endpoint
          ),
          fix: trans.__(
            'Try again in a minute; check your network if it persists.'
          )
        };
      case 'network':
        return {
          title,
          message: trans.__(
            'The S3 service at %1 could not be reached, or it refused this page (CORS).',
            endpoint
          ),
          fix: trans.__(
            'Check your network and the S3 endpoint URL in the Bookshelf settings; if the service is up, its CORS rules may not allow this page (%1).',
            origin
          )
        };
    }
  },
  SlowDown: (_detail, trans) => ({
    title: trans.__('S3 service busy'),
    message: trans.__(
      'The S3 service is busy and asked to slow down; it still was after several tries.'
    ),
    fix: trans.__('Wait a minute, then try again.')
  }),
  ServerError: (detail, trans) => ({
    title: trans.__('S3 service failing'),
    message:
      detail.reason === 'no-body'
        ? trans.__(
            'The S3 service answered %1 without its content.',
            s3Path(detail)
          )
        : detail.status
          ? trans.__(
              'The S3 service failed (HTTP %1); it still did after several tries.',
              String(detail.status)
            )
          : trans.__(
              'The S3 service failed; it still did after several tries.'
            ),
    fix: trans.__(
      'Try again in a minute; if it persists, tell the administrator of the S3 service.'
    )
  }),
  NotANotebook: (detail, trans) => ({
    title: trans.__('Not a notebook'),
    message: detail.message,
    fix: detail.path
      ? trans.__(
          'Nothing was published. Only valid nbformat 4 notebooks (.ipynb) can be published: open it in JupyterLab, save it as a notebook, and publish again.'
        )
      : trans.__(
          'Nothing was written. A notebook must be valid nbformat 4 JSON; to look at the object as text, clone it under a name that does not end in .ipynb.'
        )
  }),
  TooLarge: (detail, trans) => {
    const limitMB =
      detail.limitMB !== undefined
        ? String(detail.limitMB)
        : detail.limit !== undefined
          ? megabytes(detail.limit)
          : '';
    return {
      title: trans.__('Too large'),
      message:
        limitMB && detail.size !== undefined
          ? trans.__(
              'The object is %1 MB, more than the limit of %2 MB.',
              megabytes(detail.size),
              limitMB
            )
          : limitMB
            ? trans.__('The object is more than the limit of %1 MB.', limitMB)
            : trans.__('The object is more than the size limit.'),
      fix: trans.__(
        'Nothing was written. An administrator can raise "Largest object to clone (MB)" in the Bookshelf settings.'
      )
    };
  },
  Conflict: (detail, trans) => {
    switch (detail.reason) {
      case 'policy-never':
        return {
          title: trans.__('Already published'),
          message: detail.message,
          fix: trans.__(
            'Nothing was overwritten: the overwrite policy is "never". Publish under another path.'
          )
        };
      case 'needs-confirmation':
        return {
          title: trans.__('Already published'),
          message: detail.message,
          fix: trans.__(
            'Nothing was overwritten. Publish from the dialog to confirm the replacement.'
          )
        };
      case 'no-free-name':
        return {
          title: trans.__('No free name'),
          message: detail.message,
          fix: trans.__('Choose another name or folder.')
        };
      case 'changed':
        return changedMeanwhile(detail.message, trans);
    }
  },
  PreconditionFailed: (detail, trans) =>
    changedMeanwhile(
      trans.__(
        '%1 was changed by someone else meanwhile.',
        s3Path(detail) || trans.__('the object')
      ),
      trans
    ),
  PublishNotConfigured: (detail, trans) => ({
    title: trans.__('Publishing is not set up'),
    message:
      detail.message ?? ruleMessage(trans, publishRules.messages.noBucket),
    fix: trans.__(
      'Set "Publish bucket" in the Bookshelf settings, or ask an administrator to.'
    )
  }),
  NotConfigured: describeNotConfigured,
  Cancelled: (detail, trans) => ({
    title: trans.__('Cancelled'),
    message:
      detail.reason === 'credentials-cancelled'
        ? trans.__('No S3 credentials were given, so nothing was done.')
        : trans.__('The transfer was cancelled; nothing was written.'),
    fix: ''
  }),
  SaveFailed: (detail, trans) => ({
    title: trans.__('Could not save'),
    message: detail.message,
    fix: trans.__(
      'Check that the Jupyter server is running and that you may write to the folder, then try again.'
    )
  }),
  ReadFailed: (detail, trans) =>
    detail.reason
      ? {
          title: trans.__('The notebook changed while it was published'),
          message:
            detail.reason === 'saved-meanwhile'
              ? trans.__(
                  "'%1' was saved again while it was being published, so nothing was published.",
                  detail.path
                )
              : trans.__(
                  "'%1' was saved again while it was being published, and the S3 service, which does not verify Content-MD5, stored the bytes of that save, which were not checked.",
                  detail.path
                ),
          fix: trans.__('Publish again to publish the version saved now.')
        }
      : {
          title: trans.__('Could not read the notebook'),
          message: detail.jupyterStatus
            ? trans.__(
                "The Jupyter server could not read '%1' (HTTP %2); nothing was published.",
                detail.path,
                String(detail.jupyterStatus)
              )
            : trans.__(
                "The Jupyter server could not read '%1'; nothing was published.",
                detail.path
              ),
          fix: trans.__(
            'Check that the Jupyter server is running and the file is still there, then publish again.'
          )
        },
  Corrupted: (detail, trans) => {
    const what = s3Path(detail) || trans.__('the object');
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
    }
    return {
      title: trans.__('Damaged transfer'),
      message: appendTries(message, detail, trans),
      fix:
        detail.reason === 'checksum'
          ? trans.__(
              'Try again. If it keeps happening, something between this browser and the S3 service changes the data; or the bucket encrypts objects with KMS and its CORS rule does not expose the x-amz-server-side-encryption header (ask an administrator).'
            )
          : trans.__(
              'Try again; if it keeps happening, check the network between this browser and the S3 service.'
            )
    };
  },
  Interrupted: (detail, trans) => {
    const what = s3Path(detail) || trans.__('the object');
    const stalled = typeof detail.stalled === 'number';
    let message: string;
    if (stalled) {
      message = trans.__(
        'The S3 service sent nothing for %1 seconds, after %2 bytes; the transfer did not complete (%3).',
        detail.stalled,
        detail.loaded ?? 0,
        what
      );
    } else if (
      typeof detail.loaded === 'number' &&
      typeof detail.total === 'number'
    ) {
      message = trans.__(
        'Connection to the S3 service lost after %1 of %2 bytes; the transfer did not complete (%3).',
        detail.loaded,
        detail.total,
        what
      );
    } else {
      message = trans.__(
        'Connection to the S3 service lost; the transfer did not complete (%1).',
        what
      );
    }
    return {
      title: stalled
        ? trans.__('Transfer stalled')
        : trans.__('Connection lost'),
      message: appendTries(message, detail, trans),
      fix: trans.__(
        'Nothing partial was saved: no file was written, and a published object is either the earlier one or the new one, whole. Try again; if it keeps happening, check the network, any proxy between this browser and the S3 service, and that the CORS rule of the bucket allows the GET and PUT methods.'
      )
    };
  },
  Unknown: (detail, trans) => {
    const title = trans.__('Something went wrong');
    if (detail.source === 'jupyter') {
      return {
        title,
        message: detail.said
          ? trans.__(
              'The Jupyter server answered HTTP %1: %2.',
              String(detail.status),
              detail.said
            )
          : trans.__(
              'The Jupyter server answered HTTP %1.',
              String(detail.status)
            ),
        fix: trans.__(
          "Try again; if it persists, an administrator can look for the reason in the Jupyter server's log."
        )
      };
    }
    const failure =
      detail.name ||
      (detail.status !== undefined ? `HTTP ${detail.status}` : '');
    const where = s3Path(detail) || endpointOf(detail, trans);
    return {
      title,
      message: failure
        ? trans.__('The S3 request for %1 failed (%2).', where, failure)
        : trans.__('The S3 request for %1 failed.', where),
      fix: trans.__('Try again; if it persists, tell an administrator.')
    };
  }
};

function changedMeanwhile(
  message: string,
  trans: TranslationBundle
): IErrorDescription {
  return {
    title: trans.__('Changed meanwhile'),
    message,
    fix: trans.__(
      'Nothing was overwritten. Look at the newer version, then try again.'
    )
  };
}

function describeCredentialsError(
  detail: DetailOf<'InvalidCredentials'>,
  trans: TranslationBundle
): IErrorDescription {
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
        message: trans.__(
          'The credentials URL %1 could not be reached.',
          detail.url
        ),
        fix: trans.__(
          'Check that the Jupyter server runs, and the credentials URL in the Bookshelf settings.'
        )
      };
    case 'endpoint-status': {
      const status = detail.status;
      return {
        title: trans.__('No credentials'),
        message: trans.__(
          'The credentials URL %1 answered HTTP %2.',
          detail.url,
          String(status ?? '')
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
        message:
          detail.reason === 'endpoint-not-json'
            ? trans.__(
                'The credentials URL %1 did not answer S3 credentials (JSON with AccessKeyId, SecretAccessKey, SessionToken and Expiration): it did not answer JSON.',
                detail.url
              )
            : detail.reason === 'endpoint-fields'
              ? trans.__(
                  'The credentials URL %1 did not answer S3 credentials (JSON with AccessKeyId, SecretAccessKey, SessionToken and Expiration): it answered without AccessKeyId and SecretAccessKey.',
                  detail.url
                )
              : trans.__(
                  'The credentials URL %1 did not answer S3 credentials (JSON with AccessKeyId, SecretAccessKey, SessionToken and Expiration): its Expiration is not a date.',
                  detail.url
                ),
        fix: trans.__(
          'Check the credentials URL in the Bookshelf settings; an administrator can check what it answers.'
        )
      };
  }
  const mode = detail.mode;
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
  detail: DetailOf<'NotConfigured'>,
  trans: TranslationBundle
): IErrorDescription {
  const title = trans.__('Bookshelf is not set up');
  switch (detail.reason) {
    case 'conditional-writes':
      // The message (translated by the publish logic) names the condition
      // the server ignores.
      return {
        title: trans.__('Publishing cannot be protected'),
        message: detail.message,
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
          detail.url
        ),
        fix: trans.__(
          'Bookshelf fetches credentials only from the Jupyter server it runs on: set a path on this server as "Credentials URL" in the Bookshelf settings.'
        )
      };
    case 'settings':
      return {
        title,
        message: detail.message,
        fix: trans.__('Open the Bookshelf settings and complete them.')
      };
  }
}
