// Package shapes has a small interface and two implementations.
package shapes

import "math"

// Shape is something with an area.
type Shape interface {
	Area() float64
}

// Square is a Shape with equal sides.
type Square struct{ Side float64 }

// Area of the square.
func (s Square) Area() float64 { return s.Side * s.Side }

// Circle is a round Shape.
type Circle struct{ Radius float64 }

// Area of the circle.
func (c Circle) Area() float64 { return math.Pi * c.Radius * c.Radius }

// Total adds the areas of shapes.
func Total(shapes ...Shape) float64 {
	sum := 0.0
	for _, s := range shapes {
		sum += s.Area()
	}
	return sum
}
