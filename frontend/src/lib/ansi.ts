// Command output arrives as the terminal would get it. Colours are not rendered yet: escape
// sequences are stripped, and a carriage return (progress bars) keeps only what was written last.
const escapes = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g

export function stripAnsi(s: string): string {
  return s
    .replace(escapes, '')
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => {
      const i = line.lastIndexOf('\r')
      return i < 0 ? line : line.slice(i + 1)
    })
    .join('\n')
}
