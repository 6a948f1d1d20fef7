import { ReactWidget } from '@jupyterlab/apputils';
import { TranslationBundle } from '@jupyterlab/translation';
import { Button } from '@jupyterlab/ui-components';
import * as React from 'react';

import '../../style/widgets.css';

import { publicSettings } from '../settings';
import type { IBookshelf, IBookshelfInfo } from '../tokens';

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
  const [checking, setChecking] = React.useState(false);

  const runChecks = React.useCallback(async () => {
    setChecking(true);
    try {
      setInfo(await bookshelf.info({ live: true }));
    } finally {
      setChecking(false);
    }
  }, [bookshelf]);

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

  return (
    <div className="jp-Bookshelf-info">
      <h2 className="jp-Bookshelf-info-title">{trans.__('Bookshelf')}</h2>
      <p className="jp-Bookshelf-info-version">
        {trans.__('Version %1', props.version)}
        {info && info.release !== props.version
          ? ' ' +
            trans.__(
              '(server extension %1: reinstall the package so both match)',
              info.release
            )
          : null}
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
      <ul className="jp-Bookshelf-info-checks" aria-live="polite">
        {info?.checks?.map(check => (
          <li
            key={check.id}
            data-check={check.id}
            data-ok={check.ok ? 'true' : 'false'}
            className={
              check.ok
                ? 'jp-Bookshelf-check jp-mod-ok'
                : 'jp-Bookshelf-check jp-mod-failed'
            }
          >
            <span className="jp-Bookshelf-check-status">
              {check.ok ? trans.__('Pass') : trans.__('Fail')}
            </span>{' '}
            <span className="jp-Bookshelf-check-label">{check.label}</span>
            {': '}
            <span className="jp-Bookshelf-check-message">{check.message}</span>
          </li>
        ))}
        {!info && <li>{trans.__('Checking…')}</li>}
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
