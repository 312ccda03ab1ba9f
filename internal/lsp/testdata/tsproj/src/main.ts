import { Square, total } from './shapes'

export function describe(): string {
  return total([new Square(2)]).toFixed(2)
}
