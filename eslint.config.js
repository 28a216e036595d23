// @ts-check
// Lint: correctness rules and the import boundaries of the house rules (README, "Code layout"). Formatting is
// Prettier's job (npm run format:check), so no stylistic rule is switched on here. `npm run lint` runs it; `npm test`
// runs it (with tsc and Prettier) beside the tests, and stops them when it fails.
import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** Test and benchmark code: may import anything (sandbox, fixtures), and production code may never import it. */
const NOT_PRODUCTION = ['**/*.test.ts', '**/*.test.tsx', 'test/**', 'bench/**'];

/**
 * An import boundary: files under `dir` may not import from the top-level folders `banned`. A relative import
 * reaches folder F of the repository root when it climbs with `../` and then names F, e.g. '../../sandbox/index.js'
 * from server/services/: that is what the pattern matches (no sub-folder repeats a top-level folder's name).
 */
function reaching(banned) {
  return `^(\\.\\./)+(${banned.join('|')})(/|$)`;
}

/**
 * The same restriction on `import`/`export … from` (no-restricted-imports, which lets web/ keep `import type`) and on
 * `import()` (no-restricted-syntax: no-restricted-imports does not look at dynamic imports).
 */
function boundary(files, rules, ignores = []) {
  return {
    files,
    ignores,
    rules: {
      '@typescript-eslint/no-restricted-imports': [
        'error',
        { patterns: rules.map(({ regex, message, allowTypeImports }) => ({ regex, message, allowTypeImports })) },
      ],
      'no-restricted-syntax': [
        'error',
        // A dynamic import loads the module: no exception for types here.
        ...rules.map(({ regex, message }) => ({
          // esquery reads /…/ as a regular expression: a slash in it is written \x2F.
          selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\x2F')}/]`,
          message,
        })),
      ],
    },
  };
}

const noTestCode = {
  regex: reaching(['test', 'bench']),
  message: 'Production code never imports test/ or bench/ (house rule): move what both need into the production tree.',
};

const WEB_ONLY =
  'web/ imports nothing outside web/ but type declarations from server/schemas (house rule): the dashboard only talks to the API.';

const layer = (dir, banned, why) => boundary([`${dir}/**/*.ts`], [{ regex: reaching(banned), message: why }, noTestCode], NOT_PRODUCTION);

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'coverage/', 'test/screenshots/', '.ledger/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      parserOptions: {
        // Type information for the promise rules below; files outside both tsconfigs get a default project.
        // `npm run check` (scripts/typecheck-lint.mjs) sets `programs` instead for the TypeScript files: the type
        // check's two programs, whose checker has already worked out the types these rules ask about.
        projectService: { allowDefaultProject: ['*.js', 'bin/*.mjs'] },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      // A promise nobody awaits loses its error (an unhandled rejection, or a test that passes before it fails).
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      // A `let` read by a closure before its one assignment (a callback set up first) stays a `let`.
      'prefer-const': ['error', { destructuring: 'all', ignoreReadBeforeAssign: true }],
      // `_name` marks a value left out on purpose (a destructured field dropped from a copy, an unused parameter).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Plain JavaScript (the config files, the bin shim, module hooks): Node's globals, no type information.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
  {
    files: ['web/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'error' },
  },

  // Import boundaries (one direction: sources -> collectors -> db -> analytics -> API -> web; core/ shared by all).
  layer(
    'core',
    ['db', 'collectors', 'server', 'sandbox', 'cli', 'web'],
    'core/ imports nothing of ours (house rule): it is the pure domain model every layer shares.',
  ),
  layer(
    'db',
    ['collectors', 'server', 'sandbox', 'cli', 'web'],
    'db/ imports only core/ (house rule): declare shared types in core/, not in the layers above the database.',
  ),
  layer(
    'collectors',
    ['server', 'sandbox', 'cli', 'web'],
    'collectors/ import only core/ and db/ (house rule): the sandbox reaches them over HTTP like a real account, never by import.',
  ),
  layer(
    'server',
    ['sandbox', 'collectors', 'cli', 'web'],
    'server/ never imports sandbox/, collectors/ or cli/ (house rule): what only the demo has (the sandbox) is injected by cli/ through buildApp options.',
  ),
  boundary(['cli/**/*.ts', 'sandbox/**/*.ts'], [noTestCode], NOT_PRODUCTION),
  boundary(
    ['web/src/**/*.{ts,tsx}'],
    [
      {
        // Relative, or through the @schemas alias (web/tsconfig.json, vite.config.ts).
        regex: '^((\\.\\./)+server/schemas/|@schemas/)',
        allowTypeImports: true,
        message: 'web/ imports only type declarations from server/schemas (house rule): write `import type { … }`.',
      },
      {
        regex: reaching(['core', 'db', 'collectors', 'sandbox', 'cli', 'test', 'bench', 'data']),
        message: WEB_ONLY,
      },
      { regex: '^(\\.\\./)+server/(?!schemas/)', message: WEB_ONLY },
    ],
  ),
);
