package main

import (
	"fmt"

	"example.com/goproj/shapes"
)

func main() {
	fmt.Println(describe())
}

func describe() string {
	return fmt.Sprintf("%.2f", shapes.Total(shapes.Square{Side: 2}, shapes.Circle{Radius: 1}))
}
