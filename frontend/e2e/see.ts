// Waiting assertions on Playwright locators for vitest (playwright-core has no test runner and
// so no web-first `expect`): each one retries until it holds or the timeout passes.
import { expect } from 'vitest'
import type { Locator } from 'playwright-core'

interface Options {
  timeout?: number
}

const defaultTimeout = 10_000

const text = (loc: Locator) => loc.textContent().catch(() => '')

export function see(loc: Locator) {
  return {
    toBeVisible: ({ timeout = defaultTimeout }: Options = {}) => loc.waitFor({ state: 'visible', timeout }),
    toBeHidden: ({ timeout = defaultTimeout }: Options = {}) => loc.waitFor({ state: 'hidden', timeout }),
    toBeAttached: ({ timeout = defaultTimeout }: Options = {}) => loc.waitFor({ state: 'attached', timeout }),
    toContainText: (want: string, { timeout = defaultTimeout }: Options = {}) =>
      expect.poll(() => text(loc), { timeout }).toContain(want),
    toHaveCount: (n: number, { timeout = defaultTimeout }: Options = {}) =>
      expect.poll(() => loc.count(), { timeout }).toBe(n),
    toHaveAttribute: (name: string, value: string, { timeout = defaultTimeout }: Options = {}) =>
      expect.poll(() => loc.getAttribute(name).catch(() => null), { timeout }).toBe(value),
    toHaveValue: (value: string, { timeout = defaultTimeout }: Options = {}) =>
      expect.poll(() => loc.inputValue().catch(() => null), { timeout }).toBe(value),
  }
}
