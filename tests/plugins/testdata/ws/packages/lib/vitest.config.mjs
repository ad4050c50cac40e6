import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.js'],
    coverage: { enabled: true, provider: 'v8', reporter: ['json-summary'], reportsDirectory: 'coverage' },
  },
});
