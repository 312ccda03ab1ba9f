package tools

import (
	"fmt"
	"strconv"
)

// Small wording helpers shared by the tools' messages.

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func formatSize(n int64) string {
	// Switching units just below a power of 1024 avoids "1024.0 MB".
	switch {
	case n >= 1000<<20:
		return fmt.Sprintf("%.1f GB", float64(n)/(1<<30))
	case n >= 1000<<10:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1000:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return plural(int(n), "byte")
}
