package app

import (
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// frontendCall is call<T>('Service', 'Method', args…) in the frontend's typed wrappers.
var frontendCall = regexp.MustCompile(`\bcall(?:<[^()]*?>)?\(\s*'(\w+)'\s*,\s*'(\w+)'\s*([,)])`)

// TestFrontendCallsOnlyBoundMethods checks every call('Service', 'Method', …) in the frontend
// against the methods the app binds, with the number of arguments each takes: a renamed or
// removed Go method fails here, not in a person's hands.
func TestFrontendCallsOnlyBoundMethods(t *testing.T) {
	t.Parallel()
	bound := map[string]reflect.Method{}
	for _, b := range (&App{}).Bindings() {
		typ := reflect.TypeOf(b)
		for i := range typ.NumMethod() {
			m := typ.Method(i)
			bound[typ.Elem().Name()+"."+m.Name] = m
		}
	}

	calls := 0
	err := filepath.WalkDir(filepath.Join("..", "frontend", "src"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(path, ".test.") ||
			!(strings.HasSuffix(path, ".ts") || strings.HasSuffix(path, ".svelte")) {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, loc := range frontendCall.FindAllStringSubmatchIndex(string(src), -1) {
			text := string(src)
			service, method := text[loc[2]:loc[3]], text[loc[4]:loc[5]]
			m, ok := bound[service+"."+method]
			if !ok {
				t.Errorf("%s calls %s.%s, which the app does not bind", path, service, method)
				continue
			}
			args := 0
			if text[loc[6]:loc[7]] == "," {
				args = countArgs(text[loc[7]:])
			}
			// The method's inputs include its receiver.
			if want := m.Type.NumIn() - 1; args != want {
				t.Errorf("%s calls %s.%s with %d arguments; it takes %d", path, service, method, args, want)
			}
			calls++
		}
		return nil
	})
	require.NoError(t, err)
	require.Greater(t, calls, 40, "the frontend's calls were found")
}

// countArgs counts the comma-separated arguments in s up to the parenthesis that closes the call.
func countArgs(s string) int {
	depth, n, seen := 0, 1, false
	for i, quote := 0, byte(0); i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0:
			if c == '\\' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote, seen = c, true
		case c == '(' || c == '[' || c == '{':
			depth++
		case c == ')' || c == ']' || c == '}':
			if depth == 0 {
				if !seen {
					return 0
				}
				return n
			}
			depth--
		case c == ',' && depth == 0:
			n++
		case c != ' ' && c != '\n' && c != '\t':
			seen = true
		}
	}
	return n
}
