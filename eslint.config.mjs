import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import prettierRecommended from 'eslint-plugin-prettier/recommended';
import globals from 'globals';
import jupyterPlugin from '@jupyter/eslint-plugin';

export default defineConfig([
  {
    ignores: [
      'node_modules',
      'dist',
      'coverage',
      '**/*.js',
      '**/*.d.ts',
      '.venv',
      'lib',
      'jupyterlab_bookshelf',
      '.run',
      'tests',
      'ui-tests/node_modules',
      'ui-tests/test-results',
      'ui-tests/playwright-report'
    ]
  },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    plugins: {
      jupyter: jupyterPlugin
    }
  },
  jupyterPlugin.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      globals: {
        ...globals.browser,
        ...globals.es2015,
        ...globals.node
      },
      parserOptions: {
        project: 'tsconfig.json',
        sourceType: 'module'
      }
    },
    rules: {
      '@typescript-eslint/naming-convention': [
        'error',
        {
          selector: 'interface',
          format: ['PascalCase'],
          custom: {
            regex: '^I[A-Z]',
            match: true
          }
        }
      ],
      '@typescript-eslint/no-unused-vars': ['warn', { args: 'none' }],
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-namespace': 'off',
      '@typescript-eslint/no-use-before-define': 'off',
      '@typescript-eslint/quotes': [
        'error',
        'single',
        { avoidEscape: true, allowTemplateLiterals: false }
      ],
      // Every user-facing string goes through ITranslator.
      'jupyter/no-untranslated-string': 'error',
      'jupyter/no-dynamic-translation': 'error',
      'jupyter/incorrect-translator-usage': 'error',
      'jupyter/command-described-by': 'error',
      curly: ['error', 'all'],
      eqeqeq: 'error',
      'prefer-arrow-callback': 'error'
    }
  },
  {
    // The tests: typed against their own configurations, held to the same
    // rules except that their strings are not the person's (no translation)
    // and that they may reach into what they test.
    files: ['src/__tests__/**/*.ts', 'src/__tests__/**/*.tsx'],
    languageOptions: {
      parserOptions: { project: 'tsconfig.test.json' }
    },
    rules: {
      'jupyter/no-untranslated-string': 'off',
      'jupyter/command-described-by': 'off'
    }
  },
  {
    files: ['ui-tests/**/*.ts'],
    languageOptions: {
      parserOptions: { project: 'ui-tests/tsconfig.json' }
    },
    rules: {
      'jupyter/no-untranslated-string': 'off',
      'jupyter/no-dynamic-translation': 'off',
      'jupyter/incorrect-translator-usage': 'off',
      'jupyter/command-described-by': 'off',
      // Playwright reads which fixtures a function needs from its first
      // parameter's pattern, so a fixture that needs none must write `{}`.
      'no-empty-pattern': 'off'
    }
  },
  prettierRecommended
]);
