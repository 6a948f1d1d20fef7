/**
 * The arguments of the commands (their `describedBy`), for the tools that
 * call commands by id. Not needed to run a command: loaded when a tool
 * asks for them, so that Lab's start-up does not fetch them.
 */
import type { ReadonlyJSONObject } from '@lumino/coreutils';

import { CommandIDs } from './commands';

/**
 * No arguments.
 */
const NONE: ReadonlyJSONObject = { type: 'object', properties: {} };

/**
 * The JSON schema of each command's arguments.
 */
export const COMMAND_ARGS: { [id: string]: ReadonlyJSONObject } = {
  [CommandIDs.clone]: {
    type: 'object',
    properties: {
      s3_bucket: { type: 'string', description: 'The bucket' },
      s3_key: { type: 'string', description: 'The object key' },
      target_path: {
        type: 'string',
        description: 'The folder (ending in /) or file path to clone to'
      },
      s3_version_id: {
        type: 'string',
        description: 'The version to clone (default: the latest)'
      },
      fromLink: {
        type: 'boolean',
        description: 'Opened by a link: only allowed buckets'
      },
      cwd: {
        type: 'string',
        description:
          'The folder to clone to when target_path names none (the launcher passes its own)'
      }
    }
  },
  [CommandIDs.openCloneLink]: {
    type: 'object',
    properties: {
      search: {
        type: 'string',
        description: 'The query string of the link'
      }
    }
  },
  [CommandIDs.publish]: {
    type: 'object',
    properties: {
      path: {
        type: 'string',
        description: 'The notebook to publish (default: the current one)'
      },
      fromFileBrowser: {
        type: 'boolean',
        description: "Publish the file browser's selection"
      },
      toolbar: {
        type: 'boolean',
        description:
          "A button of the file browser's toolbar (Notebook 7's selection buttons)"
      }
    }
  },
  [CommandIDs.info]: NONE,
  [CommandIDs.forgetCredentials]: NONE
};
