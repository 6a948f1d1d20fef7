import { ReactWidget } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import { Button } from '@jupyterlab/ui-components';
import * as React from 'react';

import '../../style/widgets.css';

import { describeError } from '../errors/describe';
import { CopyButton } from './CopyButton';
import { publicSettings } from '../settings/checks';
import type { IBookshelf, IBookshelfInfo, IInfoCheck } from '../tokens';

/**
 * Properties of the info panel.
 */
export interface IInfoPanelProps {
  bookshelf: IBookshelf;
  trans: TranslationBundle;
  /** The frontend's own version. */
  version: string;
  openSettings: () => void;
}

/**
 * Version, effective settings (no secret) and live checks.
 */
export function InfoPanelComponent(props: IInfoPanelProps): JSX.Element {
  const { bookshelf, trans } = props;
  const [settings, setSettings] = React.useState(bookshelf.settings);
  const [info, setInfo] = React.useState<IBookshelfInfo | null>(null);
  const [failure, setFailure] = React.useState<string | null>(null);
  const [checking, setChecking] = React.useState(false);
  // Only the latest run's result is shown (settings may change meanwhile).
  const run = React.useRef(0);

  const runChecks = React.useCallback(
    async (askCredentials = false) => {
      const current = ++run.current;
      setChecking(true);
      try {
        const result = await bookshelf.info({ live: true, askCredentials });
        if (current === run.current) {
          setInfo(result);
          setFailure(null);
        }
      } catch (error) {
        if (current === run.current) {
          setFailure(describeError(error, trans).message);
        }
      } finally {
        if (current === run.current) {
          setChecking(false);
        }
      }
    },
    [bookshelf]
  );

  React.useEffect(() => {
    const onChange = () => {
      setSettings(bookshelf.settings);
      void runChecks();
    };
    bookshelf.settingsChanged.connect(onChange);
    void runChecks();
    return () => {
      bookshelf.settingsChanged.disconnect(onChange);
    };
  }, [bookshelf, runChecks]);

  const shown = publicSettings(settings);
  const labels: { [key: string]: string } = {
    endpointUrl: trans.__('S3 endpoint'),
    region: trans.__('Region'),
    forcePathStyle: trans.__('Path-style addressing'),
    credentialsMode: trans.__('Credentials mode'),
    credentialsEndpoint: trans.__('Credentials URL'),
    publishBucket: trans.__('Publish bucket'),
    publishPrefix: trans.__('Publish prefix'),
    overwritePolicy: trans.__('When the published object exists'),
    allowedBuckets: trans.__('Buckets links may clone from'),
    openAfterClone: trans.__('Open after cloning'),
    openAfterCloneMaxMB: trans.__(
      'Ask before opening a clone larger than (MB)'
    ),
    maxObjectSizeMB: trans.__('Largest object to clone (MB)')
  };
  const format = (key: string, value: unknown): string => {
    if (typeof value === 'boolean') {
      return value ? trans.__('yes') : trans.__('no');
    }
    if (Array.isArray(value)) {
      return value.length ? value.join(', ') : trans.__('all buckets');
    }
    if (value === '') {
      return key === 'endpointUrl'
        ? trans.__('Amazon S3 (default)')
        : trans.__('not set');
    }
    return String(value);
  };
  const status = (check: IInfoCheck): string =>
    check.state === 'pass'
      ? trans.__('Pass')
      : check.state === 'fail'
        ? trans.__('Fail')
        : trans.__('Not checked');

  return (
    <div className="jp-Bookshelf-info">
      <h2 className="jp-Bookshelf-info-title">{trans.__('Bookshelf')}</h2>
      <p className="jp-Bookshelf-info-version">
        {trans.__('Version %1', props.version)}
      </p>
      <h3>{trans.__('Settings in effect')}</h3>
      <table className="jp-Bookshelf-info-settings">
        <tbody>
          {Object.entries(shown).map(([key, value]) => (
            <tr key={key} data-setting={key}>
              <th scope="row">{labels[key] ?? key}</th>
              <td>{format(key, value)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <h3>{trans.__('Checks')}</h3>
      <ul
        className="jp-Bookshelf-info-checks"
        aria-live="polite"
        aria-busy={checking}
      >
        {info?.checks?.map(check => (
          <li
            key={check.id}
            data-check={check.id}
            data-ok={check.ok ? 'true' : 'false'}
            data-state={check.state}
            className={`jp-Bookshelf-check jp-mod-${check.state}`}
          >
            <span className="jp-Bookshelf-check-status">{status(check)}</span>{' '}
            <span className="jp-Bookshelf-check-label">{check.label}</span>
            {': '}
            <span className="jp-Bookshelf-check-message">{check.message}</span>
            {check.fix && (
              <p className="jp-Bookshelf-check-fix">
                <strong>{trans.__('Fix:')}</strong> {check.fix}
              </p>
            )}
            {check.rule && (
              <div className="jp-Bookshelf-check-rule">
                <pre>{check.rule}</pre>
                <CopyButton
                  text={check.rule}
                  label={trans.__('Copy Rule')}
                  copiedLabel={trans.__('Rule Copied')}
                />
              </div>
            )}
            {check.corsConfiguration && (
              <div className="jp-Bookshelf-check-configuration">
                <p>
                  {trans.__(
                    "The bucket's CORS configuration with it, its other rules kept:"
                  )}
                </p>
                <pre>{check.corsConfiguration}</pre>
                <CopyButton
                  text={check.corsConfiguration}
                  label={trans.__('Copy Configuration')}
                  copiedLabel={trans.__('Configuration Copied')}
                />
              </div>
            )}
            {check.action === 'enter-credentials' && (
              <Button
                className="jp-mod-styled jp-mod-accept"
                disabled={checking}
                onClick={() => void runChecks(true)}
              >
                {trans.__('Enter S3 Credentials…')}
              </Button>
            )}
          </li>
        ))}
        {!info && !failure && <li>{trans.__('Checking…')}</li>}
        {failure && (
          <li className="jp-Bookshelf-check jp-mod-fail">{failure}</li>
        )}
      </ul>
      <div className="jp-Bookshelf-info-actions">
        <Button
          className="jp-mod-styled jp-mod-accept"
          disabled={checking}
          onClick={() => void runChecks()}
        >
          {checking ? trans.__('Checking…') : trans.__('Check again')}
        </Button>
        <Button
          className="jp-mod-styled jp-mod-reject"
          onClick={props.openSettings}
        >
          {trans.__('Open settings')}
        </Button>
      </div>
    </div>
  );
}

/**
 * The info panel as a Lumino widget.
 */
export class InfoPanel extends ReactWidget {
  constructor(private readonly _props: IInfoPanelProps) {
    super();
    this.addClass('jp-Bookshelf-infoPanel');
  }

  protected render(): JSX.Element {
    return <InfoPanelComponent {...this._props} />;
  }
}
