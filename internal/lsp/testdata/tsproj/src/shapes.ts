export interface Shape {
  area(): number
}

export class Square implements Shape {
  constructor(readonly side: number) {}
  area(): number {
    return this.side * this.side
  }
}

export function total(shapes: Shape[]): number {
  return shapes.reduce((sum, s) => sum + s.area(), 0)
}
