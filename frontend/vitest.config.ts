import { defineConfig } from 'vitest/config'
import { svelte } from '@sveltejs/vite-plugin-svelte'

// Unit tests: pure TypeScript logic (wrappers, stores, formatting, build steps) in Node.
export default defineConfig({
  plugins: [svelte()],
  test: { include: ['src/**/*.test.ts', 'build/**/*.test.ts'], environment: 'node' },
})
