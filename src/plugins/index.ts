import type { JupyterFrontEndPlugin } from '@jupyterlab/application';

import { clonePlugin } from './clone';
import { corePlugin } from './core';
import { infoPlugin } from './info';
import { publishPlugin } from './publish';
import { settingsFormPlugin } from './settingsForm';

/**
 * The plugins: the module JupyterLab loads at start-up (package.json's
 * `jupyterlab.extension`). The package's other exports (src/index.ts: the
 * error model for other extensions) stay out of Lab's start-up.
 */
const plugins: JupyterFrontEndPlugin<any>[] = [
  corePlugin,
  infoPlugin,
  clonePlugin,
  publishPlugin,
  settingsFormPlugin
];

export default plugins;
