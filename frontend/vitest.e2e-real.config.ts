import { defineConfig } from 'vitest/config'

// Browser tests against a real Ollama server, run by scripts/ollama-integration.sh (which builds
// the server and passes OLLAMA_BIN and GANTRY_TEST_GGUF); the default e2e run never needs one.
export default defineConfig({
  test: {
    include: ['e2e-real/**/*.e2e.ts'],
    environment: 'node',
    // Hang guards only: a model's work on a busy machine is slow (see modelPatience).
    testTimeout: 600_000,
    hookTimeout: 600_000,
    fileParallelism: false,
  },
})
