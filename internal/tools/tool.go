// Package tools holds the tool registry and the built-in workspace tools the model calls.
//
// A tool is a small file plus its description (a .md file next to it, embedded), a typed
// parameter struct whose JSON Schema is inferred from its fields, and a kind that decides how it
// may be batched. Mistakes the model can fix come back as a Result with an ErrorKind; failures of
// the machine are Go errors.
package tools

import (
	"context"
	"fmt"
)

// Kind says what a tool does, which decides batching and which modes may use it.
type Kind string

const (
	KindRead    Kind = "read"
	KindEdit    Kind = "edit"
	KindDelete  Kind = "delete"
	KindMove    Kind = "move"
	KindSearch  Kind = "search"
	KindExecute Kind = "execute"
	KindThink   Kind = "think"
	KindFetch   Kind = "fetch"
	KindOther   Kind = "other"
)

// ReadOnly reports whether a tool of this kind leaves the workspace as it was.
func (k Kind) ReadOnly() bool {
	switch k {
	case KindRead, KindSearch, KindThink, KindFetch:
		return true
	}
	return false
}

// ErrorKind classifies a failed call so the UI can show it and the agent can react.
type ErrorKind string

const (
	ErrInvalidArguments ErrorKind = "invalid_arguments"
	ErrUnknownTool      ErrorKind = "unknown_tool"
	ErrNotFound         ErrorKind = "not_found"
	ErrOutsideWorkspace ErrorKind = "outside_workspace"
	ErrDenied           ErrorKind = "denied" // the person (or the policy) said no
	ErrFailed           ErrorKind = "failed" // it ran and did not succeed (no match, non-zero exit)
	ErrTimeout          ErrorKind = "timeout"
	ErrCancelled        ErrorKind = "cancelled"
)

// Result is what a call produced: Content for the model, Display for the UI, Meta in
// structured form for the agent's memory and the UI.
type Result struct {
	Content   string
	Display   any       // small, JSON-encodable; large data is fetched by the UI on demand
	Meta      Meta      // the files it read or changed, the command it ran
	ErrorKind ErrorKind // empty on success
}

// Failed reports whether the call did not succeed.
func (r Result) Failed() bool { return r.ErrorKind != "" }

// Fail builds a failed result whose message tells the model what went wrong and how to recover.
func Fail(kind ErrorKind, format string, args ...any) Result {
	return Result{Content: fmt.Sprintf(format, args...), ErrorKind: kind}
}

// Action is a step inside one call that the UI lists on its own, like one 100-line chunk of
// read_file ("Reading main.go · lines 1–100"), so a click can open the file at that place.
type Action struct {
	Title     string `json:"title"`
	Path      string `json:"path,omitempty"` // workspace-relative slash path
	StartLine int    `json:"startLine,omitempty"`
	EndLine   int    `json:"endLine,omitempty"`
	Done      bool   `json:"done"`
}

// Output receives what a running call shows live.
type Output interface {
	Action(Action)
	Stream(chunk []byte) // command output as it arrives
}

// Discard is an Output that shows nothing (headless callers and tests).
var Discard Output = discard{}

type discard struct{}

func (discard) Action(Action) {}
func (discard) Stream([]byte) {}

// Tool is one capability the model may call.
type Tool interface {
	Name() string
	Description() string
	Kind() Kind
	// Params is the schema of the arguments, properties in declaration order.
	Params() *Schema
	// Execute runs the call with arguments already aliased, coerced and validated.
	Execute(ctx context.Context, args map[string]any, out Output) (Result, error)
}

// Define makes a Tool from a typed handler: the schema comes from P's fields (json tags name
// them, `jsonschema:"…"` tags describe them, fields without omitempty are required), and the
// validated arguments are decoded into a P before run sees them. about says how it is presented.
func Define[P any](name string, kind Kind, description string, about About, run func(ctx context.Context, p P, out Output) (Result, error)) Tool {
	return &defined[P]{name: name, kind: kind, description: description, about: about, params: mustSchemaFor[P](), run: run}
}

type defined[P any] struct {
	name, description string
	kind              Kind
	about             About
	params            *Schema
	run               func(ctx context.Context, p P, out Output) (Result, error)
}

func (d *defined[P]) About() About        { return d.about }
func (d *defined[P]) Name() string        { return d.name }
func (d *defined[P]) Description() string { return d.description }
func (d *defined[P]) Kind() Kind          { return d.kind }
func (d *defined[P]) Params() *Schema     { return d.params }

func (d *defined[P]) Execute(ctx context.Context, args map[string]any, out Output) (Result, error) {
	var p P
	if err := decodeArgs(args, &p); err != nil {
		return Fail(ErrInvalidArguments, "%s: %v", d.name, err), nil
	}
	return d.run(ctx, p, out)
}
