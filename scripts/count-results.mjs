// Counts passed and failed tests in a test runner's JSON report; prints "PASSED FAILED".
// A missing or unreadable report counts as one failure, so a suite that crashed is never silent.
import { readFileSync } from 'node:fs'

const [kind, file] = process.argv.slice(2)

function read() {
  try {
    return readFileSync(file, 'utf8')
  } catch {
    return null
  }
}

function firstLine(message) {
  return (message ?? '').split('\n')[0].slice(0, 200)
}

const text = read()
let passed = 0
let failed = 0
if (text === null) {
  if (kind.endsWith('-failures')) {
    console.log(`  ${file}: no report; the suite stopped before writing it`)
    process.exit(0)
  }
  failed = 1
} else if (kind === 'go' || kind === 'go-failures') {
  // go test -json: one event per line; count the final pass/fail of every test and subtest,
  // plus packages that failed without a failing test (build errors, panics in TestMain).
  const failingPkgs = new Set()
  const pkgsWithFailingTests = new Set()
  const failures = []
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue
    const ev = JSON.parse(line)
    if (ev.Test && ev.Action === 'pass') passed++
    if (ev.Test && ev.Action === 'fail') {
      failed++
      pkgsWithFailingTests.add(ev.Package)
      failures.push(`${ev.Package} ${ev.Test}`)
    }
    if (!ev.Test && ev.Action === 'fail') failingPkgs.add(ev.Package)
  }
  for (const p of failingPkgs) {
    if (!pkgsWithFailingTests.has(p)) {
      failed++
      failures.push(`${p} (package failed: build error or crash)`)
    }
  }
  if (kind === 'go-failures') {
    console.log('  ' + failures.join('\n  '))
    process.exit(0)
  }
} else if (kind === 'vitest' || kind === 'vitest-failures') {
  try {
    const r = JSON.parse(text)
    if (kind === 'vitest-failures') {
      // One line per failing test: its file, its name and the first line of why.
      for (const f of r.testResults ?? []) {
        const file = f.name.replace(/^.*\/frontend\//, '')
        if (f.status === 'failed' && !f.assertionResults?.length) console.log(`  ${file}: ${firstLine(f.message)}`)
        for (const a of f.assertionResults ?? []) {
          if (a.status === 'failed') console.log(`  ${file} > ${a.fullName}: ${firstLine(a.failureMessages?.[0])}`)
        }
      }
      process.exit(0)
    }
    passed = r.numPassedTests
    // A file that failed to load has no assertions but must still count as a failure.
    const brokenFiles = (r.testResults ?? []).filter((f) => f.status === 'failed' && !f.assertionResults?.length)
    failed = r.numFailedTests + brokenFiles.length
    if (r.numTotalTests === 0) failed++
  } catch {
    failed = 1
  }
} else {
  console.error(`unknown report kind ${kind}`)
  process.exit(2)
}
console.log(`${passed} ${failed}`)
