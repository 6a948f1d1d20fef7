import type {
  JupyterFrontEnd,
  JupyterFrontEndPlugin
} from '@jupyterlab/application';
import { IFormRendererRegistry } from '@jupyterlab/ui-components';

import { CORE_PLUGIN_ID } from '../tokens';
// Loaded with the plugin: the Settings Editor asks for its renderers
// synchronously, and the component is a few lines over the form's own.
import { CredentialsField } from '../widgets/CredentialsField';

/**
 * Renders the credentials setting in the Settings Editor with the secrets
 * hidden as password fields.
 */
export const settingsFormPlugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyterlab-bookshelf:settings-form',
  description:
    'Shows the S3 secret access key and session token of the Bookshelf settings as password fields in the Settings Editor.',
  autoStart: true,
  // Optional: a frontend without the form-based Settings Editor has none.
  optional: [IFormRendererRegistry],
  activate: (
    app: JupyterFrontEnd,
    registry: IFormRendererRegistry | null
  ): void => {
    registry?.addRenderer(`${CORE_PLUGIN_ID}.credentials`, {
      fieldRenderer: CredentialsField
    });
  }
};
