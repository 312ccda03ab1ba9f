import { defineConfig } from 'vite'
import { svelte } from '@sveltejs/vite-plugin-svelte'
import { trimWhitespace } from './build/trimWhitespace'

export default defineConfig({
  plugins: [svelte({ preprocess: [trimWhitespace()] })],
  build: { outDir: 'dist', emptyOutDir: true, target: 'es2022' },
})
