/**
 * The credentials setting in JupyterLab's Settings Editor, with the secret
 * access key and the session token as password fields: in `settings` mode
 * they would otherwise show in clear text to anyone who looks at the screen.
 */
import type { FieldProps, UiSchema } from '@rjsf/utils';
import * as React from 'react';

/**
 * The nested settings that hold secrets.
 */
export const SECRET_FIELDS = ['secretAccessKey', 'sessionToken'];

/**
 * The form's own object field, with password inputs for the secrets; the
 * rest (titles, descriptions, the mode's choices, validation) is the
 * Settings Editor's as for any other setting.
 */
export function CredentialsField(props: FieldProps): JSX.Element {
  const { ObjectField } = props.registry.fields;
  const uiSchema: UiSchema = { ...props.uiSchema };
  // This field replaced the default one: the object field must not again.
  delete uiSchema['ui:field'];
  for (const name of SECRET_FIELDS) {
    uiSchema[name] = {
      ...(uiSchema[name] ?? {}),
      'ui:widget': 'password',
      'ui:options': { autocomplete: 'off' }
    };
  }
  return <ObjectField {...props} uiSchema={uiSchema} />;
}
