import { defineConfig } from 'vite';

export default defineConfig({
  build: { outDir: 'dist' },
  test: { include: ['src/**/*.test.js'] },
});
