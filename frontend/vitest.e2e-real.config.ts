import { defineConfig } from 'vitest/config'

// Browser tests against a real Ollama server, run by scripts/ollama-integration.sh (which builds
// the server and passes OLLAMA_BIN and GANTRY_TEST_GGUF); the default e2e run never needs one.
export default defineConfig({
  test: {
    include: ['e2e-real/**/*.e2e.ts'],
    environment: 'node',
    testTimeout: 90_000,
    hookTimeout: 90_000,
    fileParallelism: false,
  },
})
