import { JupyterFrontEndPlugin } from '@jupyterlab/application';

import { clonePlugin } from './plugins/clone';
import { corePlugin } from './plugins/core';
import { infoPlugin } from './plugins/info';
import { publishPlugin } from './plugins/publish';
import { settingsFormPlugin } from './plugins/settingsForm';

export * from './tokens';
export { CommandIDs } from './plugins/commands';

const plugins: JupyterFrontEndPlugin<any>[] = [
  corePlugin,
  infoPlugin,
  clonePlugin,
  publishPlugin,
  settingsFormPlugin
];

export default plugins;
