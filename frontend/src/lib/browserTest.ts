// Some modules need a real DOM, and Node has none: their tests bundle the module and run it in
// headless Chromium (the browser the end-to-end tests use), so what is checked is what ships.
import { chromium, type Browser, type Page } from 'playwright-core'
import { build } from 'vite'

const chromiumPath = '/usr/bin/chromium'

export interface BrowserModule {
  page: Page
  close(): Promise<void>
}

/**
 * Bundles the module at entry (an absolute path) as window[name] into a blank page. Resolves null
 * when there is no Chromium here; the tests that need it skip themselves.
 */
export async function loadInBrowser(entry: string, name: string): Promise<BrowserModule | null> {
  const out = await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, minify: false, lib: { entry, formats: ['iife'], name, fileName: name } },
  })
  const code = (Array.isArray(out) ? out[0] : (out as { output: { code?: string }[] })).output[0].code!
  let browser: Browser
  try {
    browser = await chromium.launch({ executablePath: chromiumPath, args: ['--headless', '--no-sandbox', '--disable-gpu'] })
  } catch {
    return null
  }
  const page = await browser.newPage()
  await page.setContent('<!doctype html><div id="out"></div>')
  await page.addScriptTag({ content: code })
  return { page, close: () => browser.close() }
}

/** An absolute path next to a test file, for loadInBrowser. */
export function besides(importMetaUrl: string, file: string): string {
  return decodeURIComponent(new URL(file, importMetaUrl).pathname)
}
