// ESLint's rules for the HTML report's scripts (report/html/assets/js/):
// browser scripts, concatenated into one inline <script>, sharing only
// window.hwt; and for these test scripts (Node modules).
import js from '@eslint/js';
import globals from 'globals';

export default [
  js.configs.recommended,
  {
    files: ['report/html/assets/js/**/*.js'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'script',
      globals: {...globals.browser},
    },
    rules: {
      'no-implicit-globals': 'error',
      'no-restricted-syntax': ['error',
        {selector: "AssignmentExpression[left.property.name='innerHTML']", message: 'names from the input must stay text: use textContent'},
        {selector: "AssignmentExpression[left.property.name='outerHTML']", message: 'names from the input must stay text'},
        {selector: "CallExpression[callee.property.name='insertAdjacentHTML']", message: 'names from the input must stay text'},
        {selector: "CallExpression[callee.property.name='write']", message: 'no document.write'},
        {selector: "CallExpression[callee.name='fetch']", message: 'the report makes no request'},
        {selector: "NewExpression[callee.name='XMLHttpRequest']", message: 'the report makes no request'},
        {selector: "CallExpression[callee.name='eval']", message: 'no eval'},
      ],
      eqeqeq: 'error',
      'no-var': 'error',
      'prefer-const': 'error',
      strict: ['error', 'global'],
    },
  },
  {
    files: ['tests/js/**/*.js', 'tests/js/**/*.mjs', 'bench/**/*.mjs'],
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: 'module',
      globals: {...globals.node, ...globals.browser},
    },
  },
];
