import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';
import { readdirSync } from 'node:fs';

/*
 * Import rules that keep the picture in docs/flows.md true: the domain imports nothing; a file the
 * api runs never imports one only the worker runs, and the reverse; a feature reaches another
 * only through that feature's shared root, never its api/ or worker/ folders.
 *
 * Floors (docs/architecture.md): a folder imports only its own floor and the floors below it.
 * Between the libraries, bottom first (shop-client is the shops' package and imports none of them):
 */
const LIB_FLOORS = [
  'domain',
  'config',
  'queues',
  'common',
  'gateway-client',
  'persistence',
  'checkout',
];
/** Inside libs/checkout, bottom first; every folder of libs/checkout/src stands on one. */
const CHECKOUT_FLOORS = [
  ['errors'], // CheckoutError and the code catalogue
  ['http'], // the building blocks of requests and answers
  ['operators'], // the operator who acts: access, guards, sessions, API keys, the audit trail
  ['orders'], // the payments core: orders, the journal, the order view, IPN URL registration
  ['ipn', 'refunds', 'merchant-events', 'unmatched-payments', 'finance', 'overview', 'retention'],
  ['admin'], // the operators' views across the features
];
const CHECKOUT = 'libs/checkout/src';
const unplaced = readdirSync(new URL(`./${CHECKOUT}`, import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory() && !CHECKOUT_FLOORS.flat().includes(entry.name))
  .map((entry) => entry.name);
if (unplaced.length > 0) {
  throw new Error(`eslint.config.mjs: put ${unplaced.join(', ')} on a floor of CHECKOUT_FLOORS`);
}
/** The folders with api/, worker/ and a shared root. */
const FEATURES = CHECKOUT_FLOORS.flat().filter((folder) => !['errors', 'http'].includes(folder));
const restrict = (...patterns) => ({ 'no-restricted-imports': ['error', { patterns }] });

/** What a folder of libs/checkout may not import: the floors above its own, and the index. */
function againstFloors(folder) {
  const floor = CHECKOUT_FLOORS.findIndex((folders) => folders.includes(folder));
  const above = CHECKOUT_FLOORS.slice(floor + 1).flat();
  const index = {
    regex: '^@app/checkout$',
    message: 'the library index imports every feature: import the file you need.',
  };
  if (above.length === 0) return [index];
  return [
    index,
    {
      regex: `^((\\.\\./)+|@app/checkout/)(${above.join('|')})(/|$)`,
      message: `${folder}/ stands below ${above.join(', ')} (CHECKOUT_FLOORS): move what both need down.`,
    },
  ];
}

/** What a library may not import: the libraries above it. */
function againstLibFloors(lib) {
  const above = LIB_FLOORS.slice(LIB_FLOORS.indexOf(lib) + 1);
  return {
    files: [`libs/${lib}/src/**/*.ts`],
    rules: restrict({
      regex: `^@app/(${above.join('|')})(/|$)`,
      message: `libs/${lib} stands below ${above.join(', ')} (LIB_FLOORS): it never imports them.`,
    }),
  };
}

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
        rules: restrict(otherInternals, ...againstFloors(feature), {
          regex: '^\\./(api|worker)(/|$)',
          message: 'the feature root runs in both processes: it never imports its api/ or worker/.',
        }),
      },
      {
        files: [`libs/checkout/src/${feature}/api/**/*.ts`],
        rules: restrict(otherInternals, ...againstFloors(feature), {
          regex: '(^|/)worker(/|$)',
          message: 'api/ runs in the api process: it never imports worker/ code.',
        }),
      },
      {
        files: [`libs/checkout/src/${feature}/worker/**/*.ts`],
        rules: restrict(otherInternals, ...againstFloors(feature), {
          regex: '(^|/)(api|http)(/|$)',
          message: 'worker/ runs in the worker process: it never imports api/ or http/ code.',
        }),
      },
    ];
  }).flat(),
  ...['errors', 'http'].map((folder) => ({
    files: [`${CHECKOUT}/${folder}/**/*.ts`],
    rules: restrict(...againstFloors(folder)),
  })),
  ...LIB_FLOORS.filter((lib) => !['domain', 'checkout'].includes(lib)).map(againstLibFloors),
  {
    files: ['libs/shop-client/src/**/*.ts'],
    ignores: ['libs/shop-client/src/**/*.spec.ts'],
    rules: restrict({
      regex: '^@app/',
      message:
        "libs/shop-client is the shops' package: it imports none of the service's libraries.",
    }),
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'coverage/**',
      '.data/**',
      'test/artifacts/**',
      'libs/shop-client/dist/**',
      // Generated by npm run openapi.
      'libs/shop-client/src/api-types.ts',
    ],
  },
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
