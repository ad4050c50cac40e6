export default [
  {
    files: ['**/*.js', '**/*.mjs'],
    languageOptions: { sourceType: 'module' },
    rules: { 'no-unused-vars': 'error', 'no-undef': 'off' },
  },
];
