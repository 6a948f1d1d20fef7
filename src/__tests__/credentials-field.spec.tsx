/**
 * The credentials setting as the Settings Editor renders it with this
 * extension's field: the secrets are password inputs, the rest as usual,
 * and what is typed reaches the form's data.
 */
import { FormComponent } from '@jupyterlab/ui-components';
import type { ValidatorType } from '@rjsf/utils';
import * as React from 'react';
import { act } from 'react';

import { CredentialsField } from '../widgets/CredentialsField';

// The schema is JSON outside the test tsconfig's files; require reads it as is.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const schema = require('../../schema/core.json');
// react-dom has no type declarations in this project.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createRoot } = require('react-dom/client');

/**
 * A validator that finds nothing wrong: the Settings Editor's own (Ajv) is
 * not what these tests are about.
 */
const acceptAll: ValidatorType = {
  validateFormData: () => ({ errors: [], errorSchema: {} }),
  toErrorList: () => [],
  isValid: () => true,
  rawValidation: () => ({ errors: [], validationError: undefined })
} as any;

(globalThis as any).IS_REACT_ACT_ENVIRONMENT = true;

describe('CredentialsField', () => {
  let container: HTMLDivElement;
  let root: any;
  let changes: any[];

  beforeEach(async () => {
    container = document.createElement('div');
    document.body.appendChild(container);
    root = createRoot(container);
    changes = [];
    await act(async () => {
      root.render(
        <FormComponent
          validator={acceptAll}
          schema={{
            type: 'object',
            properties: { credentials: schema.properties.credentials }
          }}
          formData={{
            credentials: {
              mode: 'settings',
              accessKeyId: 'AKIDFIELDTEST',
              secretAccessKey: 'secret-FIELD-7q2',
              sessionToken: 'token-FIELD-9x4',
              endpoint: ''
            }
          }}
          uiSchema={{ credentials: { 'ui:field': 'credentials' } }}
          fields={{ credentials: CredentialsField }}
          idPrefix="jp-SettingsEditor-test"
          onChange={(event: any) => changes.push(event.formData)}
        />
      );
    });
  });

  afterEach(() => {
    act(() => root.unmount());
    container.remove();
  });

  const input = (name: string) =>
    container.querySelector(
      `input[id="jp-SettingsEditor-test_credentials_${name}"]`
    ) as HTMLInputElement;

  it('shows the secret access key and the session token as password fields', () => {
    expect(input('secretAccessKey').type).toBe('password');
    expect(input('sessionToken').type).toBe('password');
    expect(input('secretAccessKey').autocomplete).toBe('off');
  });

  it('shows the other settings as text, with the schema titles', () => {
    expect(input('accessKeyId').type).toBe('text');
    expect(input('accessKeyId').value).toBe('AKIDFIELDTEST');
    expect(input('endpoint').type).toBe('text');
    expect(container.textContent).toContain(
      'Secret access key (settings mode)'
    );
    expect(container.textContent).toContain('can read it there');
  });

  it('keeps the secret in the form data, not on the page', () => {
    expect(input('secretAccessKey').value).toBe('secret-FIELD-7q2');
    expect(container.textContent).not.toContain('secret-FIELD-7q2');
  });

  it('passes what is typed on to the settings', async () => {
    const field = input('secretAccessKey');
    await act(async () => {
      const setValue = Object.getOwnPropertyDescriptor(
        HTMLInputElement.prototype,
        'value'
      )!.set!;
      setValue.call(field, 'a-new-secret');
      field.dispatchEvent(new Event('input', { bubbles: true }));
    });
    expect(changes[changes.length - 1].credentials.secretAccessKey).toBe(
      'a-new-secret'
    );
    expect(changes[changes.length - 1].credentials.accessKeyId).toBe(
      'AKIDFIELDTEST'
    );
  });
});
