// Lint: the recommended rules of ESLint and typescript-eslint plus the project's import boundaries.
// Style is Prettier's job (format check), so no stylistic rules here.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

// I/O libraries: libs/domain holds pure rules, so none of these may appear there.
const IO_MODULES = [
  'typeorm',
  '@nestjs/typeorm',
  'pg',
  'ioredis',
  'bullmq',
  '@nestjs/bullmq',
  'fs',
  'fs/promises',
  'node:fs',
  'node:fs/promises',
  'http',
  'https',
  'node:http',
  'node:https',
  'net',
  'node:net',
  'dns',
  'node:dns',
  'child_process',
  'node:child_process',
  'nodemailer',
];

export default tseslint.config(
  {
    ignores: [
      '**/node_modules/**',
      '**/dist/**',
      'coverage/**',
      'test-output/**',
      'bench/results/**',
      'openapi/**',
      'portal/**',
      'clients/typescript/src/schema.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    rules: {
      // Unused arguments are common in Nest signatures; an underscore marks them as intended.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      // Input validation rejects control characters on purpose (header injection, NUL bytes).
      'no-control-regex': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // The embeddable widget runs in browsers.
  {
    files: ['widget/src/**/*.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ['**/*.spec.ts', '**/*.e2e-spec.ts', 'libs/testing/**/*.ts'],
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
  },
  // Boundary: libraries never depend on applications. libs/testing is the exception by nature:
  // its e2e helpers boot the api application.
  {
    files: ['libs/**/*.ts'],
    ignores: ['libs/testing/**'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [{ group: ['**/apps/**', 'apps/**'], message: 'libs never import from apps.' }],
        },
      ],
    },
  },
  // Boundary: libs/domain is pure rules, no I/O (its specs may read fixtures from disk).
  {
    files: ['libs/domain/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: IO_MODULES.map((name) => ({
            name,
            message: 'libs/domain holds pure rules: do I/O in a repository or service instead.',
          })),
          patterns: [
            { group: ['**/apps/**', 'apps/**'], message: 'libs never import from apps.' },
            {
              group: [
                '@app/db',
                '@app/db/*',
                '@app/queue',
                '@app/queue/*',
                '@app/core',
                '@app/core/*',
              ],
              message: 'libs/domain imports no I/O modules.',
            },
          ],
        },
      ],
    },
  },
  // Boundary: the portal is one of the api's edges (routes for the institution's staff); other
  // modules never build on it. A service it shares lives in its domain's module (webhooks,
  // widget), a type in auth (PortalPrincipal). app.module.ts wires the portal's modules in. The
  // typescript-eslint variant of the rule, so that the core rule's options above and below (which
  // replace each other per file) still apply.
  {
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['apps/api/src/portal/**', 'apps/api/src/app.module.ts'],
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: ['**/portal/**', 'portal/**'],
              message:
                'Only the portal imports from apps/api/src/portal: move what you need into its domain module, or auth.',
            },
          ],
        },
      ],
    },
  },
  // Boundary: controllers speak HTTP and call services; statements live in repositories.
  {
    files: ['**/*.controller.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'typeorm',
              message: 'Controllers do not touch the database: use a service/repository.',
            },
            {
              name: '@nestjs/typeorm',
              message: 'Controllers do not touch the database: use a service/repository.',
            },
            {
              name: 'pg',
              message: 'Controllers do not touch the database: use a service/repository.',
            },
          ],
        },
      ],
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='query']",
          message: 'Controllers run no SQL: put the statement in a repository.',
        },
        {
          selector: "CallExpression[callee.property.name='createQueryBuilder']",
          message: 'Controllers run no SQL: put the statement in a repository.',
        },
      ],
    },
  },
);
