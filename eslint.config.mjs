import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/*
 * Import rules that keep the picture in docs/flows.md true: the domain imports nothing; a file the
 * api runs never imports one only the worker runs, and the reverse; a feature reaches another
 * only through that feature's shared root, never its api/ or worker/ folders.
 */
const FEATURES = ['orders', 'ipn', 'refunds', 'admin', 'merchant-events', 'retention', 'finance'];
const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });
const importRules = [
  {
    files: ['libs/domain/src/**/*.ts'],
    rules: restrict({
      regex: '^[^.]',
      message: 'libs/domain is pure TypeScript: it imports nothing but its own files.',
    }),
  },
  ...FEATURES.map((feature) => {
    const others = FEATURES.filter((other) => other !== feature).join('|');
    const otherInternals = {
      regex: `^((\\.\\./)+|@app/checkout/)(${others})/(api|worker)(/|$)`,
      message: `another feature's api/ and worker/ folders are its own: import its shared root instead.`,
    };
    return [
      {
        files: [`libs/checkout/src/${feature}/**/*.ts`],
        ignores: [`libs/checkout/src/${feature}/api/**`, `libs/checkout/src/${feature}/worker/**`],
        rules: restrict(otherInternals, {
          regex: '^\\./(api|worker)(/|$)',
          message: 'the feature root runs in both processes: it never imports its api/ or worker/.',
        }),
      },
      {
        files: [`libs/checkout/src/${feature}/api/**/*.ts`],
        rules: restrict(otherInternals, {
          regex: '(^|/)worker(/|$)',
          message: 'api/ runs in the api process: it never imports worker/ code.',
        }),
      },
      {
        files: [`libs/checkout/src/${feature}/worker/**/*.ts`],
        rules: restrict(otherInternals, {
          regex: '(^|/)(api|http)(/|$)',
          message: 'worker/ runs in the worker process: it never imports api/ or http/ code.',
        }),
      },
    ];
  }).flat(),
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', '.data/**', 'test/artifacts/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  prettier,
  {
    languageOptions: {
      parserOptions: { sourceType: 'module' },
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        AbortController: 'readonly',
        AbortSignal: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_' },
      ],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  ...importRules,
  {
    files: ['scripts/**/*.js', 'bench/**/*.js'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
