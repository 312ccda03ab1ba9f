import { defineConfig } from 'vitest/config'

// Browser end-to-end tests: real `gantry serve` processes, a real fake-Ollama process and Debian's
// Chromium driven by playwright-core. Files run one at a time: two cores, one browser each.
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.ts'],
    environment: 'node',
    testTimeout: 60_000,
    hookTimeout: 60_000,
    fileParallelism: false,
  },
})
