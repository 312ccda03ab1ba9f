// A small project tree on disk for the tests to open.
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export function makeProject(name = 'sample-project'): string {
  const root = join(mkdtempSync(join(tmpdir(), 'gantry-proj-')), name)
  mkdirSync(join(root, 'src', 'util'), { recursive: true })
  mkdirSync(join(root, '.git'), { recursive: true })
  mkdirSync(join(root, 'node_modules', 'left-pad'), { recursive: true })
  writeFileSync(join(root, '.gitignore'), 'node_modules/\n*.log\n')
  writeFileSync(join(root, 'README.md'), '# Sample\n')
  writeFileSync(join(root, 'debug.log'), 'noise\n')
  writeFileSync(join(root, 'src', 'main.go'), 'package main\n')
  writeFileSync(join(root, 'src', 'util', 'strings.go'), 'package util\n')
  return root
}

/** A small Go module (an interface, two implementations, a caller): the language servers'
 * fixture of internal/lsp, copied. */
export function makeGoProject(name = 'shapes'): string {
  const root = join(mkdtempSync(join(tmpdir(), 'gantry-go-')), name)
  cpSync(join(import.meta.dirname, '..', '..', 'internal', 'lsp', 'testdata', 'goproj'), root, { recursive: true })
  return root
}
