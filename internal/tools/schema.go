package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"regexp"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Schema is a JSON Schema; tool parameters are objects whose PropertyOrder keeps declaration order.
type Schema = jsonschema.Schema

func mustSchemaFor[P any]() *Schema {
	s, err := jsonschema.For[P](nil)
	if err != nil {
		panic(fmt.Sprintf("tool parameters %T: %v", *new(P), err))
	}
	// Small models add arguments nobody asked for; ignoring them beats failing the call.
	s.AdditionalProperties = nil
	addEnums(reflect.TypeFor[P](), s)
	return s
}

// addEnums gives the properties of struct t whose fields have an `enum:"a,b"` tag their allowed
// values (embedded structs' fields included, as JSON flattens them).
func addEnums(t reflect.Type, s *Schema) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for f := range t.Fields() {
		if f.Anonymous {
			addEnums(f.Type, s)
			continue
		}
		values, ok := f.Tag.Lookup("enum")
		if !ok {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if prop := s.Properties[name]; prop != nil {
			for v := range strings.SplitSeq(values, ",") {
				prop.Enum = append(prop.Enum, v)
			}
		}
	}
}

// validator checks arguments against a tool's schema.
type validator struct{ resolved *jsonschema.Resolved }

func newValidator(s *Schema) (*validator, error) {
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return &validator{resolved: r}, nil
}

func (v *validator) validate(args map[string]any) error {
	// Validate the JSON form, so numbers and nested values look the way the schema expects.
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	var instance any
	if err := json.Unmarshal(raw, &instance); err != nil {
		return err
	}
	if err := v.resolved.Validate(instance); err != nil {
		return readableValidationError(err)
	}
	return nil
}

var (
	locationRe = regexp.MustCompile(`validating (/[^:]*): `)
	missingRe  = regexp.MustCompile(`missing properties: \[(.*)\]`)
	typeRe     = regexp.MustCompile(`type: (.*) has type "(\w+)", want "?([^"]+)"?$`)
)

// readableValidationError turns the library's nested message into one sentence naming the
// argument, e.g. `argument "edits[].old": expected string, got integer (1)`.
func readableValidationError(err error) error {
	msg := err.Error()
	field := ""
	if locs := locationRe.FindAllStringSubmatch(msg, -1); len(locs) > 0 {
		field = fieldName(locs[len(locs)-1][1])
	}
	last := msg
	if i := strings.LastIndex(msg, ": "); i >= 0 {
		last = msg[i+2:]
	}
	switch {
	case missingRe.MatchString(msg):
		names := strings.ReplaceAll(missingRe.FindStringSubmatch(msg)[1], `"`, "")
		if field != "" {
			return fmt.Errorf("argument %q is missing %s", field, names)
		}
		return fmt.Errorf("missing required argument(s): %s", names)
	case typeRe.MatchString(msg):
		m := typeRe.FindStringSubmatch(msg)
		return fmt.Errorf("argument %q: expected %s, got %s (%s)", field, m[3], m[2], m[1])
	case field != "":
		return fmt.Errorf("argument %q: %s", field, last)
	}
	return fmt.Errorf("invalid arguments: %s", last)
}

// fieldName turns a schema location like /properties/edits/items/properties/old into edits[].old.
func fieldName(loc string) string {
	loc = strings.ReplaceAll(loc, "/items", "[]")
	loc = strings.ReplaceAll(loc, "/properties/", ".")
	return strings.TrimPrefix(loc, ".")
}

// decodeArgs moves validated arguments into the tool's typed parameters.
func decodeArgs(args map[string]any, into any) error {
	raw, err := json.Marshal(args)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, into)
}
